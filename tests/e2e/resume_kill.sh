#!/bin/sh
# SPDX-License-Identifier: MIT
# Resume after kill -9 at random points: a sweep of 20 short runs (null engine, 200 ms each) is
# killed with SIGKILL six times at random moments, then `iomatrix resume` carries it to the end.
# Afterwards every run exists exactly once in runs/, every JSON file parses, summary.csv has one
# row per run, the journal has one run-done per run, and no temporary file is left behind.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "kill";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = [ "4K", "8K", "16K", "32K", "64K" ];
             queue_depth = [ 1, 2 ]; threads = [ 1, 2 ]; };
timing = { warmup = "0s"; duration = "200ms"; rest = "0s"; repeat = 1; };
trace = false;
CFG

# a random delay of 0.1 to 0.7 s
delay() { python3 -c 'import random; print("%.2f" % random.uniform(0.1, 0.7))'; }

"$IOMATRIX" run m.cfg -o out -q >/dev/null 2>run.err &
pid=$!
i=0   # a kill before the journal exists leaves nothing to resume: start counting from there
while [ ! -s out/journal ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
sleep "$(delay)"
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ -f out/journal ] || { cat run.err; die "no journal after the first kill"; exit 1; }
kills=1
rc=1
while [ $kills -lt 6 ]; do
    "$IOMATRIX" resume out -q >/dev/null 2>resume.err &
    pid=$!
    sleep "$(delay)"
    if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
    wait "$pid" 2>/dev/null
    grep -q "study-end" out/journal && break
done
for i in 1 2 3 4 5; do
    grep -q "study-end" out/journal && { rc=0; break; }
    "$IOMATRIX" resume out -q >resume.out 2>resume.err
    rc=$?
    [ $rc -eq 0 ] && break
    cat resume.err
done
[ $rc -eq 0 ] || die "resume did not complete (exit $rc): $(cat resume.err)"
echo "killed $kills times"

n=$(ls out/runs | grep -c '^[0-9]\{5\}\.json$')
[ "$n" -eq 20 ] || die "runs/ holds $n result files, not 20: $(ls out/runs)"
extra=$(ls -A out out/runs | grep -c '\.tmp\.')
[ "$extra" -eq 0 ] || die "temporary files left: $(ls -A out out/runs)"
for i in $(seq 1 20); do
    f=$(printf 'out/runs/%05d.json' "$i")
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r.get("status") != "ok")' "$f" ||
        die "$f does not parse or is not ok"
done
python3 -c 'import json; json.load(open("out/study.json"))' || die "study.json does not parse"
rows=$(($(wc -l <out/summary.csv) - 1))
[ "$rows" -eq 20 ] || die "summary.csv has $rows rows, not 20"
dup=$(tail -n +2 out/summary.csv | cut -d, -f1 | sort | uniq -d | head -n 1)
[ -z "$dup" ] || die "summary.csv repeats run $dup"
for i in $(seq 1 20); do
    c=$(awk -F'\t' -v i="$i" '$2 == "run-done" && $3 == i' out/journal | wc -l)
    [ "$c" -eq 1 ] || die "the journal has $c run-done entries for run $i"
done
grep -q "	resume	" out/journal || die "the journal records no resume"
exit $fail
