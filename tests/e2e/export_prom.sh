#!/bin/sh
# SPDX-License-Identifier: MIT
# Prometheus and the live files (docs/interop.md): `report --format openmetrics` of a study of
# two cells and two repetitions, and the metrics file a running sweep rewrites after every
# 1-second interval (--metrics) — both accepted by promtool check metrics, the latter read
# while the run goes on. The histogram's _bucket series are cumulative, end at +Inf with the
# pooled I/O count, and hold the p99 gauge in the bucket their counts put it in. The interval
# stream (--live, JSON lines and CSV) has one line per interval, adding up to the run files'.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_consumer promtool python3

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "prom";
targets = ( { label = "a"; path = "a.scratch"; size = "4M"; } );
workload = { engine = "null"; direct = false; pattern = "random"; block_size = [ "4K", "64K" ];
             read_pct = 70; queue_depth = 2; };
timing = { warmup = "0s"; duration = "1200ms"; rest = "0s"; repeat = 2; };
trace = false;
CFG
"$IOMATRIX" run m.cfg -o r -q --metrics live.prom --live live.jsonl >run.txt 2>&1 &
pid=$!
# the metrics file while the sweep runs: each copy whole, and promtool takes it
seen=0
for i in $(seq 1 100); do
    kill -0 $pid 2>/dev/null || break
    if [ -s live.prom ] && cp live.prom snap.prom && grep -q '^iomatrix_interval_iops{' snap.prom; then
        promtool check metrics <snap.prom >pc.txt 2>&1 || die "promtool refuses a live snapshot: $(cat pc.txt)"
        tail -n 1 snap.prom | grep -qx '# EOF' || die "a live snapshot is not whole"
        seen=$((seen + 1))
    fi
    sleep 0.2
done
wait $pid || die "run: $(tail -n 5 run.txt)"
[ "$seen" -ge 2 ] || die "the metrics file was read with an interval $seen times while the sweep ran"
promtool check metrics <live.prom >pc.txt 2>&1 || die "promtool refuses the last live file: $(cat pc.txt)"
grep -q '^iomatrix_runs_finished{study="prom"} 4$' live.prom || die "the live file does not say 4 runs finished"

"$IOMATRIX" report r --format openmetrics -o r.prom 2>err || die "report openmetrics: $(cat err)"
promtool check metrics <r.prom >pc.txt 2>&1 || die "promtool refuses the report: $(cat pc.txt)"
"$IOMATRIX" report r --format json -o r.json 2>err || die "report json: $(cat err)"
sed 's/duration = "1200ms"/duration = "300ms"/; s/repeat = 2/repeat = 1/' m.cfg >short.cfg
"$IOMATRIX" run short.cfg -o r2 -q --live live.csv >run2.txt 2>&1 || die "run --live x.csv: $(cat run2.txt)"

python3 - <<'PY' || die "the OpenMetrics histogram or the live stream"
import glob, json, re
text = open("r.prom").read()
assert text.endswith("# EOF\n")
lab = re.compile(r'^(\w+)\{(.*)\} (\S+)$')
buckets, counts, p99, reps = {}, {}, {}, {}
for line in text.splitlines():
    m = lab.match(line)
    if not m:
        continue
    name, labels, v = m.groups()
    bs = re.search(r'block_size="(\d+)"', labels).group(1)
    if name == "iomatrix_latency_seconds_bucket":
        le = re.search(r'le="([^"]+)"', labels).group(1)
        buckets.setdefault(bs, []).append((float("inf") if le == "+Inf" else float(le), int(v)))
    elif name == "iomatrix_latency_seconds_count":
        counts[bs] = int(v)
    elif name == "iomatrix_latency_p99_seconds":
        p99[bs] = float(v)
    elif name == "iomatrix_repetitions":
        reps[bs] = int(v)
assert set(buckets) == {"4096", "65536"}, buckets.keys()
runs = [json.load(open(p)) for p in sorted(glob.glob("r/runs/*.json"))]
# two repetitions a cell, less those a busy machine stalled (set aside as noise, not counted)
for bs, n in reps.items():
    mine = [r for r in runs if str(r["cell"]["block_size"]) == bs]
    assert n == 2 - sum(1 for r in mine if r["stalled"]), (bs, n, [r["stalled"] for r in mine])
for bs, b in buckets.items():
    les = [x[0] for x in b]
    assert les == sorted(les) and les[-1] == float("inf"), bs
    cum = [x[1] for x in b]
    assert cum == sorted(cum), (bs, "not cumulative")
    total = sum(r["total"]["ios"] for r in runs if str(r["cell"]["block_size"]) == bs)
    assert cum[-1] == counts[bs] == total, (bs, cum[-1], counts[bs], total)
    # the p99 gauge lies in the bucket where the cumulative count passes 99 %
    rank = 0.99 * total
    k = next(i for i, c in enumerate(cum) if c >= rank)
    lo = les[k - 1] if k else 0
    assert lo <= p99[bs] <= les[k] + 1e-9, (bs, lo, p99[bs], les[k])
# the stream: one line per interval of every run, in run order
lines = [json.loads(l) for l in open("live.jsonl")]
want = [(r["index"], i) for r in runs for i in range(len(r["intervals"]["read_ios"]))]
assert [(l["run"], l["interval"]) for l in lines] == want, ([(l["run"], l["interval"]) for l in lines], want)
for r in runs:
    mine = [l for l in lines if l["run"] == r["index"]]
    assert sum(l["read_ios"] for l in mine[:-1]) == sum(r["intervals"]["read_ios"][:-1]), r["index"]
    assert all(l["p99_ns"] >= l["p50_ns"] > 0 and l["max_ns"] >= l["p99_ns"] for l in mine), mine
    assert mine[0]["p99_ns"] == r["intervals"]["p99_ns"][0], (mine[0], r["intervals"]["p99_ns"][0])
# the CSV stream: its header, then a row per interval of each run
rows = open("live.csv").read().splitlines()
assert rows[0].startswith("run,repetition,cell,interval,end_s,"), rows[0]
assert len(rows) == 1 + 2 and rows[1].startswith("1,1,"), rows
print("bucket series per cell:", {bs: len(b) for bs, b in buckets.items()})
PY
exit $fail
