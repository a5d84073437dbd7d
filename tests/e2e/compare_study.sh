#!/bin/sh
# SPDX-License-Identifier: MIT
# Before/after per target: two studies of one matrix with two targets each (two loop devices),
# the scheduler of one device changed between them. `report A B --compare study` (and its alias
# `directory`) shows each target once, study A against study B cell by cell, with the verdicts
# B vs A, and its header names the fact that differs; with no --compare the report picks study
# (a recorded fact differs and every label is in both); --baseline DIR makes DIR the A side.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for loop devices"
need_cmd losetup
backa=$(mktemp /dev/shm/iomatrix-e2e.XXXXXX)
backb=$(mktemp /dev/shm/iomatrix-e2e.XXXXXX)
deva="" devb="" sched="" old=""
cleanup() {
    [ -n "$old" ] && echo "$old" >"$sched" 2>/dev/null
    [ -n "$deva" ] && losetup -d "$deva" 2>/dev/null
    [ -n "$devb" ] && losetup -d "$devb" 2>/dev/null
    rm -f "$backa" "$backb"
}
on_exit cleanup
truncate -s 32M "$backa" "$backb"
deva=$(losetup -f --show "$backa") || { echo "cannot attach a loop device"; exit 77; }
devb=$(losetup -f --show "$backb") || { echo "cannot attach a loop device"; exit 77; }
sched=/sys/block/$(basename "$deva")/queue/scheduler
[ -w "$sched" ] || skip "no writable scheduler for $deva"
old=$(sed 's/.*\[\(.*\)\].*/\1/' "$sched")
new=$(tr -d '[]' <"$sched" | tr ' ' '\n' | grep -v "^$old\$" | grep . | head -n 1)
[ -n "$new" ] || skip "$deva has no second scheduler"

cat >m.cfg <<CFG
iomatrix = 1;
name = "boot";
targets = ( { label = "disk1"; path = "$deva"; size = "16M"; },
            { label = "disk2"; path = "$devb"; size = "16M"; } );
workload = { block_size = "4K"; queue_depth = 2; read_pct = 100; engine = "io_uring"; };
timing = { warmup = "0s"; duration = "200ms"; rest = "0s"; repeat = 2; };
trace = false;
CFG
"$IOMATRIX" run m.cfg -o night -q >run.txt 2>&1 || die "first study: $(cat run.txt)"
echo "$new" >"$sched" || skip "cannot set the scheduler of $deva"
"$IOMATRIX" run m.cfg -o nightB -q >run.txt 2>&1 || die "second study: $(cat run.txt)"
echo "$old" >"$sched"

COLUMNS=200 "$IOMATRIX" report night nightB --compare study >study.txt 2>err.txt ||
    die "report --compare study: $(cat err.txt)"
grep -qx "compared: study (night, nightB)" study.txt || die "not by study: $(grep compared study.txt)"
grep -qx "B vs A: nightB against the baseline night, each target and cell of one study against the same of the other" study.txt ||
    die "no B vs A line: $(cat study.txt)"
grep -qx "the studies differ in: disk1 scheduler: $old → $new" study.txt ||
    die "the header does not name the scheduler: $(cat study.txt)"
grep -q "@" study.txt && die "a target was split per study: $(grep @ study.txt)"
[ "$(grep -c '^disk1 ' study.txt)" -eq 1 ] && [ "$(grep -c '^disk2 ' study.txt)" -eq 1 ] ||
    die "each target not once: $(cat study.txt)"
grep -q -- "- night -.*- nightB -" study.txt || die "A and B are not side by side: $(cat study.txt)"
sed -n '/^verdict over 2 cells/,/^$/p' study.txt >verdict.txt
grep -q "^night  " verdict.txt && grep -q "^nightB " verdict.txt || die "no A-vs-B verdict rows: $(cat study.txt)"
COLUMNS=200 "$IOMATRIX" report night nightB --compare directory >dir.txt 2>&1 || die "--compare directory: $(cat dir.txt)"
cmp -s study.txt dir.txt || die "--compare directory differs from study: $(diff study.txt dir.txt)"
COLUMNS=200 "$IOMATRIX" report night nightB >default.txt 2>&1 || die "report: $(cat default.txt)"
cmp -s study.txt default.txt || die "the default is not study: $(grep compared default.txt)"
COLUMNS=200 "$IOMATRIX" report night nightB --baseline nightB >base.txt 2>&1 || die "--baseline: $(cat base.txt)"
grep -qx "compared: study (nightB, night)" base.txt || die "--baseline nightB: $(grep compared base.txt)"
grep -qx "the studies differ in: disk1 scheduler: $new → $old" base.txt || die "--baseline: $(cat base.txt)"
"$IOMATRIX" report night nightB --baseline elsewhere >/dev/null 2>err.txt && die "--baseline elsewhere taken"
grep -qx "iomatrix: --baseline 'elsewhere' is not one of the directories reported on" err.txt ||
    die "--baseline elsewhere: $(cat err.txt)"
# the Markdown and HTML pages say the same in their headers
"$IOMATRIX" report night nightB --format md >study.md 2>&1 || die "md: $(cat study.md)"
grep -q "^B vs A: nightB against the baseline night, target by target. The studies differ in: disk1 scheduler: $old → $new\.$" study.md ||
    die "md header: $(head -n 8 study.md)"
"$IOMATRIX" report night nightB --format html -o study.html 2>err.txt || die "html: $(cat err.txt)"
grep -q "B vs A: nightB against the baseline night, target by target; the studies differ in: <b>disk1 scheduler: $old → $new</b>" study.html ||
    die "html header lacks the B vs A line"
# the old way still works when asked: a four-way race of the targets
"$IOMATRIX" report night nightB --compare target >target.txt 2>&1 || die "--compare target: $(cat target.txt)"
grep -q "^compared: target" target.txt || die "--compare target: $(grep compared target.txt)"
exit $fail
