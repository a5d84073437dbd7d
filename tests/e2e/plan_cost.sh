#!/bin/sh
# SPDX-License-Identifier: MIT
# `plan` says what a sweep will cost: on the DiskSpd preset a trace estimate (its assumption
# stated) and the free space where the results go; with --like DIR of a short real run of the
# same cells, an estimate within 50 % of the traces that run wrote; a warning when the estimate
# exceeds the free space; and a time estimate for a size-bound plan (the ATTO preset).
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

"$IOMATRIX" new --preset diskspd -o ds.cfg >/dev/null 2>&1 || die "new --preset diskspd"
"$IOMATRIX" plan ds.cfg >plan.txt 2>err.txt || die "plan ds.cfg: $(cat err.txt)"
grep -q "^trace estimate: [0-9.]* [KMGTP]iB for 6 runs (an assumed 8 bytes per I/O at 100000 IOPS, at most 1000 MB/s; give --like DIR for a previous study's figures)$" plan.txt ||
    die "no trace estimate: $(tail -n 5 plan.txt)"
grep -q "^scratch space: 20.0 GiB in 2 scratch files$" plan.txt || die "no scratch space: $(tail -n 5 plan.txt)"
grep -q "^free space: .* where the results go ('.*')$" plan.txt || die "no free space: $(tail -n 5 plan.txt)"

# several paths: size applies to each
cat >paths.cfg <<'EOF'
iomatrix = 1;
targets = ( { label = "trio"; paths = [ "p1.scratch", "p2.scratch", "p3.scratch" ]; size = "16M"; } );
workload = { threads = 3; };
timing = { duration = "1s"; };
EOF
"$IOMATRIX" plan paths.cfg >paths.txt 2>err.txt || die "plan paths.cfg: $(cat err.txt)"
grep -q "^scratch space: 48.0 MiB in 3 scratch files$" paths.txt || die "paths' scratch space: $(grep scratch paths.txt)"

# the same cells, short, on scratch files here
sed -e 's#/mnt/lsi/#./lsi-#' -e 's#/mnt/pvs/#./pvs-#' -e 's/"10G"/"32M"/g' ds.cfg >short.cfg
set -- --set duration=1s --set warmup=200ms --set rest=0s --set repeat=1 --set direct=false
"$IOMATRIX" run short.cfg -o short "$@" -q >run.txt 2>&1 || die "short run: $(cat run.txt)"
written=$(cat short/traces/*.trace.gz | wc -c)
"$IOMATRIX" plan short.cfg "$@" --like short >like.txt 2>err.txt || die "plan --like: $(cat err.txt)"
grep -q "^trace estimate: .* the IOPS per block size of 2 runs in short" like.txt ||
    die "--like is not said: $(tail -n 4 like.txt)"
python3 - "$written" like.txt <<'PY' || die "the --like estimate is not within 50 % of the $written bytes written"
import re, sys
written = int(sys.argv[1])
line = [l for l in open(sys.argv[2]) if l.startswith("trace estimate: ")][0]
v, u = re.match(r"trace estimate: ([0-9.]+) (bytes|KiB|MiB|GiB)", line).groups()
est = float(v) * {"bytes": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}[u]
print("estimate %.0f bytes, written %d" % (est, written))
assert 0.5 * written <= est <= 1.5 * written, (est, written)
PY

# more than the free space: a warning on stderr
"$IOMATRIX" plan ds.cfg --set duration=168h >big.txt 2>big.err || die "plan of a long sweep failed"
grep -q "^ds.cfg: warning: the trace estimate (.*) exceeds the free space where the results go (.* in '.*'); set trace = false, run with --no-trace, or put the results on a larger filesystem with -o DIR$" big.err ||
    die "no warning: $(cat big.err)"

# a size-bound plan: its time
"$IOMATRIX" new --preset atto -o atto.cfg >/dev/null 2>&1 || die "new --preset atto"
"$IOMATRIX" plan atto.cfg >atto.txt 2>err.txt || die "plan atto.cfg: $(cat err.txt)"
grep -q "^size-bound time estimate: .* of measured windows, .* with warm-up and cool-down (at an assumed 100000 IOPS per block size, at most 1000 MB/s)$" atto.txt ||
    die "no size-bound time: $(tail -n 5 atto.txt)"
exit $fail
