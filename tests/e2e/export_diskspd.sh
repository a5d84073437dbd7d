#!/bin/sh
# SPDX-License-Identifier: MIT
# DiskSpd's XML results (docs/interop.md): `iomatrix diskspd … -Rxml` prints the run as DiskSpd's
# -Rxml does, and `report --format diskspd-xml --run N` writes the same of a study's run. Both
# are checked against the schema DiskSpd's XmlResultParser writes: every element at its place
# (Results/System, Results/Profile/TimeSpans/TimeSpan/Targets/Target, Results/TimeSpan with
# TestTimeSeconds, ThreadCount, ProcCount, CpuUtilization/CPU and Average, Latency/Bucket with
# Percentile and Read/Write/TotalMilliseconds, Iops/Bucket's attributes, Thread/Id,
# Thread/Target's counts), no element name DiskSpd does not write, and the figures those
# readers take agree with the run file: the threads' ReadCount and WriteCount add up to its
# read and write I/Os, the 99th Percentile bucket is its p99, TestTimeSeconds its window.
# docs/results.md names every element and attribute the XML has, and has a row of what it
# carries and cannot for every export `report --help` lists.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

"$IOMATRIX" diskspd -c8M -d1 -b4K -r -w30 -t2 -o4 -L -Rxml --no-trace --output ds ds.dat \
    >ds.xml 2>ds.err || die "diskspd -Rxml: $(tail -n 3 ds.err)"
rm -f ds.dat
"$IOMATRIX" report ds --format diskspd-xml --run 1 -o r1.xml 2>err || die "report diskspd-xml: $(cat err)"
cmp -s ds.xml r1.xml || die "diskspd -Rxml and report --format diskspd-xml --run 1 differ"
if "$IOMATRIX" report ds --format diskspd-xml >/dev/null 2>err; then
    die "diskspd-xml without --run succeeded"
fi
grep -q "say which with --run N" err || die "diskspd-xml without --run: $(cat err)"
if "$IOMATRIX" diskspd -c1M -Rjson x.dat >/dev/null 2>err; then die "-Rjson accepted"; fi
grep -q "\-R takes text or xml" err || die "-Rjson: $(cat err)"

python3 - ds.xml ds/runs/00001.json <<'PY' || die "the XML is not DiskSpd's results schema"
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
run = json.load(open(sys.argv[2]))
# the element names XmlResultParser (and the profile and system it embeds) writes
known = set("""Results System ComputerName Tool Version VersionDate RunTime ProcessorTopology
Profile Progress ResultFormat Verbose TimeSpans TimeSpan CompletionRoutines MeasureLatency
CalculateIopsStdDev DisableAffinity Duration Warmup Cooldown ThreadCount RequestCount
IoBucketDuration RandSeed Targets Target Path BlockSize BaseFileOffset SequentialScan
RandomAccess TemporaryFile UseLargePages DisableOSCache WriteThrough Random StrideSize
ThreadStride MaxFileSize FileSize WriteRatio Throughput ThreadsPerFile IOPriority Weight
TestTimeSeconds ProcCount CpuUtilization CPU Socket Node Group Core EfficiencyClass Id
UsagePercent UserPercent KernelPercent IdlePercent Average Latency AverageReadMilliseconds
ReadLatencyStdev AverageWriteMilliseconds WriteLatencyStdev AverageTotalMilliseconds
LatencyStdev Bucket Percentile ReadMilliseconds WriteMilliseconds TotalMilliseconds Iops
ReadIopsStdDev WriteIopsStdDev IopsStdDev Thread BytesCount IOCount ReadBytes ReadCount
WriteBytes WriteCount AverageReadLatencyMilliseconds AverageWriteLatencyMilliseconds
AverageLatencyMilliseconds""".split())
unknown = {e.tag for e in root.iter()} - known
assert not unknown, unknown
assert root.tag == "Results"
for path in ("System/ComputerName", "Profile/TimeSpans/TimeSpan/Targets/Target/Path",
             "Profile/TimeSpans/TimeSpan/Targets/Target/BlockSize",
             "Profile/TimeSpans/TimeSpan/Duration", "TimeSpan/TestTimeSeconds",
             "TimeSpan/ThreadCount", "TimeSpan/ProcCount", "TimeSpan/CpuUtilization/CPU/UsagePercent",
             "TimeSpan/CpuUtilization/Average/UsagePercent", "TimeSpan/Latency/Bucket/Percentile",
             "TimeSpan/Latency/Bucket/TotalMilliseconds", "TimeSpan/Iops/IopsStdDev",
             "TimeSpan/Thread/Id", "TimeSpan/Thread/Target/ReadCount"):
    assert root.find(path) is not None, path
