#!/bin/sh
# SPDX-License-Identifier: MIT
# warmup = "steady" on a loop device over /dev/shm: the warm-up lasts until the
# per-second IOPS of a 2 s window are within 2 % of their mean, and the run file records when
# ("steady": reached, at_s, the criterion). The device is read at a fixed 4000 IOPS: unpaced, a
# loop device over tmpfs is CPU-bound and its per-second IOPS follow the CPU share a shared
# machine gives it (docs/reports.md), so the test would judge the machine; paced, the device
# holds its rate and steady state is reached with the first full window, 2 s in. A drifting target
# that never settles is test_run.c's (a test hook slows every I/O down as the run goes on).
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for a loop device"
need_cmd losetup python3
back=$(mktemp /dev/shm/iomatrix-e2e.XXXXXX)
dev=""
cleanup() { [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null; rm -f "$back"; }
on_exit cleanup
truncate -s 32M "$back"
dev=$(losetup -f --show "$back") || skip "cannot attach a loop device"

cat >m.cfg <<CFG
iomatrix = 1;
name = "steady";
targets = ( { label = "loop"; path = "$dev"; size = "16M"; rate_iops = 4000; } );
workload = { block_size = "4K"; queue_depth = 4; read_pct = 100; engine = "io_uring"; };
timing = { warmup = "steady"; steady = "iops 2% 2s"; warmup_max = "8s"; duration = "300ms"; };
trace = false;
CFG
"$IOMATRIX" run m.cfg -o out -q >run.out 2>run.err || die "run: $(cat run.err)"
# what the run file records holds whatever the load; reaching the criterion is a figure of the
# machine's too (beside other work the paced rate's seconds spread 56 %): exit 3, judged on a
# quiet one only
python3 - <<'PY'
import json, sys
r = json.load(open("out/runs/00001.json"))
s = r["steady"]
assert s["criterion"] == "iops 2% 2s", s
assert r["warmup_ios"] > 0
if s["reached"] is not True:
    # not reached: the warm-up went on to warmup_max and ended there, the spread it saw above 2 %
    assert s["reached"] is False and s["spread_pct"] > 2, s
    assert abs(s["warmup_s"] - 8) < 0.5, s
    print("not reached in 8 s: spread %.1f %%" % s["spread_pct"])
    sys.exit(3)
assert 1.9 <= s["at_s"] <= 8.5, s
assert s["spread_pct"] <= 2, s
assert abs(s["warmup_s"] - s["at_s"]) < 0.5, s  # the warm-up ended when it was reached
print("reached at %.2f s, spread %.1f %%" % (s["at_s"], s["spread_pct"]))
PY
rc=$?
if [ $rc = 3 ]; then
    figure_or_die "steady state not reached: $(grep -o '"steady".*' out/runs/00001.json)"
elif [ $rc != 0 ]; then
    die "steady state not recorded: $(grep -o '"steady".*' out/runs/00001.json)"
fi
exit "$fail"
