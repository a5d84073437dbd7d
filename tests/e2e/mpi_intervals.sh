#!/bin/sh
# SPDX-License-Identifier: MIT
# Latency over time on many hosts (docs/hosts.md): a run on 2 ranks keeps, per 1-second
# interval, the I/Os of both ranks summed and the p50, p99 and max of their I/Os together —
# read off the ranks' latency groups summed, never an average of the ranks' percentiles. The
# intervals add up to the aggregate's I/Os (the host rows' sum), each interval's latencies
# count every I/O of it, and the HTML draws the aggregate's latency over time. Each host row
# keeps its own histograms, and those of the rows merged are the aggregate's, bucket by bucket.
# Each interval's p99 is within a latency group's width (1/16 of the power of two below it;
# src/hist.h, docs/hosts.md) of the exact p99 of both ranks' I/Os that completed in that second,
# from their traces.
# Skips (77) when mpirun or iomatrix-mpi is missing.
. "$TOP/tests/e2e/lib.sh"
need_mpi
need_cmd python3

cat >iv.cfg <<CFG
iomatrix = 1;
name = "mpi-intervals";
targets = ( { label = "a"; path = "$WORK/s\${rank}.scratch"; size = "8M"; } );
workload = { engine = "psync"; direct = false; pattern = "random"; block_size = "4K";
             read_pct = 100; queue_depth = 1; threads = 1; };
timing = { warmup = "0s"; duration = "1200ms"; rest = "0s"; repeat = 1; };
trace = true;
CFG
mpi -np 2 "$MPI_BIN" run iv.cfg -o out -q >run.txt 2>&1 || die "mpirun run: $(tail -n 20 run.txt)"
for k in 0 1; do
    "$IOMATRIX" trace out/traces/00001.r$k.trace.gz --measured-only -o r$k.csv 2>err ||
        die "trace of rank $k: $(cat err)"
done
python3 - out/runs/00001.json r0.csv r1.csv <<'PY' || die "the intervals are not both ranks'"
import csv, json, math, sys
r = json.load(open(sys.argv[1]))
iv = r["intervals"]
assert len(r["hosts"]) == 2, r["hosts"]
hosts = sum(h["ios"] for h in r["hosts"])
assert sum(iv["read_ios"]) + sum(iv["write_ios"]) == r["total"]["ios"] == hosts, \
    (sum(iv["read_ios"]), r["total"]["ios"], hosts)
# each interval's latencies are of all its I/Os: both ranks'
# an interval's latency groups are read a moment after its counts (the workers go on
# completing): an I/O at the boundary may fall into the next interval of one of the two, never
# out of the run. [251314, 389906] against [251313, 389907] was seen under ASan.
ios = [a + b for a, b in zip(iv["read_ios"], iv["write_ios"])]
assert sum(iv["lat_ios"]) == sum(ios), (iv["lat_ios"], ios)
assert all(abs(l - n) <= 2 * len(r["hosts"]) for l, n in zip(iv["lat_ios"], ios)), (iv["lat_ios"], ios)
for p50, p99, mx in zip(iv["p50_ns"], iv["p99_ns"], iv["max_ns"]):
    assert 0 < p50 <= p99 <= mx, (p50, p99, mx)
# no interval's max above the run's, within the coarse groups' width
assert max(iv["max_ns"]) <= r["total"]["lat_ns"]["max"] * (1 + 1 / 16.0), (iv["max_ns"], r["total"]["lat_ns"]["max"])
# each host row's histograms: its own I/Os, and merged they are the aggregate's
merged = {}
for h in r["hosts"]:
    t = h["hist"]["total"]
    assert t["count"] == h["ios"], (t["count"], h["ios"])
    b = t["bins"]
    for lo, n in zip(b[0::2], b[1::2]):
        merged[lo] = merged.get(lo, 0) + n
agg = r["total"]["lat_ns"]["hist"]["bins"]
assert merged == dict(zip(agg[0::2], agg[1::2])), "the hosts' histograms merged are not the aggregate's"
# each interval's p99 against the exact p99 of both ranks' I/Os completed in that second (from
# the traces; a rank's second k counted from its first measured I/O): within one latency group,
# 1/16 of the power of two below it (the interval's value is its group's middle bucket)
done = {}
for f in sys.argv[2:]:
    recs = [(int(x["time_ns"]), int(x["latency_ns"])) for x in csv.DictReader(open(f))]
    t0 = min(t for t, _ in recs)
    for t, lat in recs:
        done.setdefault(min((t + lat - t0) // 10**9, len(iv["p99_ns"]) - 1), []).append(lat)
assert sum(len(v) for v in done.values()) == r["total"]["ios"], (len(done), r["total"]["ios"])
for k, p99 in enumerate(iv["p99_ns"]):
    lat = sorted(done.get(k, []))
    if len(lat) < 1000: # a sliver of a second at the window's end: too few for a p99
        continue
    exact = lat[max(1, math.ceil(0.99 * len(lat) - 1e-9)) - 1]
    width = 2 ** int(math.log2(exact)) / 16.0 if exact >= 256 else 8
    assert abs(p99 - exact) <= width, \
        "interval %d: p99 %d, both ranks' I/Os' %d (%d I/Os): beyond a group's width %d" % (
            k, p99, exact, len(lat), width)
    print("interval %d: p99 %d ns, the traces' %d ns (%d I/Os, a group %d ns wide)" % (
        k, p99, exact, len(lat), width))
print("intervals", iv["read_ios"], "p99", iv["p99_ns"])
PY
"$IOMATRIX" report out --format html -o r.html 2>err || die "report html: $(cat err)"
grep -q 'id="chart-lat-time"' r.html || die "no latency-over-time chart for the run of many hosts"
exit $fail
