#!/bin/sh
# SPDX-License-Identifier: MIT
# The single-host features on 3 ranks (docs/hosts.md, "Every key on every rank"), two small
# studies, scratch files per rank through ${rank}:
#   1. rate_scope = "total": an access spec of two lines on a target of two paths with
#      fsync_every and trim_pct; rate_iops "max", "50%" and "3000"; think_time and burst;
#      verify = true;
#   2. rate_scope = "rank" (the default): rate_iops 1000 with warmup = "steady" and an
#      adaptive repeat (repeat 2, repeat_max 3).
# In every run the aggregate equals the sum of its three host rows exactly — I/Os and bytes,
# per line, per path, flushes, trims, late I/Os, the offered load, the verified sectors — and
# its percentiles (the total's, each line's, a paced run's response time) are within 1 % of
# those of the union of the three ranks' traces; a paced run's host rows keep their response
# histograms, which hold their rank's trace's I/Os and merge into the aggregate's. A share of
# "max" is of the aggregate max, split over the ranks; "3000" with rate_scope = "total" is 1000
# per rank; 1000 with "rank" is 1000 on each.
# Skips (77) when mpirun or iomatrix-mpi is missing.
# e2e: parallel slow
. "$TOP/tests/e2e/lib.sh"
need_mpi
need_cmd python3

cat >one.cfg <<CFG
iomatrix = 1;
name = "twins";
rate_scope = "total";
access_specs = { mix = ( { share = 50; block_size = "4K"; },
                         { share = 50; block_size = "16K"; read_pct = 0; random_pct = 0; } ); };
targets = ( { label = "p"; paths = [ "$WORK/a\${rank}.scratch", "$WORK/b\${rank}.scratch" ];
              size = "8M"; access = "mix"; fsync_every = 8; trim_pct = 10; threads = 2; },
            { label = "r"; path = "$WORK/r\${rank}.scratch"; size = "8M";
              rate_iops = [ "max", "50%", "3000" ]; },
            { label = "t"; path = "$WORK/t\${rank}.scratch"; size = "8M"; think_time = "1ms";
              burst = 4; },
            { label = "v"; path = "$WORK/v\${rank}.scratch"; size = "8M"; verify = true;
              read_pct = 50; } );
workload = { engine = "io_uring"; direct = false; block_size = "4K"; queue_depth = 2; };
timing = { warmup = "50ms"; duration = "250ms"; rest = "0s"; repeat = 1; };
CFG
cat >two.cfg <<CFG
iomatrix = 1;
name = "twins-steady";
targets = ( { label = "s"; path = "$WORK/s\${rank}.scratch"; size = "8M"; } );
workload = { engine = "io_uring"; direct = false; block_size = "4K"; queue_depth = 2;
             rate_iops = 1000; };
timing = { warmup = "steady"; steady = "iops 50% 2s"; warmup_max = "2s";
           duration = "200ms"; rest = "0s"; repeat = 2; repeat_max = 3; until = "ci 50%"; };
CFG

