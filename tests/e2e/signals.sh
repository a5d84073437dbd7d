#!/bin/sh
# SPDX-License-Identifier: MIT
# Signals: SIGHUP does not end a sweep (and a second process on its directory is refused);
# SIGINT during a run stops it cleanly — exit 3, the
# partial result written with status "interrupted" and journalled run-interrupted, the resume
# command printed — and `iomatrix resume` says what it kept and reruns ("1 run done, kept;
# rerunning run 2 (interrupted); 1 to go"), then completes the sweep with every run ok.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

# the man page says what the code does, for each signal it documents
man1="$TOP/docs/iomatrix.1"
sed -n '/^\.SH SIGNALS/,/^\.SH EXIT/p' "$man1" | tr '\n' ' ' | sed 's/\\-/-/g' >man-signals
grep -q "SIGINT \", \" SIGTERM .*cuts the current run short, records it as interrupted" man-signals ||
    die "iomatrix.1 does not say SIGINT cuts the run short and records it interrupted"
grep -q "journalled run-interrupted), runs no further run and exits 3" man-signals ||
    die "iomatrix.1 does not give SIGINT's journal entry and exit 3"
grep -q "runs the interrupted run again" man-signals || die "iomatrix.1 does not say resume reruns it"
grep -q "SIGHUP Ignored during a sweep" man-signals || die "iomatrix.1 does not say SIGHUP is ignored"
grep -q "stops after the current run" "$man1" && die "iomatrix.1 still says SIGINT stops after the run"

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "signals";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = [ "4K", "8K", "16K" ]; };
timing = { warmup = "0s"; duration = "1s"; rest = "0s"; repeat = 1; };
trace = false;
CFG

"$IOMATRIX" run m.cfg -o out >run.out 2>run.err &
pid=$!
sleep 0.5
kill -HUP "$pid"
sleep 0.3
kill -0 "$pid" 2>/dev/null || die "SIGHUP ended the sweep"
"$IOMATRIX" resume out >second.out 2>second.err && die "a second process resumed a running sweep"
grep -q "in use by another iomatrix process" second.err || die "no lock message: $(cat second.err)"
i=0   # wait until run 2 is under way
while ! grep -q "	run-start	2	" out/journal 2>/dev/null && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
done
sleep 0.2
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 3 ] || die "exit $rc after SIGINT, not 3: $(cat run.err)"
grep -q "iomatrix resume out" run.err || die "the resume command is not printed: $(cat run.err)"
grep -qx "iomatrix: interrupted after 1 run; carry on with: iomatrix resume out" run.err ||
    die "the interruption line: $(cat run.err)"
grep -q "	run-interrupted	2" out/journal || die "the journal has no run-interrupted for run 2"
python3 -c 'import json,sys; r=json.load(open("out/runs/00002.json")); sys.exit(r["status"] != "interrupted")' ||
    die "runs/00002.json is not marked interrupted"
python3 -c 'import json,sys; r=json.load(open("out/runs/00001.json")); sys.exit(r["status"] != "ok")' ||
    die "runs/00001.json is not ok"
[ ! -e out/runs/00003.json ] || die "run 3 ran after SIGINT"

"$IOMATRIX" resume out >resume.out 2>resume.err || die "resume failed: $(cat resume.err)"
grep -qx "1 run done, kept; rerunning run 2 (interrupted); 1 to go" resume.out ||
    die "resume does not say what it kept: $(head -n 3 resume.out)"
for i in 1 2 3; do
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["status"] != "ok")' \
        "out/runs/0000$i.json" || die "run $i is not ok after resume"
done
[ "$(grep -c '	run-done	1	' out/journal)" -eq 1 ] || die "run 1 was repeated by resume"
# the resume record names the run it reruns (run 2, cut short), not "rerunning 0"
grep -q "	resume	0	1 done, 0 failed, rerunning run 2, redoing 0$" out/journal ||
    die "the resume record: $(grep resume out/journal)"
grep -q "	study-end	" out/journal || die "no study-end after resume"
exit $fail
