#!/bin/sh
# SPDX-License-Identifier: MIT
# A full results directory: the sweep stops with a message saying the directory is full and
# how to carry on; every result already written still parses and is journalled, and once there
# is space (here: the directory copied to a roomier place) `iomatrix resume` completes it.
# A trace that fills the directory is named in that message (traces/NNNNN.trace.gz, not "a
# result file"), its partial file removed and its run left for resume, which redoes it.
# Needs root for tiny tmpfs mounts (skipped otherwise); the mounts are always undone.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_root "needs root to mount a small tmpfs"
need_cmd python3
mkdir small
mount -t tmpfs -o size=40k tmpfs small 2>err || { echo "cannot mount a tmpfs: $(cat err)"; exit 77; }
mkdir tiny
on_exit 'umount small 2>/dev/null; umount tiny 2>/dev/null'

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "full";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = [ "4K", "8K", "16K", "32K", "64K" ];
             queue_depth = [ 1, 2, 4, 8 ]; };
timing = { warmup = "0s"; duration = "20ms"; rest = "0s"; repeat = 1; };
trace = false;
CFG

"$IOMATRIX" run m.cfg -o small/out -q >run.out 2>run.err
rc=$?
[ "$rc" -eq 1 ] || die "exit $rc on a full results directory, not 1"
grep -q "is full" run.err || die "no clear message: $(cat run.err)"
grep -q "iomatrix resume small/out" run.err || die "the message does not say how to carry on"
done_runs=$(awk -F'\t' '$2 == "run-done" { print $3 }' small/out/journal)
[ -n "$done_runs" ] || die "no run was recorded before the disk filled up"
for i in $done_runs; do
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$(printf 'small/out/runs/%05d.json' "$i")" ||
        die "run $i is journalled done but its result does not parse"
done
for f in small/out/runs/*.json; do
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f" || die "$f does not parse"
done
n=$(echo "$done_runs" | wc -w)
echo "$n runs recorded before the disk was full"
[ "$n" -lt 20 ] || die "the tmpfs did not fill up: the test proves nothing"

cp -a small/out big
"$IOMATRIX" resume big -q >resume.out 2>resume.err || die "resume failed: $(cat resume.err)"
[ "$(ls big/runs | grep -c '\.json$')" -eq 20 ] || die "not every run is there after resume"
[ "$(awk -F'\t' '$2 == "run-done"' big/journal | wc -l)" -eq 20 ] || die "journal after resume"

# A trace fills the directory: the message names it.
mount -t tmpfs -o size=256k tmpfs tiny 2>err || { echo "cannot mount a second tmpfs: $(cat err)"; exit 77; }
cat >t.cfg <<'CFG'
iomatrix = 1;
name = "tracefull";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = "4K"; queue_depth = [ 1, 2, 4 ]; };
timing = { warmup = "0s"; duration = "200ms"; rest = "0s"; repeat = 1; };
trace = true;
CFG
"$IOMATRIX" run t.cfg -o tiny/out -q >trun.out 2>trun.err
rc=$?
echo "trace run: exit $rc: $(cat trun.err)"
[ "$rc" -eq 1 ] || die "exit $rc when a trace fills the results directory, not 1"
grep -q "is full (no space left on device) while writing traces/[0-9]\{5\}\.trace\.gz" trun.err ||
    die "the message does not name the trace: $(cat trun.err)"
grep -q "a result file" trun.err && die "the trace's failure is blamed on a result file"
grep -q "iomatrix resume tiny/out" trun.err || die "the message does not say how to carry on"
full=$(sed -n 's/.*while writing traces\/\([0-9]\{5\}\)\.trace\.gz.*/\1/p' trun.err)
[ -n "$full" ] && [ ! -e "tiny/out/traces/$full.trace.gz" ] || die "the partial trace $full is still there"
[ ! -e "tiny/out/runs/$full.json" ] || die "the run whose trace did not fit was recorded"
cp -a tiny/out tbig
"$IOMATRIX" resume tbig -q >tresume.out 2>tresume.err || die "resume after the full trace failed: $(cat tresume.err)"
[ "$(awk -F'\t' '$2 == "run-done"' tbig/journal | wc -l)" -eq 3 ] || die "not every run done after resume"
[ -s "tbig/traces/$full.trace.gz" ] || die "resume did not redo the trace of run $full"
exit $fail
