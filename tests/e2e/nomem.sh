#!/bin/sh
# SPDX-License-Identifier: MIT
# Memory whose size the matrix controls (queue depth × threads × block size:
# buffers, slot tables, engine queues, histograms, thread stacks) never aborts iomatrix. Under
# `ulimit -v`, 20 tries of matrices that cannot get their memory each end with exit 1, never
# SIGABRT (exit 134): the run's JSON says failed with what it asked for ("cannot allocate 65536
# I/O slots × 64 threads (… MiB …) for run 1: out of memory (…)", or the worker thread that could
# not be started), and the journal ends run-failed, study-end. Buffers larger than the memory
# there is are refused before anything runs (check_memory), under the limit too. A sanitizer
# build, which cannot run under `ulimit -v`, is tested with its allocator's size limit instead.
# e2e: parallel slow
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "nomem";
targets = ( { label = "a"; path = "a.scratch"; size = "8M"; } );
workload = { engine = "io_uring"; direct = false; block_size = "4K"; queue_depth = 4096;
             threads = 1024; read_pct = 100; };
timing = { warmup = "0s"; duration = "50ms"; repeat = 1; };
trace = false;
CFG

# Checks try directory $1: the run failed with what it asked for, the journal ends cleanly.
check() {
    python3 - "$1" <<'PY'
import json, re, sys
d = sys.argv[1]
r = json.load(open(d + "/runs/00001.json"))
assert r["status"] == "failed", r["status"]
e = r["error"] or ""
assert re.search(r"^cannot allocate \d+ I/O slots? × \d+ threads? \([\d.]+ MiB with \d+-byte "
                 r"blocks\) for run 1: out of memory \(.+\)$", e) or \
       re.search(r"^cannot start worker thread \d+ of \d+ for run 1: out of memory or of "
                 r"threads", e), "error: " + e
j = [l.split("\t")[1] for l in open(d + "/journal").read().splitlines() if "\t" in l]
assert j[-2:] == ["run-failed", "study-end"], "journal ends " + repr(j[-3:])
print("try ok:", e[:100])
PY
}

# A sanitizer build reserves terabytes of address space and cannot start under ulimit -v: its
# allocator is told to refuse allocations above 8 MiB instead (returning NULL, as malloc does),
# so that the I/O buffers of each thread (16 MiB) are not there and the same path is taken.
if ! ( (ulimit -v 1000000 && "$IOMATRIX" --version) >/dev/null 2>&1 ) 2>/dev/null; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=8"
    export ASAN_OPTIONS
    "$IOMATRIX" --version >/dev/null 2>&1 ||
        { echo "iomatrix cannot run under ulimit -v 1000000, nor with max_allocation_size_mb"; exit 77; }
    for t in "threads=8 engine=null" "threads=64" "threads=1"; do
        d=asan$(echo "$t" | tr -cd '0-9')
        sets=""
        for a in $t; do sets="$sets --set $a"; done
        # shellcheck disable=SC2086
        "$IOMATRIX" run m.cfg -o "$d" $sets >"$d.out" 2>"$d.err"
        rc=$?
        [ "$rc" -eq 1 ] || die "$t: exit $rc, want 1: $(tail -n 3 "$d.err")"
        check "$d" || die "$t: $(tail -n 3 "$d.err")"
    done
    exit $fail
fi

# Runs the matrix with the --set words in $2 under `ulimit -v $1` into directory $3; echoes
# the exit code.
try() {
    sets=""
    for a in $2; do sets="$sets --set $a"; done
    # shellcheck disable=SC2086
    ( ulimit -v "$1" && exec "$IOMATRIX" run m.cfg -o "$3" $sets ) >"$3.out" 2>"$3.err"
    echo $?
}

# 1. refused up front: 8M × 65536 × 1024 threads (512 TiB) is more than any machine has
rc=$(try 1000000 "block_size=8M queue_depth=65536" big)
[ "$rc" -eq 1 ] || die "huge buffers: exit $rc, want 1: $(cat big.err)"
grep -q "of I/O buffers (8M × queue depth 65536 × 1024 threads)" big.err ||
    die "huge buffers: no refusal message: $(cat big.err)"
[ ! -e big/runs ] || die "the refused sweep created runs/"

# 2. refused in the run: 20 tries, the matrix's memory or the threads' stacks not there
#    (limits in KiB of address space; iomatrix itself needs well under 100 MiB of them)
set -- \
    "1000000|block_size=512 queue_depth=65536 threads=64 engine=null" \
    "1500000|block_size=64K queue_depth=4096 threads=16" \
    "1000000|" \
    "2500000|block_size=512 queue_depth=65536 threads=64 engine=null" \
    "1000000|block_size=64K queue_depth=4096 threads=16" \
    "1500000|threads=1024 engine=null"
i=0
while [ $i -lt 20 ]; do
    n=$((i % $# + 1))
    eval "v=\${$n}"
    lim=${v%%|*} sets=${v#*|}
    d=try$i
    rc=$(try "$lim" "$sets" "$d")
    i=$((i + 1))
    if [ "$rc" -ne 1 ]; then
        die "try $i (ulimit -v $lim, $sets): exit $rc, want 1: $(tail -n 3 "$d.err")"
        continue
    fi
    if [ ! -e "$d/runs" ] && grep -q "of I/O buffers" "$d.err"; then
        # the 16 GiB of buffers (4K x 4096 x 1024 threads, whatever the engine) on a machine with
        # less memory available: refused up front
        case $sets in
        "" | "threads=1024 engine=null") ;;
        *) die "try $i ($sets) refused up front: $(cat "$d.err")" ;;
        esac
        continue
    fi
    check "$d" || die "try $i (ulimit -v $lim, $sets)"
done
exit $fail
