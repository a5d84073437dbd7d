#!/bin/sh
# Issue 17, point 1: open-loop runs (rate_iops, rate_mb_s, arrivals; docs/load.md) on a scratch
# file (256K reads from the page cache, QD4). rate_iops = 2000 achieves 2000 ± 1 % over the window, its I/Os due 500 µs apart in the
# trace (coefficient of variation of the gaps of the due times below 0.1; the submissions'
# median gap 500 µs); Poisson arrivals have a CV of the gaps between 0.8 and 1.2; well below capacity, response time ≈ service time (p50 within
# 10 %, at least 10 µs); rate_mb_s paces in bytes; an overloaded run (psync QD1 at 5M IOPS) is saturated, says
# so with why ("saturated: 35.6K I/Os late, up to 18.0ms behind"), counts late I/Os and its
# response-time median is at least 10× its service-time median; `report --run 1` of it gives
# the offered load and the response time, the report's load note the service time;
# at 50K IOPS (null engine) the pacer issues in ticks: held, several I/Os per submission.
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "load";
targets = ( { label = "a"; path = "a.scratch"; size = "16M"; } );
workload = { engine = "io_uring"; direct = false; block_size = "256K"; read_pct = 100; queue_depth = 4;
             rate_iops = 2000; arrivals = [ "fixed", "poisson" ]; };
timing = { warmup = "200ms"; duration = "2s"; rest = "0s"; repeat = 1; };
CFG
"$IOMATRIX" run m.cfg -o out >run.txt 2>&1 || die "run: $(cat run.txt)"
grep -Eq "run 1 offered 2.00K IOPS, achieved (1.99K|2.00K|2.01K): (held|saturated)" run.txt ||
    die "no load line for run 1: $(cat run.txt)"
[ "$(zcat out/traces/00001.trace.gz | head -c 12 | tail -c 4 | od -An -tu4 | tr -d ' ')" = 2 ] ||
    die "the paced run's trace is not version 2"
for i in 1 2; do
    "$IOMATRIX" trace out/traces/0000$i.trace.gz --measured-only -o t$i.csv 2>err ||
        die "trace $i: $(cat err)"
done
python3 - <<'PY' || die "paced runs"
import csv, json, statistics as st
def gaps(path, col="time_ns"):
    t = sorted(int(r[col]) for r in csv.DictReader(open(path)))
    g = [b - a for a, b in zip(t, t[1:])]
    return g, st.mean(g), st.pstdev(g) / st.mean(g)
for i, arr in ((1, "fixed"), (2, "poisson")):
    r = json.load(open("out/runs/0000%d.json" % i))
    l = r["load"]
    assert l is not None and l["arrivals"] == arr, l
    assert l["offered_iops"] == 2000, l
    ach = r["total"]["iops"]
    # fixed: 2000 ± 1 %; poisson: a Poisson count over 2 s varies by ±1.6 % (1/sqrt(4000)) by
    # itself, so ± 5 %
    assert abs(ach - 2000) <= (20 if arr == "fixed" else 100), ("achieved", arr, ach)
    assert abs(l["achieved_iops"] - ach) < 1e-6 * ach, (l["achieved_iops"], ach)
    g, mean, cv = gaps("t%d.csv" % i)
    print("%s: achieved %.1f IOPS, mean gap %.1f us, CV %.3f, late %d, p50 response %d service %d"
          % (arr, ach, mean / 1e3, cv, l["late_ios"], l["response_ns"]["total"]["percentiles"]["50"],
             r["total"]["lat_ns"]["percentiles"]["50"]))
    tol = 0.02 if arr == "fixed" else 0.05
    assert abs(mean - 500e3) <= tol * 500e3, ("mean gap", arr, mean)
    # the schedule itself, from the trace's due times (version 2: lags)
    _, dmean, dcv = gaps("t%d.csv" % i, "due_ns")
    print("%s: due times %.1f us apart on average, CV %.4f" % (arr, dmean / 1e3, dcv))
    assert abs(dmean - 500e3) <= tol * 500e3, ("mean due gap", arr, dmean)
    assert (dcv < 0.01) if arr == "fixed" else (0.8 <= dcv <= 1.2), ("due CV", arr, dcv)
    if arr == "fixed":
        # The submissions as traced. A loaded machine (or ASan) wakes the worker late now and
        # then (the run counts those I/Os late; the next one is then early on the schedule's
        # grid), and one 50 ms stall among 2000 gaps alone makes their CV 2.2: so the
        # submissions' CV is asserted below 0.1 without the 10 % of gaps farthest from 500 µs,
        # with 80 % of all gaps within 50 µs of it and their median within 25 µs (the
        # schedule's own CV, due times, is asserted above).
        near = sum(1 for x in g if abs(x - 500e3) <= 50e3)
        trim = sorted(g, key=lambda x: abs(x - 500e3))[:int(len(g) * 0.9)]
        tcv = st.pstdev(trim) / st.mean(trim)
        print("fixed: %.1f %% of gaps within 50 us of 500 us, CV without the 10 %% farthest %.4f"
              % (100.0 * near / len(g), tcv))
        assert abs(st.median(g) - 500e3) <= 25e3, ("median submission gap", st.median(g))
        assert tcv < 0.1 and near >= 0.8 * len(g), ("submission gaps", tcv, near, len(g))
        resp = l["response_ns"]["total"]["percentiles"]["50"]
        serv = r["total"]["lat_ns"]["percentiles"]["50"]
        # Below capacity: response ≈ service. When the machine itself woke the worker late
        # for more than 5 % of the I/Os (a busy CI host), the lag is the machine's, not the
        # target's: printed, not asserted.
        # The bound: 10 % of the service time, but never less than 10 µs — the pacer's own
        # issue after the due time (a clock read, a queue, a system call) is a few µs, which
        # a sanitizer build (make asan) stretches past 10 % of a 38 µs read (+6.4 µs seen).
        if l["late_ios"] <= 0.05 * r["total"]["ios"]:
            assert resp >= serv and resp <= max(1.1 * serv, serv + 10000), ("below capacity", resp, serv)
        else:
            print("fixed: %d of %d I/Os late: the machine is busy; response %d vs service %d "
                  "not judged" % (l["late_ios"], r["total"]["ios"], resp, serv))
    # poisson: the due times' CV is asserted above; the submissions' CV is printed (one late
    # wake-up of a few ms on a loaded machine puts it far above 1)
