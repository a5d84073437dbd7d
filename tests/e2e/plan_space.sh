#!/bin/sh
# SPDX-License-Identifier: MIT
# Free space, as df shows it: `check` and `plan` of a study whose traces cannot fit both name
# the free space of the results' filesystem as statvfs's f_bavail (what an unprivileged write
# gets, not f_bfree with root's reserve), agreeing with each other within 0.2 GiB (other
# writers on the machine), and `plan` warns once for that filesystem, counting the scratch
# files there with the traces.
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
cat >big.cfg <<'CFG'
iomatrix = 1;
name = "big";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "null"; block_size = [ "4K", "8K" ]; queue_depth = [ 1, 2, 4, 8 ]; };
timing = { warmup = "0s"; duration = "24h"; repeat = 5; };
trace = true;
CFG
"$IOMATRIX" check big.cfg >check.txt 2>&1 || die "check: $(cat check.txt)"
"$IOMATRIX" plan big.cfg >plan.txt 2>plan.err || die "plan: $(cat plan.err)"
[ "$(grep -c 'warning' plan.err)" -eq 1 ] || die "plan warns $(grep -c warning plan.err) times: $(cat plan.err)"
grep -q "warning: the trace estimate ([0-9.]* TiB) with the scratch files there (1.0 MiB) exceeds the free space where the results go ([0-9.]* GiB in '.')" plan.err ||
    die "plan's warning: $(cat plan.err)"
grep -q "more than the [0-9.]* GiB free where the results go ('.')" check.txt || die "check's warning: $(cat check.txt)"
python3 - <<'PY' || die "the free space named is not f_bavail"
import os, re
v = os.statvfs(".")
bavail = v.f_bavail * v.f_frsize / 2**30
bfree = v.f_bfree * v.f_frsize / 2**30
p = float(re.search(r"\(([0-9.]+) GiB in '\.'\)", open("plan.err").read()).group(1))
c = float(re.search(r"more than the ([0-9.]+) GiB free", open("check.txt").read()).group(1))
s = float(re.search(r"^free space: ([0-9.]+) GiB", open("plan.txt").read(), re.M).group(1))
print("f_bavail %.1f GiB, f_bfree %.1f GiB; plan %.1f, check %.1f, plan's free space %.1f" % (bavail, bfree, p, c, s))
for x in (p, c, s):
    assert abs(x - bavail) < 0.2, (x, bavail)
PY
exit $fail
