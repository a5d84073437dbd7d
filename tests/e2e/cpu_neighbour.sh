#!/bin/sh
# SPDX-License-Identifier: MIT
# Other processes' CPU: each run records what other processes took during its window
# (cpu.other_cpu_pct: the system's busy time less iomatrix's own and its I/O's interrupt and
# softirq time, in % of a core). Beside a busy neighbour (a shell loop spinning on one core)
# a run records at least half a core of it, the sweep says so ("other processes took N% of a
# core during the window"), and the report flags the value under "busy neighbours". The CPU's
# busy % is a compared metric when report.metrics names it: the winners table has its "CPU %"
# column beside CPU/IO (and none of the metrics left out), the JSON its cpu_busy_pct, the mean
# of the runs' system_busy_pct (at least half the spinner's core).
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
spin=""
cleanup() { [ -n "$spin" ] && kill "$spin" 2>/dev/null; wait 2>/dev/null; }
on_exit cleanup
cat >m.cfg <<'CFG'
iomatrix = 1;
name = "neighbour";
targets = ( { label = "a"; path = "a.scratch"; size = "8M"; },
            { label = "b"; path = "b.scratch"; size = "8M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = 100;
             rate_iops = 2000; };
timing = { warmup = "0s"; duration = "1s"; rest = "0s"; repeat = 1; };
trace = false;
report = { metrics = "iops, cpu_us_per_io, cpu_busy_pct"; };
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
# the CPU's busy %, compared
"$IOMATRIX" report busy --width 100 >rep.txt 2>&1 || die "report: $(cat rep.txt)"
grep -Eq "^cell +IOPS +CPU/IO +CPU % +IOPS +CPU/IO +CPU %$" rep.txt ||
    die "the winners table has no CPU % beside CPU/IO: $(grep '^cell' rep.txt)"
grep -q "^CPU %: the CPUs' busy share over the window" rep.txt || die "the legend does not say what CPU % is"
"$IOMATRIX" report busy --format json >rep.json 2>&1 || die "report json: $(cat rep.json)"
python3 - <<'PY' || die "the JSON's cpu_busy_pct"
import json
j = json.load(open("rep.json"))
assert j["options"]["metrics"] == ["iops", "cpu_us_per_io", "cpu_busy_pct"], j["options"]
cell = j["cells"][0]["metrics"]
assert set(cell) == {"iops", "cpu_us_per_io", "cpu_busy_pct"}, list(cell)
for t, i in (("a", 1), ("b", 2)):
    run = json.load(open("busy/runs/%05d.json" % i))["cpu"]
    got = cell["cpu_busy_pct"]["values"][t]["mean"]
    print("%s: CPU %% %.1f, run %d's system busy %.1f%%, %d CPUs" % (t, got, i, run["system_busy_pct"], len(run["per_cpu"])))
    assert abs(got - run["system_busy_pct"]) < 0.01, (got, run["system_busy_pct"])
    # the spinner's core, half of it at least (a guest's core is not all its own: 43.8 % of
    # 2 CPUs was seen beside a spinner)
    assert got >= 0.5 * 100.0 / len(run["per_cpu"]), got
PY
exit $fail
