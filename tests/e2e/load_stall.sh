#!/bin/sh
# SPDX-License-Identifier: MIT
# Coordinated omission, shown. The same device, psync 4K reads of a scratch
# file, is frozen for 200 ms (SIGSTOP of the process) a second into each of two runs: an open
# loop at 1000 IOPS and a closed loop. The open loop's response-time p99 takes the stall in
# (the ~200 I/Os due while it was frozen wait up to 200 ms: p99 ≥ 20 ms, and its largest lag is
# ≥ 100 ms), while its service-time p99 and the closed loop's latency p99 stay far below it:
# a closed loop simply issued nothing while frozen. Neither run is judged stalled (#14: a
# 200 ms freeze is below its 1 s gap and its overrun margin).
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

freeze() { # freeze PID RUN: stops the sweep 1 s into run RUN for 200 ms
    i=0
    while ! grep -q "	run-start	$2	" "$3/journal" 2>/dev/null && [ $i -lt 200 ]; do
        sleep 0.05; i=$((i + 1))
    done
    sleep 1.2 # past the warm-up
    kill -STOP "$1"
    sleep 0.2
    kill -CONT "$1"
}

for kind in open closed; do
    rate=""
    [ $kind = open ] && rate="rate_iops = 1000;"
    cat >$kind.cfg <<CFG
iomatrix = 1;
name = "stall-$kind";
targets = ( { label = "a"; path = "a.scratch"; size = "16M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = 100; $rate };
timing = { warmup = "200ms"; duration = "3s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
    "$IOMATRIX" run $kind.cfg -o out-$kind >$kind.txt 2>&1 &
    pid=$!
    freeze $pid 1 out-$kind
    wait $pid || die "$kind run: $(cat $kind.txt)"
done

python3 - <<'PY'
import json, sys
o = json.load(open("out-open/runs/00001.json"))
c = json.load(open("out-closed/runs/00001.json"))
p = lambda lat, q: lat["percentiles"][q]
resp = o["load"]["response_ns"]["total"]
serv = o["total"]["lat_ns"]
clat = c["total"]["lat_ns"]
print("open loop at 1000 IOPS: response p99 %.2f ms, p99.9 %.2f ms, max %.1f ms; service p99 %.3f ms; "
      "largest lag %.1f ms, late %d" % (p(resp, "99") / 1e6, p(resp, "99.9") / 1e6, resp["max"] / 1e6,
      p(serv, "99") / 1e6, o["load"]["max_lag_s"] * 1e3, o["load"]["late_ios"]))
print("closed loop: latency p99 %.3f ms, max %.1f ms, %.0f IOPS" % (p(clat, "99") / 1e6, clat["max"] / 1e6,
      c["total"]["iops"]))
assert o["load"]["max_lag_s"] >= 0.1, o["load"]
assert o["load"]["late_ios"] >= 100, o["load"]
assert p(resp, "99") >= 20e6, ("open-loop response p99 does not show the stall", p(resp, "99"))
assert p(resp, "99") >= 20 * p(serv, "99"), ("service time shows it too?", p(resp, "99"), p(serv, "99"))
assert p(resp, "99") >= 20 * p(clat, "99"), ("closed loop shows it too?", p(resp, "99"), p(clat, "99"))
# not stalled by the test's own stall: a busy machine stretches a window by itself ("the
# window lasted 3.4 s for 3.0 s asked" beside two CPU-bound processes), a figure
if o["stalled"] is not None or c["stalled"] is not None:
    print("figure missed: stalled", o["stalled"], c["stalled"])
    sys.exit(3)
PY
case $? in
0) ;;
3) figure_or_die "the runs' own stall judgement (above)" ;;
*) die "the stall" ;;
esac
exit $fail
