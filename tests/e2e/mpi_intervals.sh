#!/bin/sh
# SPDX-License-Identifier: MIT
# Latency over time on many hosts (docs/hosts.md): a run on 2 ranks keeps, per 1-second
# interval, the I/Os of both ranks summed and the p50, p99 and max of their I/Os together —
# read off the ranks' latency groups summed, never an average of the ranks' percentiles. The
# intervals add up to the aggregate's I/Os (the host rows' sum), each interval's latencies
# count every I/O of it, and the HTML draws the aggregate's latency over time. Each host row
# keeps its own histograms, and those of the rows merged are the aggregate's, bucket by bucket.
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
trace = false;
CFG
mpi -np 2 "$MPI_BIN" run iv.cfg -o out -q >run.txt 2>&1 || die "mpirun run: $(tail -n 20 run.txt)"
python3 - out/runs/00001.json <<'PY' || die "the intervals are not both ranks'"
import json, sys
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
print("intervals", iv["read_ios"], "p99", iv["p99_ns"])
PY
"$IOMATRIX" report out --format html -o r.html 2>err || die "report html: $(cat err)"
grep -q 'id="chart-lat-time"' r.html || die "no latency-over-time chart for the run of many hosts"
exit $fail
