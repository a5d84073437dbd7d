# SPDX-License-Identifier: MIT
# summary-gnuplot.gp: plots a figure of iomatrix runs against one dimension, one line per
# series (a target, and the values of the other dimensions that vary). Called by
# contrib/summary-gnuplot.sh, which averages summary.csv over the repetitions into `datafile`:
# one gnuplot data block per series (separated by two blank lines), columns x and y.
#
# Variables (gnuplot -e): datafile, outfile (.svg or .png), titles (one word per series),
# xlabel, ylabel, logx (1: a doubling axis such as block_size or queue_depth).

if (!exists("outfile")) outfile = "summary.svg"
if (!exists("logx")) logx = 0
if (outfile[strlen(outfile)-3:] eq ".png") {
    set terminal pngcairo size 1000,600 noenhanced
} else {
    set terminal svg size 1000,600 dynamic noenhanced
}
set output outfile
set datafile separator whitespace
set key outside right top
set grid
set xlabel xlabel
set ylabel ylabel
if (logx) { set logscale x 2 }
nseries = words(titles)
plot for [i = 0:nseries - 1] datafile index i using 1:2 with linespoints pointtype 7 \
    title word(titles, i + 1)
