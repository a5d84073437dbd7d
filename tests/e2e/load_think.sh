#!/bin/sh
# SPDX-License-Identifier: MIT
# Think time and bursts: think_time and burst (DiskSpd's -j and -i). Each of 2 threads does bursts
# of 8 psync reads and pauses 5 ms after each: its rate is burst / (burst × service + think),
# within a generous bound (a loaded machine oversleeps: at least 75 %, at most 102 % of it).
# `iomatrix diskspd -i8 -j5 -g…` writes burst, think_time and rate_mb_s into its matrix.
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "think";
targets = ( { label = "a"; path = "a.scratch"; size = "16M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = 100; threads = 2;
             think_time = "5ms"; burst = 8; };
timing = { warmup = "100ms"; duration = "2s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
"$IOMATRIX" run m.cfg -o out >run.txt 2>&1 || die "run: $(cat run.txt)"
python3 - <<'PY'
import json, sys
r = json.load(open("out/runs/00001.json"))
assert r["load"] is None, r["load"]          # a closed loop: no offered load
svc = r["total"]["lat_ns"]["mean"] / 1e9
want = 2 * 8 / (8 * svc + 0.005)            # two threads
got = r["total"]["iops"]
print("think 5 ms, burst 8, 2 threads: %.1f IOPS, expected %.1f (service %.2f us): %.3f" %
      (got, want, svc * 1e6, got / want))
sys.exit(0 if 0.75 * want <= got <= 1.02 * want else 3)  # a figure: the machine's to keep
PY
case $? in
0) ;;
3) figure_or_die "think time's IOPS (above)" ;;
*) die "think time" ;;
esac

"$IOMATRIX" diskspd -c16M -b4K -t2 -o1 -d1 -W0 -i8 -j5 --matrix a.scratch >ds.cfg 2>ds.err ||
    die "diskspd -i -j -g: $(cat ds.err)"
grep -q 'think_time = "5ms"' ds.cfg || die "no think_time: $(cat ds.cfg)"
grep -q 'burst = 8' ds.cfg || die "no burst: $(cat ds.cfg)"
# -g400: 400 bytes per ms per thread = 0.4 MB/s per thread, 0.8 MB/s for the run; -g500i
"$IOMATRIX" diskspd -c16M -b4K -t2 -o1 -d1 -W0 -g400 --matrix a.scratch >g.cfg 2>g.err ||
    die "diskspd -g: $(cat g.err)"
grep -q 'rate_mb_s = "0.8"' g.cfg || die "no rate_mb_s 0.8: $(cat g.cfg)"
"$IOMATRIX" diskspd -c16M -b4K -t2 -o1 -d1 -W0 -g500i --matrix a.scratch >gi.cfg 2>&1 ||
    die "diskspd -g500i: $(cat gi.cfg)"
grep -q 'rate_iops = 1000;' gi.cfg || die "no rate_iops 1000: $(cat gi.cfg)"
"$IOMATRIX" diskspd -c16M -j5 --matrix a.scratch >j.out 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q -- "-j5 needs -i" j.out || die "-j without -i: exit $rc, $(cat j.out)"
exit $fail
