#!/bin/bash
# SPDX-License-Identifier: MIT
# mpi_scale.sh — how iomatrix-mpi scales with ranks (make bench, make bench-mpi;
# docs/performance.md, "Many hosts: scaling under MPI").
#
# Three devices, one per rank through ${rank}: zram devices this script hot_adds (and resets
# and hot_removes on exit, whatever happens) where the kernel has zram — reads of never-written
# zram pages are CPU-light, so the ranks measure iomatrix and MPI rather than a device — else
# loop devices on files in /dev/shm (detached on exit). The same workload (random 4K reads,
# io_uring, direct, queue depth MPI_SCALE_QD, one thread) is run in MPI_SCALE_ROUNDS rounds,
# each round in turn (the pairs alternated, so that what the busy machine does to one side it
# does to the other):
#   - on each device alone, `mpirun -np 1`: the single-rank IOPS of devices 0, 1 and 2;
#   - on ranks 0..N-1 at once, `mpirun -np N` for N = 1, 2, 3, rank k on device k: the aggregate
#     IOPS (summed I/O over the first start to the last end, docs/hosts.md),
# each study MPI_SCALE_REPEAT repetitions; medians over every round. It prints per N the
# aggregate against the sum of the single-rank runs of the same devices, the time each run takes
# beyond its warm-up and measured window (the gap from one run's measured window to the next
# one's start, minus the warm-up: setting the run up, the two sync points with their barriers
# and clock offsets, the gathers and the histogram reduction, recording the result): its median
# under -np N against -np 1 (one rank runs as one host: no collectives) is what the barriers and
# reductions of N ranks add per run; and the median start spread of the ranks' windows
# (start_spread_ns). "ranks:" lists the first run's per-rank IOPS.
#
# Then, unless MPI_SCALE_RATE is 0, the same again with every rank CPU-light: each run offers a
# fixed MPI_SCALE_RATE I/Os per second per rank (rate_iops, rate_scope = "rank"), well inside what
# one rank reaches, so that N ranks need less than the machine's cores even where N is more
# than its cores. There the aggregate over the sum shows what the ranks' windows and the
# collectives lose, not what the ranks' sharing of cores does, and the per-run time is the
# collectives' with no rank starved of a core.
#
# Needs root (zram or loop devices), mpirun and iomatrix-mpi; without them it prints why and
# exits 0 (make bench goes on). Environment: IOMATRIX_MPI (the binary), MPI_SCALE_SECS (measured
# seconds per run, 2), MPI_SCALE_WARMUP (0.5), MPI_SCALE_REPEAT (2), MPI_SCALE_ROUNDS (3),
# MPI_SCALE_QD (16), MPI_SCALE_RATE (the CPU-light pass's IOPS per rank, 20000; 0: no such
# pass), MPI_SCALE_SIZE (each device, 256M), MPI_SCALE_DEV (zram or loop; default
# zram where the kernel has it), MPIRUN_ARGS ("--allow-run-as-root --oversubscribe").
set -u

MPI_BIN=${IOMATRIX_MPI:-build/release/iomatrix-mpi}
SECS=${MPI_SCALE_SECS:-2}
WARM=${MPI_SCALE_WARMUP:-0.5}
REPEAT=${MPI_SCALE_REPEAT:-2}
ROUNDS=${MPI_SCALE_ROUNDS:-3}
QD=${MPI_SCALE_QD:-16}
RATE=${MPI_SCALE_RATE:-20000}
SIZE=${MPI_SCALE_SIZE:-256M}
DEV=${MPI_SCALE_DEV:-$([ -w /sys/class/zram-control/hot_add ] && echo zram || echo loop)}
MPIRUN_ARGS=${MPIRUN_ARGS:---allow-run-as-root --oversubscribe}

command -v mpirun >/dev/null 2>&1 || { echo "mpi_scale: skipped: mpirun is not installed"; exit 0; }
[ -x "$MPI_BIN" ] || { echo "mpi_scale: skipped: no iomatrix-mpi at $MPI_BIN (make mpi)"; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "mpi_scale: skipped: its devices need root"; exit 0; }
[ "$DEV" = zram ] || command -v losetup >/dev/null 2>&1 || { echo "mpi_scale: skipped: losetup is not installed"; exit 0; }
command -v python3 >/dev/null 2>&1 || { echo "mpi_scale: skipped: python3 is not installed"; exit 0; }

