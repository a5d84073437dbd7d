#!/bin/sh
# SPDX-License-Identifier: MIT
# Access specifications, end to end: a 50/50 mix of a 4K line and a 64K line shows
# 45-55 % of each size in the trace; the 64K line, read_pct = 0, shows only writes; the run's
# JSON has a figure per line and the lines' counts add up to the run's totals; the plan names
# the spec; `report --run` shows each line's figures; matrices/example-mix.cfg and
# iometer-default.cfg check.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "mix";
access_specs = {
  half = ( { share = 50; block_size = "4K"; },
           { share = 50; block_size = "64K"; read_pct = 0; random_pct = 0; } );
};
targets = ( { label = "a"; path = "a.scratch"; size = "32M"; } );
workload = { engine = "io_uring"; direct = false; queue_depth = 4; threads = 2;
             access = "half"; };
# a second, so that even a busy machine under ASan gives the 1000 I/Os the shares need (an
# access spec's run is duration-bound; 300 ms gave 850 there)
timing = { warmup = "0s"; duration = "1s"; rest = "0s"; repeat = 1; };
CFG
"$IOMATRIX" plan m.cfg --format tsv >plan.tsv 2>err || die "plan: $(cat err)"
grep -q "	access	" plan.tsv && grep -q "	half	" plan.tsv || die "the plan does not name the spec: $(cat plan.tsv)"
"$IOMATRIX" run m.cfg -o out >run.txt 2>&1 || die "run: $(cat run.txt)"
"$IOMATRIX" trace out/traces/00001.trace.gz --format csv -o t.csv 2>err || die "trace: $(cat err)"
python3 - t.csv out/runs/00001.json <<'PY' || die "the mix is not what the spec says"
import collections, csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = collections.Counter((r["bytes"], r["op"]) for r in rows)
n = len(rows)
small = by[("4096", "read")]
large = by[("65536", "write")]
print("trace: %d I/Os, %.1f %% 4K reads, %.1f %% 64K writes, other %s" %
      (n, 100.0 * small / n, 100.0 * large / n,
       {k: v for k, v in by.items() if k not in (("4096", "read"), ("65536", "write"))}))
assert n >= 1000, n
assert small + large == n, by                  # the 64K line only writes, the 4K line only reads
assert 45 <= 100.0 * small / n <= 55, small
assert 45 <= 100.0 * large / n <= 55, large
r = json.load(open(sys.argv[2]))
a = r["access"]
assert a["name"] == "half" and len(a["lines"]) == 2, a
for d in ("read", "write", "total"):
    for f in ("ios", "bytes"):
        s = sum(l[d][f] for l in a["lines"])
        assert s == r[d][f], (d, f, s, r[d][f])
l0, l1 = a["lines"]
assert (l0["block_size"], l0["read_pct"], l1["block_size"], l1["read_pct"]) == (4096, 100, 65536, 0), a
assert l1["read"]["ios"] == 0 and l1["write"]["ios"] > 0
assert l0["total"]["lat_ns"]["percentiles"]["99"] > 0 and l0["total"]["iops"] > 0
print("json: lines %d + %d = %d I/Os" % (l0["total"]["ios"], l1["total"]["ios"], r["total"]["ios"]))
PY
"$IOMATRIX" report out >report.txt 2>&1 || die "report: $(cat report.txt)"
# the run's report reads the lines back: one row per line, its I/Os those of the JSON
"$IOMATRIX" report out --run 1 >run1.txt 2>&1 || die "report --run: $(cat run1.txt)"
grep -q "^access spec 'half', line by line" run1.txt || die "no lines in the run's report: $(tail -n 6 run1.txt)"
python3 - run1.txt out/runs/00001.json <<'PY' || die "the run's report does not show the lines' I/Os"
import json, re, sys
rows = [l.split() for l in open(sys.argv[1]) if re.match(r"^ +[12] +50% ", l)]
lines = json.load(open(sys.argv[2]))["access"]["lines"]
assert len(rows) == 2, rows
assert [int(r[5]) for r in rows] == [l["total"]["ios"] for l in lines], (rows, lines)
assert rows[0][2] == "4K" and rows[1][2] == "64K", rows
PY
for f in example-mix iometer-default; do
    "$IOMATRIX" check "$TOP/matrices/$f.cfg" >out.txt 2>&1 || die "check $f: $(cat out.txt)"
done
exit $fail
