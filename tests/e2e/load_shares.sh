#!/bin/sh
# SPDX-License-Identifier: MIT
# Shares of the maximum: rate_iops = [ "max", "25%", "50%", "75%", "90%" ] runs the cell
# unthrottled first (a run of its own, recorded) and derives the four paced runs' rates from its
# measured IOPS when they run: each offers exactly its share of the max (to the I/O per second), and
# achieves it within 2 % — all four, asserted. The sweep is interrupted after the second paced
# run starts and resumed: the resumed runs derive the same rates from the recorded max run.
#
# The target: a loop device (a file in /dev/shm) whose reads a cgroup's blkio throttle holds to
# 4000 IOPS, read with psync 4K direct, one I/O at a time. Its max is the throttle's, not the
# CPU's: a CPU-bound target (psync 64K from the page cache, this test before) measured 53K,
# 55K and 118K IOPS max minutes apart on the shared 2-core VM, so 90 % of a max measured at a
# quiet moment was not there to hold at a busy one (docs/load.md). iomatrix runs at a real-time
# priority (chrt) where it can, so that the other builds of the machine do not delay its
# wake-ups; the 2 s windows and the repetition of a stalled attempt are explained below. Root
# only (the loop device, the cgroup); both are undone in a trap.
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for a loop device and a blkio throttle"
need_cmd python3 losetup
cgroot=/sys/fs/cgroup/blkio
[ -w "$cgroot/blkio.throttle.read_iops_device" ] ||
    skip "no cgroup v1 blkio throttle ($cgroot/blkio.throttle.read_iops_device)"
img=$(mktemp /dev/shm/iom-shares.XXXXXX)
loop="" cg="" pid=""
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    fi
    [ -n "$cg" ] && [ -d "$cg" ] && rmdir "$cg"
    [ -n "$loop" ] && losetup -d "$loop"
    rm -f "$img"
}
on_exit cleanup
truncate -s 64M "$img"
loop=$(losetup -f --show "$img" 2>err) || { echo "no loop device: $(cat err)"; exit 77; }
cg=$cgroot/iomatrix-e2e-shares.$$
mkdir "$cg" || { cg=""; skip "cannot make a blkio cgroup"; }
mm=$(stat -L -c '%t %T' "$loop") && mm=$(printf '%d:%d' "0x${mm% *}" "0x${mm#* }")
echo "$mm 4000" >"$cg/blkio.throttle.read_iops_device" || skip "cannot throttle $loop"
# incg CMD...: CMD in the throttled cgroup, at a real-time priority when chrt can give it one
# (the shell joins the cgroup and becomes CMD: called in a subshell, CMD keeps its pid)
IOM_RT=""
command -v chrt >/dev/null 2>&1 && chrt -f 10 true 2>/dev/null && IOM_RT="chrt -f 10"
export IOM_RT
incg() { exec sh -c 'echo $$ >"$0/cgroup.procs" && exec $IOM_RT "$@"' "$cg" "$@"; }

cat >m.cfg <<CFG
iomatrix = 1;
name = "shares";
targets = ( { label = "a"; path = "$loop"; destructive = true; } );
workload = { engine = "psync"; direct = true; block_size = "4K"; read_pct = 100;
             rate_iops = [ "max", "25%", "50%", "75%", "90%" ]; };
