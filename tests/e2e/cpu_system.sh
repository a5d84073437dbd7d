#!/bin/sh
# SPDX-License-Identifier: MIT
# System CPU of a run on a loop device: cpu.system_busy_pct, cpu.system_us_per_io and
# cpu.iops_per_busy_pct in the run JSON agree with /proc/stat as this test reads it around the
# run. The run's busy and total jiffies (user, nice, system, irq, softirq; and those plus idle,
# iowait and steal) lie within the window the test reads, which encloses the run, and make most
# of it; the run's busy share is the window's within 10 % (plus 2 points: the window also holds
# the sweep's start and end); its total jiffies are near the measured window's length × CPUs ×
# HZ (generously: a guest's /proc/stat may count fewer); its figures follow from its jiffies
# within 10 %; and the system's busy time per I/O is at least the process's own.
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for a loop device"
need_cmd losetup python3
back=$(mktemp /dev/shm/iomatrix-e2e.XXXXXX)
dev=""
cleanup() { [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null; rm -f "$back"; }
on_exit cleanup
truncate -s 64M "$back"
dev=$(losetup -f --show "$back") || { echo "cannot attach a loop device"; exit 77; }

cat >m.cfg <<CFG
iomatrix = 1;
name = "cpu";
targets = ( { label = "loop"; path = "$dev"; size = "32M"; } );
workload = { block_size = "4K"; queue_depth = 4; read_pct = 100; engine = "io_uring"; };
timing = { warmup = "100ms"; duration = "2s"; repeat = 1; };
trace = false;
CFG
head -n 1 /proc/stat >stat.before
"$IOMATRIX" run m.cfg -o out >out.txt 2>err.txt || die "run on $dev: $(cat err.txt)"
head -n 1 /proc/stat >stat.after
python3 - <<'PY' || die "system CPU figures do not match /proc/stat"
import json, os
def ticks(p):
    f = [int(x) for x in open(p).read().split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = f
    busy = user + nice + system + irq + softirq
    return busy, busy + idle + iowait + steal
b0, a0 = ticks("stat.before"); b1, a1 = ticks("stat.after")
wb, wa = b1 - b0, a1 - a0
r = json.load(open("out/runs/00001.json"))
c = r["cpu"]
hz = os.sysconf("SC_CLK_TCK"); ncpu = c["ncpu"] if "ncpu" in c else len(c["per_cpu"])
rb, ra = c["busy_jiffies"], c["all_jiffies"]
print("window busy %d of %d jiffies; run busy %d of %d; busy %.2f%%, %.3f us/IO, %.0f IOPS per busy %%"
      % (wb, wa, rb, ra, c["system_busy_pct"], c["system_us_per_io"], c["iops_per_busy_pct"]))
assert 0 < rb <= wb + 2, (rb, wb)
assert 0 < ra <= wa + 2, (ra, wa)
assert rb >= 0.6 * wb and ra >= 0.6 * wa, (rb, wb, ra, wa)
wpct = 100.0 * wb / wa
assert abs(c["system_busy_pct"] - wpct) <= 0.1 * wpct + 2, (c["system_busy_pct"], wpct)
expect = r["elapsed_s"] * hz * ncpu
# a guest's /proc/stat may count fewer jiffies than the wall clock gives: a generous bound
assert 0.5 * expect <= ra <= 1.1 * expect + 2 * ncpu, (ra, expect)
pct = 100.0 * rb / ra
assert abs(c["system_busy_pct"] - pct) <= 0.1 * pct, (c["system_busy_pct"], pct)
ios = r["total"]["ios"]
us = rb * 1e6 / hz / ios
assert abs(c["system_us_per_io"] - us) <= 0.1 * us, (c["system_us_per_io"], us)
iops = ios / r["elapsed_s"]
assert abs(c["iops_per_busy_pct"] - iops / c["system_busy_pct"]) <= 0.1 * iops / c["system_busy_pct"]
assert c["system_us_per_io"] >= 0.9 * c["us_per_io"], (c["system_us_per_io"], c["us_per_io"])
PY
"$IOMATRIX" report out --run 1 >ds.txt || die "report --run 1"
grep -q "^system CPU (all CPUs, user+nice+system+irq+softirq): .* busy, .* µs per I/O, .* IOPS per busy % (CPU effectiveness)$" ds.txt ||
    die "the DiskSpd view lacks the system CPU line"
grep -q "^iomatrix CPU: user " ds.txt || die "the DiskSpd view lost the process's CPU"
exit $fail
