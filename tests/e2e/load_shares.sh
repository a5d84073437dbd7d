#!/bin/sh
# Issue 17, point 6: rate_iops = [ "max", "25%", "50%", "75%", "90%" ] runs the cell unthrottled
# first (a run of its own, recorded) and derives the four paced runs' rates from its measured
# IOPS when they run: each offers exactly its share of the max (to the I/O per second). The
# sweep is interrupted after the second paced run starts and resumed: the resumed runs derive
# the same rates from the recorded max run. Achieved within 2 % of the share: asserted for 25 %
# (4× headroom); 50-90 % must be within 2 % or say "saturated". This target is CPU-bound (psync
# from the page cache) and on a loaded 2-core machine its max moves by ±40 % from one run to the
# next (83K and 145K IOPS measured minutes apart), so 90 % of a max measured at a quiet moment
# may not be there to hold; on a quiet machine all four hold (docs/load.md).
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "shares";
targets = ( { label = "a"; path = "a.scratch"; size = "32M"; } );
workload = { engine = "psync"; direct = false; block_size = "64K"; read_pct = 100;
             rate_iops = [ "max", "25%", "50%", "75%", "90%" ]; };
timing = { warmup = "200ms"; duration = "1s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
"$IOMATRIX" plan m.cfg >plan.txt 2>&1 || die "plan: $(cat plan.txt)"
"$IOMATRIX" run m.cfg -o out >run.txt 2>&1 &
pid=$!
i=0
while ! grep -q "	run-start	3	" out/journal 2>/dev/null && [ $i -lt 300 ]; do
    sleep 0.05; i=$((i + 1))
done
kill -INT $pid
wait $pid
"$IOMATRIX" resume out >resume.txt 2>&1 || die "resume: $(cat resume.txt)"
python3 - <<'PY' || die "shares"
import json
runs = [json.load(open("out/runs/%05d.json" % i)) for i in range(1, 6)]
assert [r["cell"]["rate_iops"] for r in runs] == ["max", "25%", "50%", "75%", "90%"], \
    [r["cell"].get("rate_iops") for r in runs]
mx = runs[0]
assert mx["status"] == "ok" and mx["load"] is None, mx["load"]
top = mx["total"]["iops"]
for r, share in zip(runs[1:], (0.25, 0.5, 0.75, 0.9)):
    l = r["load"]
    assert r["status"] == "ok", r["status"]
    assert abs(l["offered_iops"] - round(share * top)) < 1e-6, (share, l["offered_iops"], share * top)
    ach = r["total"]["iops"]
    print("%2d%% of max %.0f IOPS: offered %.0f, achieved %.0f (%.2f %%), %s, late %d" %
          (share * 100, top, l["offered_iops"], ach, 100 * (ach / l["offered_iops"] - 1),
           "held" if l["held"] else "saturated", l["late_ios"]))
    ok = abs(ach - share * top) <= 0.02 * share * top
    assert ok or (share > 0.25 and not l["held"]), (share, ach, share * top)
PY
# the reports (point 7): the text report says which loads were held and that paced latency is
# response time; the HTML report draws latency against achieved IOPS
"$IOMATRIX" report out >report.txt 2>&1 || die "report: $(cat report.txt)"
grep -q "are response times, from each I/O's due" report.txt || die "no response-time note: $(cat report.txt)"
grep -Eq "^a: held .*\(25%-of-max\)" report.txt || die "no held loads: $(cat report.txt)"
"$IOMATRIX" report out --format html -o r.html >/dev/null 2>&1 || die "html report"
grep -q 'Latency vs achieved IOPS, by rate_iops' r.html || die "no load chart in the HTML report"
grep -q "interrupted" run.txt || echo "note: the sweep was not interrupted before it ended"
exit $fail