DIR=$(mktemp -d /var/tmp/iomatrix-mpi-scale.XXXXXX)
imgs="" loops="" zrams=""
cleanup() {
	for l in $loops; do losetup -d "$l" 2>/dev/null; done
	for i in $imgs; do rm -f "$i"; done
	for z in $zrams; do # only the devices this script hot_added
		echo 1 >"/sys/block/zram$z/reset" 2>/dev/null
		echo "$z" >/sys/class/zram-control/hot_remove 2>/dev/null
	done
	[ -n "${MPI_SCALE_KEEP:-}" ] || rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_vader_backing_directory="$DIR" TMPDIR="$DIR"

for k in 0 1 2; do
	if [ "$DEV" = zram ]; then
		z=$(cat /sys/class/zram-control/hot_add) || { echo "mpi_scale: skipped: no zram device"; exit 0; }
		zrams="$zrams $z"
		echo "$SIZE" >"/sys/block/zram$z/disksize" || { echo "mpi_scale: skipped: zram$z takes no size"; exit 0; }
		ln -s "/dev/zram$z" "$DIR/dev$k"
	else
		img=$(mktemp /dev/shm/iom-mpi-scale.XXXXXX)
		imgs="$imgs $img"
		truncate -s "$SIZE" "$img"
		l=$(losetup -f --show "$img") || { echo "mpi_scale: skipped: no loop device"; exit 0; }
		loops="$loops $l"
		ln -s "$l" "$DIR/dev$k"
	fi
done

# study NAME PATH [RATE]: the matrix of one study on PATH (may hold ${rank}); RATE: each rank
# offers that many I/Os per second (none: a closed loop)
study() {
	cat >"$DIR/$1.cfg" <<CFG
iomatrix = 1;
name = "mpi-scale-$1";
rate_scope = "rank";
targets = ( { label = "dev"; path = "$2"; destructive = true; size = "$SIZE"; } );
workload = { engine = "io_uring"; direct = true; pattern = "random"; block_size = "4K";
             read_pct = 100; queue_depth = $QD; threads = 1;${3:+ rate_iops = $3;} };
timing = { warmup = "${WARM}s"; duration = "${SECS}s"; rest = "0s"; repeat = $REPEAT; };
trace = false;
CFG
}
run() { # NAME NP [ROUND]: the study into DIR/NAME.ROUND
	# shellcheck disable=SC2086
	timeout -k 5 600 mpirun $MPIRUN_ARGS -np "$2" "$MPI_BIN" run "$DIR/$1.cfg" -o "$DIR/$1.${3:-0}" -q \
		>"$DIR/$1.log" 2>&1 || { echo "mpi_scale: $1 (-np $2) failed:"; grep -v -e "^-" -e "^ " -e "^$" -e "mpirun\|job to be\|Process name\|Exit code\|Primary job" "$DIR/$1.log" | head -n 5; }
}
echo "mpi_scale: 4K random reads, io_uring, direct, qd $QD, 1 thread per rank, $DEV devices; $ROUNDS rounds of $REPEAT x (${WARM}s + ${SECS}s) per study, alternated; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
# a first study, not counted: the first of all once read device 0 at a third of the others
study warm "$DIR/dev\${rank}"
run warm 3
# pass PREFIX [RATE]: the six studies of a pass (three single-rank, -np 1, 2, 3), alternated in
# ROUNDS rounds, named PREFIXsingleK and PREFIXnpN
pass() {
	for k in 0 1 2; do study "${1}single$k" "$DIR/dev$k" ${2:+"$2"}; done
	for n in 1 2 3; do study "${1}np$n" "$DIR/dev\${rank}" ${2:+"$2"}; done
	for round in $(seq 1 "$ROUNDS"); do
		for k in 0 1 2; do run "${1}single$k" 1 "$round"; done
		for n in 1 2 3; do run "${1}np$n" "$n" "$round"; done
	done
}
pass ""
[ "$RATE" -gt 0 ] && pass light "$RATE"
python3 - "$DIR" "$WARM" "$RATE" <<'PY'
import glob, json, statistics, sys
d, warm, rate = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
def runs(name):
    out = []
    for rd in sorted(glob.glob("%s/%s.[1-9]*" % (d, name))):
        rs = []
        for f in sorted(glob.glob(rd + "/runs/*.json")):
            r = json.load(open(f))
            if r["status"] == "ok":
                rs.append(r)
        out.append(rs)
    return out
def flat(name):
    return [r for rs in runs(name) for r in rs]
def iops(name):
    v = [r["total"]["iops"] for r in flat(name)]
    return statistics.median(v) if v else float("nan")
def overhead_ms(name):
    gaps = [(b["start_ns"] - a["start_ns"]) / 1e6 - a["elapsed_s"] * 1e3 - warm * 1e3
            for rs in runs(name) for a, b in zip(rs, rs[1:])]
    return statistics.median(gaps) if gaps else float("nan")
def spread_ms(name):
    v = [r.get("start_spread_ns", 0) / 1e6 for r in flat(name)]
    return statistics.median(v) if v else float("nan")
def table(p):
    single = [iops("%ssingle%d" % (p, k)) for k in range(3)]
    for k in range(3):
        print("  device %d alone (-np 1): %10.0f IOPS" % (k, single[k]))
    base = overhead_ms(p + "np1")
    print("  ranks  aggregate IOPS  sum of single-rank  aggregate/sum  per-run time beyond warm-up + window  start spread")
    for n in (1, 2, 3):
        name = "%snp%d" % (p, n)
        agg, s, oh = iops(name), sum(single[:n]), overhead_ms(name)
        rs = flat(name)
        spread = [round(h["iops"]) for h in rs[0].get("hosts", [])] if rs else []
        print("  %5d  %14.0f  %18.0f  %13.3f  %6.1f ms (%+.1f ms against -np 1)  %8.3f ms  ranks: %s" %
              (n, agg, s, agg / s if s else float("nan"), oh, oh - base, spread_ms(name), spread))
print("closed loop (each rank as fast as it can):")
table("")
if rate > 0:
    print("CPU-light (each rank offers %d IOPS):" % rate)
    table("light")
PY