PY

# rate_mb_s: 4 MB/s of 4K I/O is 976.5625 I/O per second, over 2 threads
cat >b.cfg <<'CFG'
iomatrix = 1;
name = "load-mb";
targets = ( { label = "a"; path = "a.scratch"; size = "16M"; } );
workload = { engine = "libaio"; direct = false; block_size = "4K"; read_pct = 50;
             queue_depth = 4; threads = 2; rate_mb_s = 4; };
timing = { warmup = "100ms"; duration = "2s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
"$IOMATRIX" run b.cfg -o outb >runb.txt 2>&1 || die "rate_mb_s run: $(cat runb.txt)"
python3 - <<'PY' || die "rate_mb_s"
import json
r = json.load(open("outb/runs/00001.json"))
l = r["load"]
assert abs(l["offered_iops"] - 4e6 / 4096) < 1e-6, l["offered_iops"]
assert abs(r["total"]["mb_s"] - 4.0) <= 0.04, r["total"]["mb_s"]
assert l["held"], l
print("rate_mb_s 4: %.3f MB/s" % r["total"]["mb_s"])
PY

# overloaded: psync, one I/O at a time, offered 5M IOPS
cat >o.cfg <<'CFG'
iomatrix = 1;
name = "load-over";
targets = ( { label = "a"; path = "a.scratch"; size = "16M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = 100;
             rate_iops = 5000000; };
timing = { warmup = "100ms"; duration = "1s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
"$IOMATRIX" run o.cfg -o outo >runo.txt 2>&1 || die "overloaded run: $(cat runo.txt)"
grep -Eq "run 1 offered 5.00M IOPS, achieved [0-9.]+[KM]?: saturated: [0-9.]+[KM]? I/Os late, up to [0-9.]+(ms|s) behind$" runo.txt ||
    die "no 'saturated: N I/Os late, up to T behind' line: $(cat runo.txt)"
"$IOMATRIX" report outo --run 1 >runo1.txt 2>&1 || die "report --run 1: $(cat runo1.txt)"
grep -Eq "^offered load \(fixed arrivals\): offered 5.00M IOPS, achieved [0-9.]+[KM]?: saturated: " runo1.txt ||
    die "report --run 1 of a paced run: no offered load: $(tail -n 12 runo1.txt)"
grep -Eq "^response time of all I/O \(from each I/O's due time\): min [0-9.]+ ms, mean [0-9.]+ ms, p99 [0-9.]+ ms" runo1.txt ||
    die "report --run 1 of a paced run: no response time"
tr '\n' ' ' <runo.txt | tr -s ' ' | grep -q "saturated at 5.000M (.*; achieved [0-9.]*[KM]*; service time avg [0-9.]*[nµm]*s, p99 [0-9.]*[nµm]*s)" ||
    die "the report's load note has no service time: $(grep -A3 'response times' runo.txt)"
python3 - <<'PY' || die "overloaded run"
import json
r = json.load(open("outo/runs/00001.json"))
l = r["load"]
assert not l["held"], l
assert l["late_ios"] > 0 and l["late_ios"] <= r["total"]["ios"], (l["late_ios"], r["total"]["ios"])
assert l["max_lag_s"] > 0.1, l["max_lag_s"]
resp = l["response_ns"]["total"]["percentiles"]["50"]
serv = r["total"]["lat_ns"]["percentiles"]["50"]
assert resp >= 10 * serv, (resp, serv)
print("overloaded: achieved %.0f IOPS, late %d of %d, p50 response %d ns, service %d ns"
      % (r["total"]["iops"], l["late_ios"], r["total"]["ios"], resp, serv))
PY
# ticks (docs/load.md, "Pacing"): above 20K IOPS per thread a wake-up issues every I/O due by
# then in one submission, and wakes again a tick (50 µs) later at the soonest. The null engine at
# 50K IOPS (a gap of 20 µs): held within 1 % (when no stall of the machine's held the worker
# back by more than 1 % of the window), and the trace shows the batches — at least 2.4
# I/Os per submission on average (wake-ups at least 50 µs apart issue 2.5 or more; a wake-up per
# I/O gives 1.0 on a quiet machine, 1.95 was seen on a loaded one)
cat >t.cfg <<'CFG'
iomatrix = 1;
name = "load-tick";
targets = ( { label = "a"; path = "a.scratch"; size = "16M"; } );
workload = { engine = "null"; block_size = "4K"; read_pct = 100; queue_depth = 32;
             rate_iops = 50000; };
timing = { warmup = "200ms"; duration = "1s"; rest = "0s"; repeat = 1; };
CFG
"$IOMATRIX" run t.cfg -o outt >runt.txt 2>&1 || die "ticked run: $(cat runt.txt)"
"$IOMATRIX" trace outt/traces/00001.trace.gz --measured-only -o tt.csv 2>err ||
    die "ticked trace: $(cat err)"
python3 - <<'PY' || die "ticked run"
import csv, json
r = json.load(open("outt/runs/00001.json"))
l = r["load"]
ach = r["total"]["iops"]
rows = list(csv.DictReader(open("tt.csv")))
subs = len(set(int(x["time_ns"]) for x in rows))
print("ticks: 50K IOPS offered, achieved %.0f, %d I/Os in %d submissions (%.2f each), "
      "CPU %.3f us/IO, late %d, p50 response %d ns" % (
          ach, len(rows), subs, len(rows) / subs, r["cpu"]["us_per_io"], l["late_ios"],
          l["response_ns"]["total"]["percentiles"]["50"]))
# the rate, unless the machine held the worker back for more than 1 % of the window (10 ms,
# 500 I/Os: a backlog at the window's end moves the count by as much; 0.3-0.9 s were seen on
# a VM with a load average of 20)
if l["max_lag_s"] <= 0.01:
    assert abs(ach - 50000) <= 500, ("achieved", ach)
    assert l["held"], l
else:
    print("ticks: the worker lagged %.1f ms at most: the rate is not judged" % (l["max_lag_s"] * 1e3))
assert len(rows) / subs >= 2.4, ("I/Os per submission", len(rows), subs)
PY
# pace_tick = "200us": a wake-up every 200 µs at the soonest issues 10 or more I/Os at 50K IOPS
sed 's/rate_iops = 50000;/rate_iops = 50000; pace_tick = "200us";/' t.cfg >t2.cfg
"$IOMATRIX" run t2.cfg -o outt2 >runt2.txt 2>&1 || die "pace_tick run: $(cat runt2.txt)"
"$IOMATRIX" trace outt2/traces/00001.trace.gz --measured-only -o tt2.csv 2>err ||
    die "pace_tick trace: $(cat err)"
python3 - <<'PY' || die "pace_tick run"
import csv, json
r = json.load(open("outt2/runs/00001.json"))
rows = list(csv.DictReader(open("tt2.csv")))
subs = len(set(int(x["time_ns"]) for x in rows))
print("pace_tick 200us: %d I/Os in %d submissions (%.2f each), CPU %.3f us/IO, p50 response %d ns"
      % (len(rows), subs, len(rows) / subs, r["cpu"]["us_per_io"],
         r["load"]["response_ns"]["total"]["percentiles"]["50"]))
assert r["cell"]["pace_tick"] == 200000, r["cell"]
assert len(rows) / subs >= 8, ("I/Os per submission", len(rows), subs)
PY
exit $fail
