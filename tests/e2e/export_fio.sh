#!/bin/sh
# SPDX-License-Identifier: MIT
# fio's JSON, JSON+ and logs from a study (docs/interop.md): a read-only cell of two repetitions and a
# mixed one, exported with `report --format fio-jsonplus`; fio's own fio_jsonplus_clat2csv turns
# the bins into its CSV, and the percentiles read off that CSV agree with iomatrix's own pooled
# ones (report --format json) within a bucket's width; the jobs carry fio 3.x's fields (iops,
# bw, clat_ns percentiles, job options). With --run, one run's job, whose percentiles are the run
# file's. A run file without histograms has no fio-jsonplus, with a clear message. A traced
# run's fio logs under fio-plot's names (`trace --format fio-plot`): one lat, bw and iops log per
# thread named <rw>-iodepth-<N>-numjobs-<N>_<type>.<job>.log, the iops logs adding up to the
# run's I/Os; fio_generate_plots draws their latency and IOPS, fio2gnuplot their bandwidth.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_consumer fio_jsonplus_clat2csv fio_generate_plots fio2gnuplot gnuplot python3
python3 -c "import six" 2>/dev/null ||
    skip_consumer "python3-six is not installed (fio_jsonplus_clat2csv imports it)"

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "fio-export";
targets = ( { label = "a"; path = "a.scratch"; size = "4M"; } );
workload = { engine = "null"; direct = false; pattern = "random"; block_size = "4K";
             read_pct = [ 100, 70 ]; queue_depth = 4; };
timing = { warmup = "0s"; duration = "300ms"; rest = "0s"; repeat = 2; };
trace = false;
CFG
"$IOMATRIX" run m.cfg -o r -q >run.txt 2>&1 || die "run: $(tail -n 5 run.txt)"
"$IOMATRIX" report r --format fio-jsonplus -o plus.json 2>err || die "fio-jsonplus: $(cat err)"
"$IOMATRIX" report r --format fio-json -o plain.json 2>err || die "fio-json: $(cat err)"
"$IOMATRIX" report r --format json -o iom.json 2>err || die "json: $(cat err)"
"$IOMATRIX" report r --format fio-json+ --run 1 -o run1.json 2>err || die "fio-json+ --run 1: $(cat err)"
fio_jsonplus_clat2csv plus.json plus.csv >c.txt 2>&1 || die "fio_jsonplus_clat2csv: $(cat c.txt)"
fio_jsonplus_clat2csv run1.json run1.csv >c.txt 2>&1 || die "fio_jsonplus_clat2csv --run: $(cat c.txt)"
python3 - <<'PY' || die "fio's CSV does not agree with iomatrix"
import csv, json
def csv_pct(path, col, p):
    """the first latency whose cumulative share reaches p %, as fio's CSV gives it"""
    rows = list(csv.reader(open(path)))
    head = [h.strip() for h in rows[0]]
    cum, ns = head.index(col + "_cumulative"), []
    tot = max(int(r[cum]) for r in rows[1:] if r[cum].strip())
    for r in rows[1:]:
        if r[cum].strip() and int(r[cum]) >= p / 100 * tot * (1 - 1e-12):
            return int(r[0]), tot
    raise AssertionError((path, p))
def close(a, b):   # within a bucket's width: 1/128 of the value, and 1 ns below 256 ns
    return abs(a - b) <= max(1, b / 128)

plus, plain, iom = (json.load(open(f)) for f in ("plus.json", "plain.json", "iom.json"))
assert len(plus["jobs"]) == 2 and len(plain["jobs"]) == 2, len(plus["jobs"])
for j in plain["jobs"]:
    assert "bins" not in j["read"]["clat_ns"]
for k in ("jobname", "job options", "read", "write", "trim", "job_runtime", "usr_cpu", "sys_cpu"):
    assert k in plus["jobs"][0], k
