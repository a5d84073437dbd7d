#!/bin/sh
# SPDX-License-Identifier: MIT
# The demo, as `make demo` runs it: matrices/quick.cfg from a fresh directory, no root needed.
# It must finish, print the winners table, and leave a complete results directory: the matrix as
# run, study.json, one JSON per run, summary.csv with a header and one row per run, traces.
# (beside another test: its 60 s bound is the quick start's promise, far above the 20-35 s it
# takes so)
# e2e: parallel slow
. "$TOP/tests/e2e/lib.sh"

start=$(date +%s)
"$IOMATRIX" run "$TOP/matrices/quick.cfg" -o out >run.txt 2>err.txt
rc=$?
secs=$(($(date +%s) - start))
[ "$rc" -eq 0 ] || die "run exited $rc: $(cat err.txt)"
echo "demo took ${secs}s"
[ "$secs" -lt 60 ] || die "the demo took ${secs}s"
grep -q "^cells won\|verdict over" run.txt || die "no winners verdict in the output"
grep -q "IOPS" run.txt || die "no IOPS column"
# a busy machine can stall a run by itself (no I/O for a second, or a window stretched): it is
# left out and counted as such, and its figures are not judged
stalled=$(python3 -c 'import glob, json; print(sum(1 for f in glob.glob("out/runs/*.json") if json.load(open(f))["stalled"]))') ||
    die "cannot read the run files"
[ "$stalled" -eq 0 ] || figure_or_die "$stalled run(s) stalled: $(grep -h 'stalled' run.txt err.txt | head -n 3)"
if [ "$stalled" -eq 0 ]; then
    grep -q "16 runs ok, 0 failed; results in out" run.txt || die "summary line: $(tail -n 1 run.txt)"
else
    grep -q "$((16 - stalled)) runs ok, $stalled left out (stalled), 0 failed; results in out" run.txt ||
        die "summary line: $(tail -n 1 run.txt)"
fi

cmp -s "$TOP/matrices/quick.cfg" out/matrix.cfg || die "matrix.cfg is not the matrix as run"
[ "$(ls out/runs | wc -l)" -eq 16 ] || die "$(ls out/runs | wc -l) run files, want 16"
[ "$(ls out/traces | wc -l)" -eq 16 ] || die "$(ls out/traces | wc -l) traces, want 16"
[ "$(wc -l <out/summary.csv)" -eq 17 ] || die "summary.csv has $(wc -l <out/summary.csv) lines"
head -n 1 out/summary.csv | grep -q "status,iops,mb_s,read_iops,write_iops,lat_mean_us,lat_p99_us" ||
    die "summary.csv header: $(head -n 1 out/summary.csv)"
python3 - out <<'PY' || die "results do not hold what docs/results.md promises"
import json, os, sys
d = sys.argv[1]
s = json.load(open(os.path.join(d, "study.json")))
for k in ("tool_version", "plan_hash", "host", "kernel", "targets"):
    assert s.get(k), k
for name in sorted(os.listdir(os.path.join(d, "runs"))):
    r = json.load(open(os.path.join(d, "runs", name)))
    assert r["status"] == "ok", (name, r.get("error"))
    t = r["total"]
    assert t["ios"] == r["read"]["ios"] + r["write"]["ios"], name
    assert r["stalled"] or t["iops"] > 0, name
    assert t["ios"] == 0 or t["lat_ns"]["min"] <= t["lat_ns"]["mean"] <= t["lat_ns"]["max"], name
    p = t["lat_ns"]["percentiles"]
    vals = [p[k] for k in sorted(p, key=float)]
    assert vals == sorted(vals), name
    assert r["stalled"] or r["cpu"]["us_per_io"] > 0, name
    assert r["intervals"]["read_ios"] is not None, name
    assert r["trace"]["records"] == t["ios"] + r["warmup_ios"] + r["cooldown_ios"], name
PY
"$IOMATRIX" report out >report.txt 2>&1 || die "report: $(cat report.txt)"
"$IOMATRIX" report out --run 1 >run1.txt 2>&1 || die "report --run 1: $(cat run1.txt)"
grep -Eq "^CPU +\| +Usage +\| +User +\| +Kernel +\| +Idle" run1.txt || die "DiskSpd-style CPU table missing"
grep -Eq "^ *%-ile +\| +Read \(ms\) +\| +Write \(ms\) +\| +Total \(ms\)" run1.txt || die "percentile table missing"
exit $fail
