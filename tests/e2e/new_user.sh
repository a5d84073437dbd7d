#!/bin/sh
# SPDX-License-Identifier: MIT
# Every command as a new user meets them, from `iomatrix new` to the HTML report: new (to stdout
# and to a file, which is never overwritten) → check → plan → run (two scratch files in the cwd,
# short timings through --set) → report → report --run 1 → report --format html → trace to CSV;
# then help and version. Each exit code is checked, and some of each output.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
run() { # run EXPECTED-EXIT CMD...: runs CMD with out/err captured, checks the exit code
    want=$1; shift
    "$@" >out 2>err
    rc=$?
    [ "$rc" -eq "$want" ] || die "$*: exit $rc, want $want: $(head -c 400 err)"
}
short="--set duration=200ms --set warmup=0s --set repeat=2"

# new: the default preset to stdout, then every preset to a file with two targets
run 0 "$IOMATRIX" new
grep -q '^iomatrix = 1;' out || die "new printed no matrix"
grep -q '^# This file makes 16 runs' out || die "new: run count line: $(grep 'makes' out)"
for p in quick atto diskspd iometer crystaldiskmark; do
    run 0 "$IOMATRIX" new --preset "$p" -o "$p.cfg" fast.dat slow.dat
    grep -q "^wrote $p.cfg (preset $p); next: iomatrix check $p.cfg" out || die "new -o: $(cat out)"
    grep -q 'label = "fast.dat"; path = "fast.dat";' "$p.cfg" || die "$p.cfg lacks target fast.dat"
    run 0 "$IOMATRIX" check "$p.cfg"
    grep -q "^$p.cfg: valid, [0-9]* runs$" out || die "check $p.cfg: $(cat out)"
done
cp quick.cfg before.cfg
run 2 "$IOMATRIX" new -o quick.cfg other.dat
grep -q "'quick.cfg' exists, and 'iomatrix new' never overwrites a file" err || die "overwrite: $(cat err)"
cmp -s quick.cfg before.cfg || die "new replaced an existing file"
run 2 "$IOMATRIX" new --preset fio
grep -q "unknown preset 'fio'" err || die "unknown preset: $(cat err)"
run 0 "$IOMATRIX" new --preset atto /dev/iomatrix-no-such-disk
grep -q 'destructive = false;' out || die "a device target is not destructive = false"
run 0 "$IOMATRIX" help new
grep -q -- '--preset NAME' out || die "help new lists no --preset"

# plan
run 0 "$IOMATRIX" plan quick.cfg $short
grep -q '^16 runs: 8 cells x 2 repetitions' out || die "plan: $(grep runs: out)"
grep -q '^plan hash: ' out || die "plan has no hash"

# run
run 0 "$IOMATRIX" run quick.cfg -o res $short
grep -q '16 runs ok, 0 failed; results in res' out || die "run summary: $(tail -n 2 out)"
grep -q 'fast.dat' out && grep -q 'slow.dat' out || die "run output names no targets"
[ -f res/summary.csv ] || die "no summary.csv"

# report, in text, as one DiskSpd-style run, as HTML
run 0 "$IOMATRIX" report res
grep -q 'fast.dat' out || die "report names no target"
grep -q 'IOPS' out || die "report has no IOPS"
run 0 "$IOMATRIX" report res --run 1
grep -q 'Results for run 1:' out && grep -q 'Total IO' out || die "report --run 1"
run 0 "$IOMATRIX" report res --format html -o r.html
[ -s out ] && die "report -o html wrote to stdout"
grep -q '<svg' r.html || die "r.html has no chart"
grep -q '</html>' r.html || die "r.html is not whole"
run 0 "$IOMATRIX" report res --format csv
head -n 1 out | grep -q ',' || die "report --format csv"

# trace to CSV
run 0 "$IOMATRIX" trace res/traces/00001.trace.gz --format csv -o t.csv
[ "$(wc -l <t.csv)" -gt 10 ] || die "t.csv has $(wc -l <t.csv) lines"

# the rest of the commands
run 0 "$IOMATRIX" help
for c in new check plan run resume report trace diskspd help version; do
    grep -q "^  $c " out || die "help lists no '$c'"
done
run 0 "$IOMATRIX" version
grep -q '^iomatrix ' out || die "version: $(cat out)"
run 2 "$IOMATRIX" chek quick.cfg
grep -q "did you mean 'check'" err || die "typo: $(cat err)"
rm -f fast.dat slow.dat .fast.dat.iomatrix .slow.dat.iomatrix
exit "$fail"
