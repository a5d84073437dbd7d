#!/bin/sh
# SPDX-License-Identifier: MIT
# The text report fits the terminal: COLUMNS=80, 120 and 220 (and --width N) on a three-target
# study give no line wider than the width; at 220 one table with the three targets side by side;
# narrower, one table per metric with the three targets as its columns (never a block per target).
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

cat >three.cfg <<'CFG'
iomatrix = 1;
name = "three";
targets = ( { label = "ext4-target"; path = "a.scratch"; size = "1M"; },
            { label = "xfs-target"; path = "b.scratch"; size = "1M"; },
            { label = "raw-target"; path = "c.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = [ "512", "4K", "64K" ]; };
timing = { warmup = "0s"; duration = "0.1s"; rest = "0s"; repeat = 2; };
trace = false;
CFG
"$IOMATRIX" run three.cfg -o r3 -q >run.txt 2>&1 || die "run failed: $(cat run.txt)"
widest() { python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")))' "$1"; }
for w in 80 120 220; do
    COLUMNS=$w "$IOMATRIX" report r3 >w$w.txt 2>err.txt || die "report at $w: $(cat err.txt)"
    [ "$(widest w$w.txt)" -le $w ] || die "COLUMNS=$w: a line of $(widest w$w.txt) columns"
done
"$IOMATRIX" report r3 --width 90 >w90.txt || die "report --width 90"
[ "$(widest w90.txt)" -le 90 ] || die "--width 90: a line of $(widest w90.txt) columns"
(unset COLUMNS; "$IOMATRIX" report r3 >wnotty.txt) || die "report, not a tty"
[ "$(widest wnotty.txt)" -le 100 ] || die "not a tty: a line of $(widest wnotty.txt) columns"

# 220: one table, the three side by side (their group titles on one line), no per-metric tables
grep -q -- "- ext4-target -.*- xfs-target -.*- raw-target -" w220.txt ||
    die "COLUMNS=220: the three targets are not side by side: $(cat w220.txt)"
[ "$(grep -c '^cell ' w220.txt)" -eq 1 ] || die "COLUMNS=220: more than one table"
# 80: a table per metric, the targets its columns; at no width a block per target (a group
# title line without all three)
[ "$(grep -c '^cell  *ext4-target  *xfs-target  *raw-target$' w80.txt)" -eq 5 ] ||
    die "COLUMNS=80: not one table per metric with the targets as columns: $(cat w80.txt)"
for w in 80 90 120 220; do
    grep -- "- [a-z0-9]*-target -" w$w.txt | grep -v -- "- ext4-target -.*- xfs-target -.*- raw-target -" |
        grep -q . && die "width $w: a block per target: $(cat w$w.txt)"
    [ "$(grep -c '^cell  *ext4-target  *xfs-target  *raw-target$' w$w.txt)" -eq 5 ] ||
        grep -q -- "- ext4-target -.*- xfs-target -.*- raw-target -" w$w.txt ||
        die "width $w: neither one table nor a table per metric: $(cat w$w.txt)"
done
grep -qx "IOPS" w80.txt && grep -qx "CPU/IO" w80.txt || die "COLUMNS=80: the metric tables are not named"
"$IOMATRIX" report r3 --width 12 >/dev/null 2>err.txt && die "--width 12 was taken"
grep -q "^iomatrix: --width takes a number of columns from 40 to 10000 (got '12')$" err.txt ||
    die "--width 12: $(cat err.txt)"
exit $fail