# the read-only cell: job 0 (first in the report), its read is all its I/O
j0 = plus["jobs"][0]
assert j0["job options"]["rw"] == "randread" and j0["job options"]["bs"] == "4096", j0["job options"]
assert j0["job options"]["iodepth"] == "4" and j0["job options"]["ioengine"] == "null"
assert plus["jobs"][1]["job options"]["rw"] == "randrw" and plus["jobs"][1]["job options"]["rwmixread"] == "70"
assert j0["iomatrix"]["pooled"] and j0["iomatrix"]["runs"] == [1, 2], j0["iomatrix"]
rd = j0["read"]
assert rd["total_ios"] > 1000 and rd["iops"] > 0 and rd["bw"] > 0 and j0["write"]["total_ios"] == 0
assert sum(rd["clat_ns"]["bins"].values()) == rd["total_ios"]
# iomatrix's pooled percentiles of the cell (all I/O = reads)
cell = [c for c in iom["cells"] if c["cell"]["read_pct"] in (100, "100")][0]
pct = cell["metrics"]["lat_p99_ns"]["values"]["a"]["percentiles_ns"]
assert cell["metrics"]["lat_p99_ns"]["values"]["a"]["pooled"] == "pooled over 2 runs"
for p in ("50", "90", "99", "99.9"):
    got, tot = csv_pct("plus_job0.csv", "read_clat_ns", float(p))
    assert tot == rd["total_ios"], (tot, rd["total_ios"])
    assert close(got, pct[p]), (p, got, pct[p])
    assert close(rd["clat_ns"]["percentile"]["%f" % float(p)], pct[p]), p
# one run: its own file's percentiles
run = json.load(open("r/runs/00001.json"))
for p in ("50", "99", "99.9"):
    got, _ = csv_pct("run1_job0.csv", "read_clat_ns", float(p))
    assert close(got, run["read"]["lat_ns"]["percentiles"][p]), (p, got)
print("fio CSV p99 %d ns, iomatrix %d ns" % (csv_pct("plus_job0.csv", "read_clat_ns", 99)[0], pct["99"]))
PY
# a run file from before histograms were kept: fio-json still, fio-jsonplus refused by name
python3 - <<'PY' || die "cannot strip the histograms"
import glob, json
for p in glob.glob("r/runs/*.json"):
    r = json.load(open(p))
    for d in ("read", "write", "total"):
        r[d]["lat_ns"].pop("hist", None)
    json.dump(r, open(p, "w"))
PY
"$IOMATRIX" report r --format fio-json -o old.json 2>err || die "fio-json of old files: $(cat err)"
if "$IOMATRIX" report r --format fio-jsonplus -o old+.json 2>err; then
    die "fio-jsonplus of files without histograms succeeded"
fi
grep -q "keep no histograms" err || die "fio-jsonplus refusal: $(cat err)"

# fio-plot's log names, from a traced run
cat >t.cfg <<'CFG'
iomatrix = 1;
name = "fio-plot";
targets = ( { label = "a"; path = "a.scratch"; size = "8M"; } );
workload = { engine = "psync"; direct = false; pattern = "random"; block_size = "256K";
             read_pct = 70; queue_depth = 1; threads = 2; };
timing = { warmup = "0s"; duration = "1200ms"; rest = "0s"; repeat = 1; };
CFG
"$IOMATRIX" run t.cfg -o rt -q >run.txt 2>&1 || die "traced run: $(tail -n 5 run.txt)"
mkdir fp
"$IOMATRIX" trace rt/traces/00001.trace.gz --format fio-plot --measured-only -o fp 2>err ||
    die "trace --format fio-plot: $(cat err)"
python3 - <<'PY' || die "fio-plot's logs"
import json, os, re
run = json.load(open("rt/runs/00001.json"))
names = sorted(os.listdir("fp"))
pat = re.compile(r"^(\w+)-iodepth-(\d+)-numjobs-(\d+)_(lat|bw|iops)\.(\d+)\.log$")
seen = set()
for n in names:
    m = pat.match(n)
    assert m, n
    assert m.group(1, 2, 3) == ("randrw", "1", "2"), n
    seen.add((m.group(4), m.group(5)))
assert seen == {(t, j) for t in ("lat", "bw", "iops") for j in ("1", "2")}, seen
ios = [0, 0]
for j in ("1", "2"):
    for line in open("fp/randrw-iodepth-1-numjobs-2_iops.%s.log" % j):
        f = [int(x) for x in line.split(",")]
        ios[f[2]] += f[1]
assert ios == [run["read"]["ios"], run["write"]["ios"]], (ios, run["read"]["ios"], run["write"]["ios"])
PY
( cd fp && fio_generate_plots iom >plots.txt 2>&1; [ -s iom-lat.svg ] && [ -s iom-iops.svg ] ) ||
    die "fio_generate_plots drew no latency or IOPS plot: $(tail -n 3 fp/plots.txt)"
( cd fp && fio2gnuplot -p '*_bw.*.log' -g >g.txt 2>&1;
  ls randrw-iodepth-1-numjobs-2_bw.1-2Draw.png >/dev/null 2>&1 ) ||
    die "fio2gnuplot drew no bandwidth graph: $(tail -n 3 fp/g.txt)"
exit $fail
