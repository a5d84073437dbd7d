#!/bin/sh
# SPDX-License-Identifier: MIT
# Adaptive repetitions after kill -9: a study killed in the middle and resumed ends
# with the same decisions as the same study with the same seed run without a break, and a kill
# between a "stop" decision and the journal's records of the runs it skips loses no decision.
#
# Decisions follow measured figures, so the twin must measure the same: both targets are the
# null engine (no device: nothing but the pacer decides the figures) under SCHED_FIFO (chrt -f,
# so that other processes do not stall the pacer), "quiet" at a fixed 4000 IOPS (1000 I/Os in
# each window) and "noisy" at 600 IOPS with Poisson arrivals (about 150 I/Os, drawn from the
# run's seed: the same in both studies). Their I/O counts agree within a few (thread wake-ups
# shift a window against its schedule by a few ms), not exactly, so the CI figure in a
# decision's reason ("ci 60.07% wider than 2% after 2") is compared apart, within a loose
# bound; the decision itself — which run, continue or stop, within or wider, after how many —
# must be identical.
. "$TOP/tests/e2e/lib.sh"
need_cmd python3 chrt
rt="chrt -f 1"
$rt true 2>/dev/null || skip "needs SCHED_FIFO (chrt -f): without it other processes' load changes the figures"

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "adaptive-resume";
seed = 7;
targets = ( { label = "quiet"; path = "q.scratch"; size = "1M"; rate_iops = 4000; },
            { label = "noisy"; path = "n.scratch"; size = "1M"; rate_iops = 600;
              arrivals = "poisson"; } );
workload = { engine = "null"; direct = false; block_size = "4K"; queue_depth = 8; read_pct = 100; };
timing = { warmup = "50ms"; duration = "250ms"; repeat = 2; repeat_max = 8; until = "ci 2%"; };
trace = false;
CFG

# decisions A B: every decide record of study A and of study B, the same but for the CI figure
decisions() {
    python3 - "$1" "$2" <<'PY'
import json, os, re, sys
def load(d):
    rows = [l.rstrip("\n").split("\t") for l in open(d + "/journal")]
    dec = [(int(r[2]), r[3]) for r in rows if r[1] == "decide"]
    runs = [int(r[2]) for r in rows if r[1] == "run-done"]
    assert len(runs) == len(set(runs)), "%s: a run done twice: %s" % (d, runs)
    assert "study-end" in [r[1] for r in rows], "%s: no study-end" % d
    ios = {}
    for f in os.listdir(d + "/runs"):
        r = json.load(open(d + "/runs/" + f))
        ios[r["index"]] = r["total"]["ios"]
    return dec, ios, {int(r[2]) for r in rows if r[1] == "run-skipped"}
def stalled(d): # a quiet run off its fixed rate by more than 0.5 %: the machine stalled it
    for f in os.listdir(d + "/runs"):
        r = json.load(open(d + "/runs/" + f))
        if r["cell"]["target"] == "quiet" and abs(r["total"]["iops"] - 4000) > 20:
            return True
    return False
def compare():
  (da, ia, sa), (db, ib, sb) = load(sys.argv[1]), load(sys.argv[2])
  fig = re.compile(r"^(continue|stop): ci ([0-9.]+)% (within|wider than) 2% after ([0-9]+)$")
  assert len(da) == len(db), "%d decisions against %d:\n%s\n%s" % (len(da), len(db), da, db)
  for (ra, wa), (rb, wb) in zip(da, db):
      ma, mb = fig.match(wa), fig.match(wb)
      assert ma and mb, (wa, wb)
      assert (ra, ma.group(1, 3, 4)) == (rb, mb.group(1, 3, 4)), "run %d: '%s', run %d: '%s'" % (ra, wa, rb, wb)
      a, b = float(ma.group(2)), float(mb.group(2))
      # the same counts give the same CI; a few counts more or less move it (1000 against 1001
      # I/Os: 0.00 % against 0.65 %; 8 more of 150 after 2 runs: a third). Under the bound
      # ("within") the decision says all there is: 0.01 % and 1.39 % were seen for one run
      assert ma.group(3) == "within" or abs(a - b) <= 1 or abs(a - b) <= 0.5 * max(a, b), (wa, wb)
      print("run %2d: %s | %s" % (ra, wa, wb))
  assert sa == sb, "skipped runs differ: %s, %s" % (sa, sb)
  assert set(ia) == set(ib), "run files differ: %s, %s" % (sorted(ia), sorted(ib))
  for i in sorted(ia):
      # the same draws in a window that thread wake-ups shift by a few ms: a few counts apart
      assert abs(ia[i] - ib[i]) <= 0.1 * max(ia[i], ib[i]), "run %d measured %d I/Os, its twin %d" % (i, ia[i], ib[i])
  def reps(d): # per cell: its repetitions and why it stopped, but for the CI figure
      t = [l.rstrip("\n").split("\t") for l in open(d + "/repetitions.tsv")][1:]
      return [(r[1], r[2], re.sub(r"^ci [0-9.]+%", "ci X%", r[3])) for r in t]
  assert reps(sys.argv[1]) == reps(sys.argv[2]), (reps(sys.argv[1]), reps(sys.argv[2]))
  print("repetitions: %s" % reps(sys.argv[1]))
try:
    compare()
except AssertionError as e:
    print("differ: %s" % e)
    if stalled(sys.argv[1]) or stalled(sys.argv[2]):
        print("(a quiet run missed its fixed rate: the machine stalled the pacer)")
    sys.exit(3)
PY
}