mpi -np 3 "$MPI_BIN" run one.cfg -o out1 -q >run1.txt 2>&1 || die "mpirun run one.cfg: $(tail -n 20 run1.txt)"
mpi -np 3 "$MPI_BIN" run two.cfg -o out2 -q >run2.txt 2>&1 || die "mpirun run two.cfg: $(tail -n 20 run2.txt)"
for d in out1 out2; do
    for f in "$d"/traces/*.r[0-2].trace.gz; do
        "$IOMATRIX" trace "$f" --measured-only -o "${f%.trace.gz}.csv" 2>err || die "trace $f: $(cat err)"
    done
done

python3 - <<'PY' || die "an aggregate is not the sum of its host rows, or its percentiles not the traces'"
import csv, glob, json, math, os

def pct(v, p):
    """the value of rank ceil(p/100 n) of v sorted, as iomatrix's histogram takes it"""
    v = sorted(v)
    return v[max(1, math.ceil(p / 100.0 * len(v) - 1e-9)) - 1]

def near(a, b, what):
    assert abs(a - b) <= 0.01 * b + 1, "%s: %s, the traces' union %s" % (what, a, b)

def same(a, b, what):
    assert a == b, "%s: the aggregate's %s, the rows' sum %s" % (what, a, b)

def check(d, i):
    r = json.load(open("%s/runs/%05d.json" % (d, i)))
    assert r["status"] == "ok", (d, i, r.get("error"))
    rows = r["hosts"]
    assert [h["rank"] for h in rows] == [0, 1, 2], rows
    same(r["total"]["ios"], sum(h["ios"] for h in rows), "ios")
    same(r["total"]["bytes"], sum(h["bytes"] for h in rows), "bytes")
    same(r["read"]["ios"], sum(h["read_ios"] for h in rows), "read ios")
    same(r["write"]["ios"], sum(h["write_ios"] for h in rows), "write ios")
    recs = []
    for k in range(3):
        recs += list(csv.DictReader(open("%s/traces/%05d.r%d.csv" % (d, i, k))))
    lat = [int(x["latency_ns"]) for x in recs]
    assert len(lat) == r["total"]["ios"], (len(lat), r["total"]["ios"])
    for p in ("50", "99"):
        near(r["total"]["lat_ns"]["percentiles"][p], pct(lat, float(p)), "total p" + p)
    said = ["%s ios %d (%s)" % (r["cell"].get("target"), r["total"]["ios"],
                                "+".join(str(h["ios"]) for h in rows))]
    if "access" in r:
        lines = r["access"]["lines"]
        same(sum(l["total"]["ios"] for l in lines), r["total"]["ios"], "lines' ios")
        for n, l in enumerate(lines):
            for dr in ("read", "write", "total"):
                for f in ("ios", "bytes"):
                    same(l[dr][f], sum(h["access"]["lines"][n][dr][f] for h in rows),
                         "line %d %s %s" % (n, dr, f))
            mine = [int(x["latency_ns"]) for x in recs if int(x["bytes"]) == l["block_size"]]
            assert len(mine) == l["total"]["ios"], (n, len(mine), l["total"]["ios"])
            near(l["total"]["lat_ns"]["percentiles"]["99"], pct(mine, 99), "line %d p99" % n)
        said.append("lines " + "/".join(str(l["total"]["ios"]) for l in lines))
    if "paths" in r:
        for n, pa in enumerate(r["paths"]):
            for dr in ("read", "write", "total"):
                same(pa[dr]["ios"], sum(h["paths"][n][dr]["ios"] for h in rows),
                     "path %d %s ios" % (n, dr))
            for h in rows: # each row names its own rank's file
                assert h["paths"][n]["path"].endswith("%s%d.scratch" % ("ab"[n], h["rank"])), h["paths"]
        said.append("paths " + "/".join(str(p["total"]["ios"]) for p in r["paths"]))
    if r.get("flush"):
        for x in ("flush", "trim"):
            for f in ("ios", "bytes"):
                same(r[x][f], sum(h[x][f] for h in rows), "%s %s" % (x, f))
            assert r[x]["ios"] > 0, (x, r[x])
        said.append("flushes %d trims %d" % (r["flush"]["ios"], r["trim"]["ios"]))
    if r.get("load"):
        ld = r["load"]
        same(ld["late_ios"], sum(h["load"]["late_ios"] for h in rows), "late ios")
        assert abs(ld["offered_iops"] - sum(h["load"]["offered_iops"] for h in rows)) < 1e-6, ld
        assert ld["max_lag_s"] == max(h["load"]["max_lag_s"] for h in rows), ld
        ach = r["total"]["ios"] / r["elapsed_s"]
        assert abs(ld["achieved_iops"] - ach) <= 1e-6 * ach, (ld["achieved_iops"], ach)
        resp = [int(x["response_ns"]) for x in recs]
        for p in ("50", "99"):
            near(ld["response_ns"]["total"]["percentiles"][p], pct(resp, float(p)), "response p" + p)
        # each row keeps its rank's response histograms: its trace's I/Os, and merged bucket
        # by bucket they are the aggregate's
        for dr in ("read", "write", "total"):
            merged = {}
            for k, h in enumerate(rows):
                hh = h["load"]["response_ns"][dr]["hist"]
                if dr == "total":
                    mine = list(csv.DictReader(open("%s/traces/%05d.r%d.csv" % (d, i, k))))
                    assert hh["count"] == len(mine), (k, hh["count"], len(mine))
                for lo, n in zip(hh["bins"][::2], hh["bins"][1::2]):
                    merged[lo] = merged.get(lo, 0) + n
            ab = ld["response_ns"][dr]["hist"]["bins"]
            assert dict(zip(ab[::2], ab[1::2])) == merged, "response %s: the rows' bins merged are not the aggregate's" % dr
        said.append("offered %.0f (%s) late %d" % (ld["offered_iops"], "+".join(
            "%.0f" % h["load"]["offered_iops"] for h in rows), ld["late_ios"]))
    if r.get("verify"):
        for f in ("sectors_written", "sectors_checked", "sectors_unwritten", "mismatches"):
            same(r["verify"][f], sum(h["verify"][f] for h in rows), "verify " + f)
        assert r["verify"]["sectors_written"] > 0 and r["verify"]["mismatches"] == 0, r["verify"]
        said.append("verified %d sectors written, %d checked" % (r["verify"]["sectors_written"],
                                                                  r["verify"]["sectors_checked"]))
    print(d, i, ", ".join(said))
    return r

one = {i: check("out1", i) for i in range(1, 7)}
assert one[6].get("verify"), one[6]
# the max, 50 % of the aggregate max split over 3 ranks, 3000 in total split over them
mx, half, three = one[2], one[3], one[4]
assert mx["cell"]["rate_iops"] == "max" and not mx.get("load"), mx["cell"]
want = 0.5 * mx["total"]["iops"] / 3
for h in half["hosts"]:
    assert abs(h["load"]["offered_iops"] - want) <= 1, (h["load"]["offered_iops"], want)
assert [h["load"]["offered_iops"] for h in three["hosts"]] == [1000] * 3, three["hosts"]
assert one[5]["cell"]["think_time"] == 1000000 and one[5]["cell"]["burst"] == 4, one[5]["cell"]
two = [check("out2", int(os.path.basename(f)[:5])) for f in sorted(glob.glob("out2/runs/*.json"))]
assert 2 <= len(two) <= 3, len(two)
for r in two: # rate_scope "rank": each rank offers the rate
    assert [h["load"]["offered_iops"] for h in r["hosts"]] == [1000] * 3, r["hosts"]
    assert r["load"]["offered_iops"] == 3000, r["load"]
    assert r["steady"]["criterion"] == "iops 50% 2s", r["steady"]
PY
exit $fail
