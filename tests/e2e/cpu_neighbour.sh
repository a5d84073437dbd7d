#!/bin/sh
# SPDX-License-Identifier: MIT
# Other processes' CPU: each run records what other processes took during its window
# (cpu.other_cpu_pct: the system's busy time less iomatrix's own and its I/O's interrupt and
# softirq time, in % of a core). Beside a busy neighbour (a shell loop spinning on one core)
# a run records at least half a core of it, the sweep says so ("other processes took N% of a
# core during the window"), and the report flags the value under "busy neighbours".
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
spin=""
cleanup() { [ -n "$spin" ] && kill "$spin" 2>/dev/null; wait 2>/dev/null; }
on_exit cleanup
cat >m.cfg <<'CFG'
iomatrix = 1;
name = "neighbour";
targets = ( { label = "a"; path = "a.scratch"; size = "8M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = 100;
             rate_iops = 2000; };
timing = { warmup = "0s"; duration = "1s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
sh -c 'while :; do :; done' &
spin=$!
"$IOMATRIX" run m.cfg -o busy >run.txt 2>&1 || die "run: $(cat run.txt)"
kill "$spin"; wait "$spin" 2>/dev/null; spin=""
python3 - <<'PY' || die "run 1's other_cpu_pct"
import json
c = json.load(open("busy/runs/00001.json"))["cpu"]
o = c["other_cpu_pct"]
print("beside a spinning shell: other processes %.0f%% of a core, system busy %.0f%%" % (o, c["system_busy_pct"]))
assert o >= 50, o
PY
grep -Eq "^  run 1: other processes took [0-9]+% of a core during the window; its CPU figures include them$" run.txt ||
    die "the sweep does not say so: $(cat run.txt)"
tr '\n' ' ' <run.txt | tr -s ' ' | grep -Eq "busy neighbours: other processes took more than 25% of a core during these runs' windows, so their CPU figures \(CPU/IO, busy %\) include them: .* a: 1 of 1 run, up to [0-9]+% of a core" ||
    die "the report does not flag it: $(sed -n '/busy neighbours/,+3p' run.txt)"
exit $fail
