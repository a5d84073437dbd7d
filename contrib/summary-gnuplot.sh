#!/bin/sh
# SPDX-License-Identifier: MIT
# summary-gnuplot.sh DIR [-x DIMENSION] [-y COLUMN] [-o OUT.svg|OUT.png]
#
# Plots COLUMN (default mb_s) of the finished runs in DIR/summary.csv against DIMENSION (default
# block_size), averaged over the repetitions, one line per target and per value of every other
# dimension that varies. With the ATTO preset this is ATTO's chart: MB/s by transfer size, a
# write and a read line per target. Needs gnuplot and awk; the plot is contrib/summary-gnuplot.gp.
set -eu
usage() { echo "usage: $0 DIR [-x DIMENSION] [-y COLUMN] [-o OUT.svg|OUT.png]" >&2; exit 2; }
[ $# -ge 1 ] || usage
dir=$1; shift
x=block_size y=mb_s out=summary.svg
while [ $# -gt 0 ]; do
    case $1 in
    -x) [ $# -ge 2 ] || usage; x=$2; shift 2 ;;
    -y) [ $# -ge 2 ] || usage; y=$2; shift 2 ;;
    -o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    *) usage ;;
    esac
done
csv=$dir/summary.csv
[ -f "$csv" ] || { echo "$0: '$dir' has no summary.csv" >&2; exit 2; }
command -v gnuplot >/dev/null 2>&1 || { echo "$0: gnuplot is not installed" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iomatrix-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Averages y per (series, x) over the ok runs. Labels hold no commas (they are names), and the
# columns read here come before the only free-text one (error), so splitting on commas is safe.
awk -F, -v X="$x" -v Y="$y" -v data="$tmp/data" -v titles="$tmp/titles" '
NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    if (!(X in col) || !(Y in col) || !("status" in col)) {
        print "no column \"" (X in col ? Y : X) "\" in summary.csv" > "/dev/stderr"; bad = 1; exit 2
    }
    n = split("target block_size queue_depth threads read_pct pattern engine direct verify", d, " ")
    for (i = 1; i <= n; i++) if (d[i] in col && d[i] != X) dims[++nd] = d[i]
    next
}
$col["status"] == "ok" {
    rows[NR] = $0
    for (i = 1; i <= nd; i++) seen[dims[i], $col[dims[i]]] = 1
}
END {
    if (bad) exit 2
    # the dimensions that vary name the series
    for (i = 1; i <= nd; i++) {
        c = 0
        for (k in seen) { split(k, p, SUBSEP); if (p[1] == dims[i]) c++ }
        if (c > 1 || dims[i] == "target") vary[++nv] = dims[i]
    }
    for (r in rows) {
        split(rows[r], f, ",")
        s = ""
        for (i = 1; i <= nv; i++) s = s (i > 1 ? "/" : "") (vary[i] == "target" ? "" : vary[i] "=") f[col[vary[i]]]
        if (!(s in order)) { order[s] = ++ns; name[ns] = s }
        sum[s, f[col[X]] + 0] += f[col[Y]]; cnt[s, f[col[X]] + 0]++
        xs[f[col[X]] + 0] = 1
    }
    if (ns == 0) { print "no finished run in summary.csv" > "/dev/stderr"; exit 2 }
    nx = 0; for (v in xs) xv[++nx] = v + 0
    for (i = 2; i <= nx; i++) for (j = i; j > 1 && xv[j - 1] > xv[j]; j--) { t = xv[j]; xv[j] = xv[j - 1]; xv[j - 1] = t }
    for (k = 1; k <= ns; k++) {
        s = name[k]
        printf "%s%s", (k > 1 ? " " : ""), s > titles
        print "# " s > data
        for (i = 1; i <= nx; i++) if (cnt[s, xv[i]]) print xv[i], sum[s, xv[i]] / cnt[s, xv[i]] > data
        print "\n" > data
    }
}' "$csv"

case $x in block_size|queue_depth|threads) logx=1 ;; *) logx=0 ;; esac
gnuplot -e "datafile='$tmp/data'; outfile='$out'; titles='$(cat "$tmp/titles")'; xlabel='$x'; ylabel='$y'; logx=$logx" \
    "$here/summary-gnuplot.gp"
echo "wrote $out"