ts = root.find("TimeSpan")
lat = ts.find("Latency")
for a in ("ReadHistoBuckets", "WriteHistoBuckets", "TotalHistoBuckets"):
    assert int(lat.get(a)) > 0, a
for b in ts.find("Iops").findall("Bucket"):
    assert {"SampleMillisecond", "Read", "Write", "Total"} <= set(b.keys()), b.keys()
threads = ts.findall("Thread")
assert len(threads) == int(ts.findtext("ThreadCount")) == 2
for k, d in (("ReadCount", "read"), ("WriteCount", "write")):
    assert sum(int(t.findtext("Target/" + k)) for t in threads) == run[d]["ios"], k
assert sum(int(t.findtext("Target/ReadBytes")) for t in threads) == run["read"]["bytes"]
pcts = {b.findtext("Percentile"): b for b in lat.findall("Bucket")}
assert list(pcts)[:3] == ["0", "1", "2"] and "99.9" in pcts and "99.9999999" in pcts and "100" in pcts
assert len(pcts) == 1 + 99 + 7 + 1
p99 = float(pcts["99"].findtext("TotalMilliseconds"))
want = run["total"]["lat_ns"]["percentiles"]["99"] / 1e6
assert abs(p99 - want) <= 0.0005 + want / 128, (p99, want)
assert abs(float(pcts["100"].findtext("ReadMilliseconds")) - run["read"]["lat_ns"]["max"] / 1e6) < 0.0006
assert abs(float(ts.findtext("TestTimeSeconds")) - run["elapsed_s"]) < 0.006
assert root.findtext("Profile/TimeSpans/TimeSpan/Targets/Target/WriteRatio") == "30"
print("p99", p99, "ms; threads", len(threads))
PY

# docs/results.md tells the schema as the writer writes it: every element and attribute name of
# the XML in its DiskSpd section, and every export of `report --help` (and the live files and
# trace exports) a row of its "what each export carries, and what it cannot" table
"$IOMATRIX" report --help >help.txt 2>&1
python3 - ds.xml "$TOP/docs/results.md" help.txt <<'PY' || die "docs/results.md does not tell the DiskSpd XML or every export"
import re, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
doc = open(sys.argv[2]).read()
start = doc.index("### DiskSpd's XML results of one run")
mid = doc.index("### What each export carries, and what it cannot")
section, table = doc[start:mid], doc[mid:]
names = {e.tag for e in root.iter()} | {a for e in root.iter() for a in e.keys()}
missing = sorted(n for n in names if not re.search(r"\b%s\b" % n, section))
assert not missing, "not in results.md's DiskSpd XML section: %s" % missing
helptext = " ".join(open(sys.argv[3]).read().split())
fmts = re.search(r"--format FORMAT (.*?) -o, --output", helptext).group(1)
fmts = [f for f in re.split(r",\s*|\s+or\s+|\s+", fmts.replace("(default)", "")) if f]
exports = [f for f in fmts if f not in ("text", "md", "csv", "json", "html")]
assert exports, fmts
rows = [l for l in table.splitlines() if l.startswith("| `")]
for f in exports + ["--metrics", "--live", "trace --format fio"]:
    assert any(f in r.split("|")[1] for r in rows), "no row for %s in results.md's exports table" % f
print("results.md: %d names of the XML, exports %s" % (len(names), exports))
PY
exit $fail
