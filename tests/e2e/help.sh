#!/bin/sh
# SPDX-License-Identifier: MIT
# Help: each command's --help gives its own options in its own words (never another command's
# "-o" or "-f" text) and wraps to the terminal; `help keys` wraps to the terminal: COLUMNS when set, 80 when not a tty; the
# diskspd view names its MB/s as DiskSpd's MiB/s on one line; diskspd --help prints a percent sign
# as one (no printf-style "%%").
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
export COLUMNS=300 # the wording checks below read each option's help on one line

"$IOMATRIX" run --help >run.txt || die "run --help"
grep -q -- "-o, --output PATH  *the results directory (default results/<name>-<UTC time>)" run.txt ||
    die "run --help: $(grep -- --output run.txt)"
"$IOMATRIX" report --help >report.txt || die "report --help"
grep -q -- "-f, --format FORMAT  *text (default), md, csv, json, html, fio-json," report.txt ||
    die "report --help: $(grep -- --format report.txt)"
grep -q -- "-o, --output PATH  *the file to write (default: standard output)$" report.txt ||
    die "report --help: $(grep -- --output report.txt)"
"$IOMATRIX" plan --help >plan.txt || die "plan --help"
grep -q -- "-f, --format FORMAT  *text (default), tsv or json$" plan.txt || die "plan --help: $(cat plan.txt)"
"$IOMATRIX" trace --help >trace.txt || die "trace --help"
grep -q -- "-f, --format FORMAT  *csv (default), fio (latency logs) or fio-plot" trace.txt || die "trace --help: $(cat trace.txt)"
"$IOMATRIX" new --help >new.txt || die "new --help"
grep -q -- "-o, --output PATH  *the matrix file to write (never replaced" new.txt || die "new --help: $(cat new.txt)"
for c in check plan run resume report trace new; do
    "$IOMATRIX" "$c" --help >h.txt || die "$c --help"
    for other in check plan run resume report trace new; do
        [ "$other" = "$c" ] && continue
        grep -q "  .*[ ;(]$other: " h.txt && die "$c --help speaks of '$other:': $(grep "$other: " h.txt)"
    done
done

widest() { awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1"; }
# every command's --help wraps to the terminal
for c in check plan run resume report trace new help; do
    COLUMNS=80 "$IOMATRIX" "$c" --help >h80.txt || die "$c --help"
    [ "$(widest h80.txt)" -le 80 ] || die "$c --help at COLUMNS=80: a line of $(widest h80.txt)"
done
COLUMNS=80 "$IOMATRIX" help keys >k80.txt || die "help keys"
[ "$(widest k80.txt)" -le 80 ] || die "help keys at COLUMNS=80: a line of $(widest k80.txt)"
COLUMNS=60 "$IOMATRIX" help keys >k60.txt || die "help keys"
[ "$(widest k60.txt)" -le 60 ] || die "help keys at COLUMNS=60: a line of $(widest k60.txt)"
(unset COLUMNS; "$IOMATRIX" help keys >knotty.txt) || die "help keys"
[ "$(widest knotty.txt)" -le 80 ] || die "help keys, not a tty: a line of $(widest knotty.txt)"
grep -q "^workload.block_size " k80.txt || die "help keys lacks workload.block_size"

"$IOMATRIX" diskspd -c1M -b4K -d1 -Sh t.scratch >ds.txt 2>ds.err || die "diskspd failed: $(cat ds.err)"
grep -q "^MB/s above is MiB/s (2^20 bytes per second), as DiskSpd prints it; in decimal MB/s (10^6):$" ds.txt ||
    die "the diskspd view does not name its MB/s"

"$IOMATRIX" diskspd --help >dsh.txt 2>&1 || die "diskspd --help"
grep -q -- "^  -rs<pct>     pct % of the I/Os random, the rest sequential" dsh.txt ||
    die "diskspd --help's -rs line: $(grep -- -rs dsh.txt)"
grep -q '%%' dsh.txt && die "diskspd --help prints '%%': $(grep '%%' dsh.txt | head -n 1)"
exit $fail
