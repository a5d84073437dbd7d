#!/bin/sh
# SPDX-License-Identifier: MIT
# Traces end to end: a short run writes traces/00001.trace.gz; zcat opens it; `iomatrix trace`
# exports CSV (header row, one row per completed I/O = ios + warm-up + cool-down of the run) and
# fio latency logs that fio's own fio_generate_plots and fio2gnuplot plot; a truncated copy and a
# foreign file give exit 2 with a clear message. The trace's own checks are made for each engine
# that batches its I/O (io_uring, libaio).
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
command -v fio_generate_plots >/dev/null 2>&1 && command -v fio2gnuplot >/dev/null 2>&1 &&
    command -v gnuplot >/dev/null 2>&1 || { echo "fio or gnuplot not installed"; exit 77; }

for engine in libaio io_uring; do
cat >m.cfg <<CFG
iomatrix = 1;
name = "trace";
targets = ( { label = "a"; path = "a.scratch"; size = "16M"; } );
workload = { engine = "$engine"; direct = false; pattern = "random"; block_size = "4K";
             read_pct = 70; queue_depth = 8; threads = 2; };
timing = { warmup = "50ms"; duration = "200ms"; rest = "0s"; repeat = 1; };
CFG
"$IOMATRIX" run m.cfg -o out-$engine >run.txt 2>&1 || die "$engine: run: $(cat run.txt)"   # LEAD: run's options
grep -q "bytes per I/O" run.txt || die "$engine: the run summary does not print bytes per I/O"
tr=out-$engine/traces/00001.trace.gz
[ -s "$tr" ] || die "$engine: no $tr"
[ "$(zcat "$tr" | head -c 8)" = IOMTRACE ] || die "$engine: zcat does not open the trace"
# the whole gzip member checks out: the trailer's CRC-32 and length, which the writer joins from
# its blocks' CRCs, are those of the decompressed stream
gzip -t "$tr" 2>err || die "$engine: gzip -t: $(cat err)"

"$IOMATRIX" trace "$tr" --format csv -o t-$engine.csv 2>err || die "$engine: trace --format csv: $(cat err)"
[ "$(head -n 1 t-$engine.csv)" = "time_ns,latency_ns,op,offset,bytes,thread" ] || die "$engine: csv header"
rows=$(($(wc -l <t-$engine.csv) - 1))
# Every completed I/O is in the trace (measured, warm-up and cool-down), unless the writer fell
# behind: then the record was dropped and counted, never lost silently.
counts=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]));
t=r["trace"]; print(t["records"], t["dropped"], r["total"]["ios"] + r["warmup_ios"] + r["cooldown_ios"])' out-$engine/runs/00001.json)
set -- $counts
[ "$rows" -eq "$1" ] || die "$engine: csv has $rows rows, the trace says $1 records"
[ $(($1 + $2)) -eq "$3" ] || die "$engine: records $1 + dropped $2 != the run's $3 I/Os"
# The measured window's records give back the run's own percentiles, within the histogram's
# stated error (bucket midpoints: 1/256 relative; exact below 256 ns), when nothing was dropped.
"$IOMATRIX" trace "$tr" --measured-only -o m-$engine.csv 2>err || die "$engine: trace --measured-only: $(cat err)"
python3 - out-$engine/runs/00001.json m-$engine.csv <<'PY' || die "$engine: percentiles from the trace differ from the run's"
import csv, json, math, sys
r = json.load(open(sys.argv[1]))
if r["trace"]["dropped"]:
    sys.exit(0)  # a gap in the trace: nothing to compare exactly
lat = sorted(int(row["latency_ns"]) for row in csv.DictReader(open(sys.argv[2])))
assert len(lat) == r["total"]["ios"], (len(lat), r["total"]["ios"])
for p, want in r["total"]["lat_ns"]["percentiles"].items():
    got = lat[max(1, math.ceil(float(p) / 100 * len(lat) - 1e-9)) - 1]
    tol = 0 if got < 256 else got / 256 + 1
    assert abs(got - want) <= tol, (p, got, want)
assert lat[0] == r["total"]["lat_ns"]["min"] and lat[-1] == r["total"]["lat_ns"]["max"]
PY

done
# io_uring's trace (the last) from here on

mkdir fio
( cd fio && "$IOMATRIX" trace "../$tr" --format fio ) 2>err || die "trace --format fio: $(cat err)"
[ -s fio/00001_lat.1.log ] && [ -s fio/00001_lat.2.log ] || die "no fio logs: $(ls fio)"
head -n 1 fio/00001_lat.1.log | grep -Eq '^[0-9]+, [0-9]+, [01], 4096, [0-9]+, 0$' ||
    die "fio log line: $(head -n 1 fio/00001_lat.1.log)"
( cd fio && fio_generate_plots iom >plots.txt 2>&1; [ -s iom-lat.svg ] ) ||
    die "fio_generate_plots drew no latency plot"
( cd fio && fio2gnuplot -p '*_lat.*.log' -g >g.txt 2>&1; ls 00001_lat.1-2Draw.png >/dev/null ) ||
    die "fio2gnuplot drew nothing: $(tail -n 3 fio/g.txt)"

size=$(wc -c <"$tr")
# cut 64 bytes short (the end record, the gzip trailer and the last block's tail): the blocks
# before decode. Half the file was too little on a busy machine, where the 200 ms run made so
# few I/Os that each thread's records were one block at close, the first past the middle.
head -c $((size - 64)) "$tr" >cut.trace.gz
"$IOMATRIX" trace cut.trace.gz -o cut.csv 2>err; rc=$?
[ "$rc" -eq 2 ] || die "truncated trace: exit $rc"
grep -q "^iomatrix: cut.trace.gz: truncated after [0-9]* records (last complete block at byte [0-9]*)$" err ||
    die "truncated message: $(cat err)"
[ "$(($(wc -l <cut.csv) - 1))" -gt 0 ] || die "nothing decoded from the intact blocks before the cut"

echo "not a trace" >x.txt
"$IOMATRIX" trace x.txt 2>err; rc=$?
[ "$rc" -eq 2 ] && grep -q "x.txt: not an iomatrix trace" err || die "foreign file: exit $rc, $(cat err)"
exit $fail
