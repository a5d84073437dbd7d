#!/bin/sh
# SPDX-License-Identifier: MIT
# SIGTERM during a scratch fill (docs/hardening.md, "Safety under change", case 10): the first
# SIGTERM stops a 4 GiB fill within seconds, not at its end; the process exits 3 ("interrupted")
# saying where the fill stopped; the mark records the filled length; `resume` goes on from the mark
# (the bytes before it are the same, so they were not written again) and, left alone, completes the
# fill and the run. Needs 6 GiB free on a disk filesystem (not tmpfs, which would hold 4 GiB in
# memory).
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
dir=$PWD
[ "$(stat -f -c %T "$dir")" = tmpfs ] && dir=/var/tmp
[ "$(stat -f -c %T "$dir")" = tmpfs ] && { echo "no disk filesystem for a 4 GiB scratch file"; exit 77; }
free_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
[ "$free_kb" -gt $((6 * 1024 * 1024)) ] || { echo "less than 6 GiB free in $dir"; exit 77; }
scratch=$(mktemp -d "$dir/iomatrix-fill.XXXXXX")
pid=
cleanup() {
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
    rm -rf "$scratch"
}
on_exit cleanup

cat >m.cfg <<CFG
iomatrix = 1;
name = "fill";
targets = ( { label = "a"; path = "$scratch/a.scratch"; size = "4G"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; };
timing = { warmup = "0s"; duration = "50ms"; rest = "0s"; repeat = 1; };
trace = false;
CFG

# The filled length the mark records (the xattr, or the sidecar where xattrs are refused).
mark() {
    python3 - "$scratch/a.scratch" <<'PY'
import os, re, sys
p = sys.argv[1]
try:
    v = os.getxattr(p, "user.iomatrix").decode()
except OSError:
    v = open(os.path.join(os.path.dirname(p), "." + os.path.basename(p) + ".iomatrix")).read()
print(re.search(r"size=(\d+)", v).group(1))
PY
}
now_ms() { date +%s%3N; }

# Starts iomatrix "$@" in the background, sends SIGTERM once the fill has begun, waits;
# sets rc and took (ms from the signal to the exit).
stop_during_fill() {
    "$IOMATRIX" "$@" >out.txt 2>err.txt &
    pid=$!
    i=0
    while ! grep -q "preparing target" out.txt && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    t0=$(now_ms)
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    took=$(($(now_ms) - t0))
    pid=
}

stop_during_fill run m.cfg -o out
echo "run: exit $rc ${took} ms after SIGTERM: $(cat err.txt)"
grep -q "was stopped at" err.txt ||
    { grep -q "1 run ok" out.txt && { echo "the disk filled 4 GiB before the signal"; exit 77; }; }
[ "$rc" -eq 3 ] || die "exit $rc after SIGTERM during the fill, not 3"
[ "$took" -lt 10000 ] || die "the fill went on for $took ms after SIGTERM"
grep -q "the fill of scratch file '$scratch/a.scratch' was stopped at [0-9]* of 4294967296 bytes" err.txt ||
    die "no message saying where the fill stopped: $(cat err.txt)"
grep -q "iomatrix resume out" err.txt || die "no word on how to carry on: $(cat err.txt)"
n1=$(mark)
echo "mark after the first SIGTERM: $n1"
[ "$n1" -gt 0 ] && [ "$n1" -lt 4294967296 ] || die "the mark says $n1, not the length filled"
grep -q "stopped at $n1 of" err.txt || die "the mark ($n1) is not where the message says it stopped"
[ ! -e out/runs/00001.json ] || die "a run was made on a half-filled scratch file"

# What [0, n1) holds now: a resume that refilled from 0 would change it (every fill its own seed).
sample() {
    python3 - "$scratch/a.scratch" "$1" <<'PY'
import hashlib, sys
p, n = sys.argv[1], int(sys.argv[2])
h = hashlib.sha256()
with open(p, "rb") as f:
    h.update(f.read(8 << 20))
    f.seek(max(0, n - (8 << 20)))
    h.update(f.read(min(n, 8 << 20)))
print(h.hexdigest())
PY
}
before=$(sample "$n1")

stop_during_fill resume out
echo "resume: exit $rc ${took} ms after SIGTERM: $(cat err.txt)"
n2=$(mark)
echo "mark after the second SIGTERM: $n2"
[ "$rc" -eq 3 ] || grep -q "1 run ok" out.txt || die "resume exit $rc: $(cat err.txt)"
[ "$n2" -gt "$n1" ] || die "resume did not fill on from the mark ($n1 -> $n2)"
[ "$(sample "$n1")" = "$before" ] || die "resume wrote [0, $n1) again instead of going on from the mark"

"$IOMATRIX" resume out -q >out.txt 2>err.txt || die "the last resume failed: $(cat err.txt)"
[ "$(mark)" -eq 4294967296 ] || die "the fill did not complete: mark $(mark)"
[ -f out/runs/00001.json ] || die "no run after the fill completed"
[ "$(sample "$n1")" = "$before" ] || die "the completing resume wrote [0, $n1) again"
exit $fail