timing = { warmup = "200ms"; duration = "2s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
"$IOMATRIX" plan m.cfg >plan.txt 2>&1 || die "plan: $(cat plan.txt)"

# attempt N: the study into outN, interrupted after the second paced run starts, resumed, then
# judged — 0: all four shares within 2 %; 3: one missed while the target stalled (see below);
# else failed
attempt() {
    out=out$1
    incg "$IOMATRIX" run m.cfg -o $out >run$1.txt 2>&1 &
    pid=$!
    i=0
    while ! grep -q "	run-start	3	" $out/journal 2>/dev/null && [ $i -lt 300 ]; do
        sleep 0.05; i=$((i + 1))
    done
    kill -INT $pid
    wait $pid
    pid=""
    grep -q "interrupted" run$1.txt || echo "note: the sweep was not interrupted before it ended"
    (incg "$IOMATRIX" resume $out) >resume$1.txt 2>&1 || { echo "resume: $(cat resume$1.txt)"; return 1; }
    python3 - $out <<'PY'
import json, sys
out = sys.argv[1]
runs = [json.load(open("%s/runs/%05d.json" % (out, i))) for i in range(1, 6)]
assert [r["cell"]["rate_iops"] for r in runs] == ["max", "25%", "50%", "75%", "90%"], \
    [r["cell"].get("rate_iops") for r in runs]
mx = runs[0]
assert mx["status"] == "ok" and mx["load"] is None, mx["load"]
top = mx["total"]["iops"]
print("max %.0f IOPS (the throttle: 4000)" % top)
# the throttle, not the CPU, sets the max (else the shares below test the machine's load); a
# loop worker left unscheduled for long in the max run measures less (2000 was seen once)
if not 3800 <= top <= 4200:
    print("the max is not the throttle's")
    sys.exit(3)
bad, stalled = [], []
for r, share in zip(runs[1:], (0.25, 0.5, 0.75, 0.9)):
    l = r["load"]
    assert r["status"] == "ok", r["status"]
    assert abs(l["offered_iops"] - round(share * top)) < 1e-6, (share, l["offered_iops"], share * top)
    ach = r["total"]["iops"]
    print("%2d%% of max %.0f IOPS: offered %.0f, achieved %.0f (%+.2f %%), %s, late %d, "
          "largest lag %.1f ms, service max %.1f ms" %
          (share * 100, top, l["offered_iops"], ach, 100 * (ach / (share * top) - 1),
           "held" if l["held"] else "saturated", l["late_ios"], l["max_lag_s"] * 1e3,
           r["total"]["lat_ns"]["max"] / 1e6))
    if abs(ach - share * top) > 0.02 * share * top:
        bad.append(share)
        if l["max_lag_s"] > 0.02 * 2.0: # 2 % of the 2 s window
            stalled.append(share)
if bad and bad == stalled:
    print("the target stalled for more than 2 %% of the window during %s" % bad)
    sys.exit(3)
assert not bad, ("not within 2 % of the share", bad)
PY
}
# A 4K read of RAM through a throttle with room to spare takes microseconds, or up to the
# throttle's 20 ms slice; when the loaded machine leaves the loop device's kernel worker
# unscheduled for longer (reads of 245 and 320 ms were seen), the I/Os it held cross the
# window's boundary, and a backlog of more than 2 % of the window at its end moves the count
# by more than 2 % however the pacer did. Such an attempt (every missed share in a run whose
# largest lag exceeds 2 % of its window; or a max not the throttle's) is repeated, up to 3
# times; a miss without such a stall fails at once.
n=1
while :; do
    attempt $n
    rc=$?
    [ $rc = 3 ] && [ $n -lt 3 ] && { n=$((n + 1)); continue; }
    if [ $rc = 3 ]; then
        figure_or_die "shares (attempt $n): the machine stalled every attempt"
    elif [ $rc != 0 ]; then
        die "shares (attempt $n)"
    fi
    break
done
[ $n -gt 1 ] && echo "note: $n attempts"
held=1
[ $rc = 3 ] && held=0 # the loads held are a figure of the machine's too
out=out$n
# the reports (point 7): the text report says which loads were held and that paced latency is
# response time; the HTML report draws latency against achieved IOPS
"$IOMATRIX" report $out >report.txt 2>&1 || die "report: $(cat report.txt)"
grep -q "are response times, from each I/O's due" report.txt || die "no response-time note: $(cat report.txt)"
if [ $held = 1 ]; then
    tr '\n' ' ' <report.txt | tr -s ' ' | grep -Eq " a: held .*25%-of-max; service time avg [0-9.]+[nµm]?s, p99 " ||
        die "no held loads: $(cat report.txt)"
else
    grep -Eq "^a: (held|saturated)" report.txt || die "no loads line: $(cat report.txt)"
fi
"$IOMATRIX" report $out --format html -o r.html >/dev/null 2>&1 || die "html report"
grep -q 'Latency vs achieved IOPS, by rate_iops' r.html || die "no load chart in the HTML report"
exit $fail
