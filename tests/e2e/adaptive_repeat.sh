#!/bin/sh
# SPDX-License-Identifier: MIT
# Adaptive repetitions: a loop device over /dev/shm (quiet) and a file on the disk
# (noisy), repeat = 2, repeat_max = 8, until = "ci 2%". The plan prints the range of runs; the
# journal records a decision for every cell's every extra round, a stopped cell's later runs as
# skipped (no file for them); each cell gets 2 to 8 repetitions, repetitions.tsv says how many
# and why it stopped, and the quiet target's cell stops before the noisy one's.
#
# What makes one quiet and the other noisy is set, not hoped for (docs/reports.md, "Adaptive
# repetitions", has the measurements): unpaced, on a shared 2-core machine, the loop device is
# CPU-bound and its IOPS follow the CPU share each run gets (9.3K to 77.6K IOPS in one study: a
# CI of +-463 % after 2 runs). So the loop device, the quiet target, is read at a fixed rate of
# 4000 IOPS (1000 I/Os in the window: its figures are the rate to a count or two), and the disk
# file, the noisy one, at 600 IOPS with Poisson arrivals (about 150 I/Os in the window, a count
# whose CV is 1/sqrt(150) = 8 %, drawn from each run's seed: a rate that varies per
# repetition). The study runs under SCHED_FIFO (chrt -f) so that other processes do not stall
# the pacer; a run whose IOPS still miss the fixed rate by more than 0.5 % (the loop driver's
# kernel worker held back by the machine's load: up to 140 ms was seen with five builds
# beside it), or the noisy cell stopping as early by chance (two Poisson counts a count apart),
# makes the study run again, at most 3 times. Without chrt -f it skips (77).
# The resume of an adaptive study after kill -9 is tests/e2e/adaptive_resume.sh.
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for a loop device"
need_cmd losetup python3
back=$(mktemp /dev/shm/iomatrix-e2e.XXXXXX)
disk=$(mktemp -d /var/tmp/iomatrix-e2e.XXXXXX)
dev=""
cleanup() { [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null; rm -f "$back"; rm -rf "$disk"; }
on_exit cleanup
truncate -s 32M "$back"
dev=$(losetup -f --show "$back") || skip "cannot attach a loop device"
rt="chrt -f 1"
$rt true 2>/dev/null || skip "no SCHED_FIFO here (chrt -f): the order the targets stop in needs it"

cat >m.cfg <<CFG
iomatrix = 1;
name = "adaptive";
seed = 7;
targets = ( { label = "disk"; path = "$disk/f.scratch"; size = "16M"; rate_iops = 600;
              arrivals = "poisson"; },
            { label = "loop"; path = "$dev"; size = "16M"; rate_iops = 4000; } );
workload = { block_size = "4K"; queue_depth = 8; read_pct = 100; engine = "io_uring"; };
timing = { warmup = "100ms"; duration = "250ms"; repeat = 2; repeat_max = 8; until = "ci 2%"; };
trace = false;
CFG

"$IOMATRIX" plan m.cfg >plan.txt 2>err.txt || die "plan: $(cat err.txt)"
grep -q "^adaptive: 4 to 16 runs (2 cells x 2 to 8 repetitions)" plan.txt ||
    die "the plan does not give the range of runs: $(cat plan.txt)"
grep -q "repeat=2 (interleaved: adaptive)" plan.txt ||
    die "the plan does not say the rounds are interleaved: $(grep timing: plan.txt)"

# checks study $1; exit 0 passed, 1 failed, 3 the quiet target did not stop first but one of
# its runs missed the fixed rate (the machine stalled it: run again)
check() {
    python3 - "$1" "${rt:+order}" <<'PY'
import json, os, sys
d, order = sys.argv[1], sys.argv[2] == "order"
rows = [l.rstrip("\n").split("\t") for l in open(d + "/journal")]
decided = [int(r[2]) for r in rows if r[1] == "decide"]
skipped = {int(r[2]) for r in rows if r[1] == "run-skipped"}
done = {int(r[2]) for r in rows if r[1] == "run-done"}
assert decided, "no decision recorded"
assert len(decided) == len(set(decided)), "a run decided twice: %s" % decided
assert not (skipped & done), "a skipped run ran"
files = {int(f[:5]) for f in os.listdir(d + "/runs") if f.endswith(".json")}
assert files == done, (files, done)
assert len(files) + len(skipped) == 16, (len(files), len(skipped))
# the rounds are interleaved: odd run indexes are the disk's, even the loop's, round (i + 1) / 2
dec = {int(r[2]): r[3] for r in rows if r[1] == "decide"}
for i, why in sorted(dec.items()):
    print("round %d %s: %s" % ((i + 1) // 2, "disk" if i % 2 else "loop", why))
t = [l.rstrip("\n").split("\t") for l in open(d + "/repetitions.tsv")][1:]
assert len(t) == 2, t
reps = {}
for cell, desc, n, why in t:
    assert 2 <= int(n) <= 8, (desc, n)
    assert why.startswith("ci ") or why == "repeat_max reached", why
    reps[desc.split()[0]] = (int(n), why)
    print("%s: %s repetitions (%s)" % (desc, n, why))
# the decisions agree with the counts: a cell ran every round up to its one stop
for tgt, odd in (("disk", 1), ("loop", 0)):
    stops = [i for i in sorted(dec) if i % 2 == odd and dec[i].startswith("stop")]
    assert len(stops) <= 1, (tgt, stops)
    assert reps[tgt][0] == ((stops[0] + 1) // 2 - 1 if stops else 8), (tgt, reps[tgt], stops)
if order and not (reps["loop"][0] < reps["disk"][0] and "within 2%" in reps["loop"][1] and
                  reps["disk"] == (8, "repeat_max reached")):
    iops = []
    for f in sorted(os.listdir(d + "/runs")):
        r = json.load(open(d + "/runs/" + f))
        if r["cell"]["target"] == "loop":
            iops.append(r["total"]["iops"])
    print("the quiet target did not stop first: %s; its IOPS %s" % (reps, iops))
    # a stalled pacer (the quiet rate missed), or chance: two Poisson counts of about 150 agree
    # to a count about 1 study in 14, and the noisy cell then stops after 2 as well (ci 0.18 %
    # was seen); a study again, and a decision rule that gets the order wrong fails every one
    sys.exit(3)
PY
}

n=1
while :; do
    rm -rf a
    $rt "$IOMATRIX" run m.cfg -o a -q >a.out 2>a.err || { die "run: $(cat a.err)"; break; }
    check a
    rc=$?
    [ $rc -eq 3 ] && [ $n -lt 3 ] && { n=$((n + 1)); echo "a stalled run or a chance tie: again"; continue; }
    if [ $rc -eq 3 ]; then
        figure_or_die "study $n: the quiet target did not stop first in any of 3 studies"
    elif [ $rc -ne 0 ]; then
        die "study $n: decisions and counts"
    fi
    break
done
exit "$fail"