# one attempt: 0 done (failures by die), 3 the twins' decisions differ; then all again, at most 4
# times. A figure near the 2 % bound can fall either side of it in twin runs even on a quiet
# machine (7 decisions against 11 was seen, 1 attempt in 4), and a quiet run off its fixed rate
# by more than 0.5 % says the machine stalled the pacer; a resume that loses, repeats or changes
# a decision differs in every attempt, and the decisions made before the kill are compared
# exactly each time
attempt() {
    rm -rf a b c
    # A: without a break
    $rt "$IOMATRIX" run m.cfg -o a -q >/dev/null 2>a.err || die "run: $(cat a.err)"
    grep -q "	run-skipped	" a/journal ||
        { die "the quiet cell never stopped: $(grep decide a/journal)"; return 1; }

    # B: killed with SIGKILL in the middle (during round 5's run of the noisy cell), then resumed
    $rt "$IOMATRIX" run m.cfg -o b -q >/dev/null 2>b.err &
    pid=$!
    i=0
    while ! grep -q "	decide	10	" b/journal 2>/dev/null && [ $i -lt 400 ]; do sleep 0.02; i=$((i + 1)); done
    sleep 0.1
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    grep -q "study-end" b/journal && die "the study ended before the kill"
    grep "	decide	" b/journal | cut -f3,4 >before.txt
    echo "killed after $(wc -l <before.txt) decisions"
    $rt "$IOMATRIX" resume b -q >/dev/null 2>resume.err || die "resume: $(cat resume.err)"
    grep "	decide	" b/journal | cut -f3,4 | head -n "$(wc -l <before.txt)" | cmp -s - before.txt ||
        die "resume changed decisions made before the kill"
    decisions a b || { r=$?; [ $r -eq 3 ] && return 3; die "the resumed study's decisions are not the uninterrupted one's"; }

    # C: A's directory as a kill right after the quiet cell's "stop" would leave it: the decision
    # journaled, the runs it skips not yet; resume skips them (no run of that cell after it)
    cp -r a c
    stop=$(grep -n "	decide	[0-9]*	stop: " c/journal | head -n 1 | cut -d: -f1)
    head -n "$stop" a/journal >c/journal
    for f in c/runs/*.json; do
        k=$(basename "$f" .json | sed 's/^0*//')
        grep -q "	run-done	$k	" c/journal || rm -f "$f"
    done
    rm -f c/repetitions.tsv c/summary.csv
    $rt "$IOMATRIX" resume c -q >/dev/null 2>c.err || die "resume c: $(cat c.err)"
    decisions a c || { r=$?; [ $r -eq 3 ] && return 3; die "a resume after the stop decision ran what the stop skipped"; }
    return 0
}

n=1
while :; do
    attempt
    [ $? -eq 3 ] || break
    [ $n -ge 4 ] && { die "the twins' decisions differed in each of 4 attempts"; break; }
    n=$((n + 1))
    echo "the twins' decisions differed (noise near the bound, or a stalled pacer): again"
done
exit "$fail"
