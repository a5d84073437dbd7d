#!/bin/sh
# SPDX-License-Identifier: MIT
# The contrib/ examples that read summary.csv: after a short study of two scratch files,
# contrib/summary-gnuplot.sh draws an SVG with a line per series (when gnuplot is installed) and
# contrib/summary-pandas.py prints a table of the two targets side by side (when a python3 with
# pandas is found: python3 on PATH, else /usr/bin/python3). Skips (77) when neither can run.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
tried=0

"$IOMATRIX" new -o q.cfg fast.dat slow.dat >/dev/null 2>err || die "new: $(cat err)"
"$IOMATRIX" run q.cfg -o res -q --no-trace --set duration=100ms --set warmup=0s --set repeat=2 \
    >/dev/null 2>err || die "run: $(cat err)"
[ -f res/summary.csv ] || { echo "FAIL: no summary.csv"; exit 1; }

if command -v gnuplot >/dev/null 2>&1; then
    tried=1
    sh "$TOP/contrib/summary-gnuplot.sh" res -x queue_depth -y iops -o plot.svg >out 2>err ||
        die "summary-gnuplot.sh: $(cat err)"
    grep -q '<svg' plot.svg || die "plot.svg is not SVG"
    for s in fast.dat/read_pct=100 slow.dat/read_pct=0; do
        grep -qF "$s" plot.svg || die "plot.svg has no series $s"
    done
    sh "$TOP/contrib/summary-gnuplot.sh" res -y nosuch -o x.svg >/dev/null 2>err && die "bad column accepted"
    grep -q 'no column "nosuch"' err || die "bad column message: $(cat err)"
else
    echo "gnuplot is not installed: its example is not tried"
fi

py=
for p in python3 /usr/bin/python3; do
    command -v "$p" >/dev/null 2>&1 && "$p" -c 'import pandas' 2>/dev/null && { py=$p; break; }
done
if [ -n "$py" ]; then
    tried=1
    "$py" "$TOP/contrib/summary-pandas.py" res --csv t.csv >out 2>err ||
        die "summary-pandas.py: $(cat err)"
    grep -q '^mean iops over the repetitions of 16 runs' out || die "pandas output: $(head -n 2 out)"
    grep -q 'fast.dat' out && grep -q 'slow.dat / fast.dat' out || die "pandas table: $(cat out)"
    [ "$(wc -l <t.csv)" -ge 5 ] || die "t.csv has $(wc -l <t.csv) lines"
    "$py" "$TOP/contrib/summary-pandas.py" nosuchdir >/dev/null 2>err && die "missing dir accepted"
else
    echo "no python3 with pandas: its example is not tried"
fi
rm -f fast.dat slow.dat .fast.dat.iomatrix .slow.dat.iomatrix
[ "$tried" -eq 1 ] || { echo "neither gnuplot nor pandas is installed"; exit 77; }
exit "$fail"
