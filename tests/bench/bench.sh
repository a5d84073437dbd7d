#!/bin/bash
# SPDX-License-Identifier: MIT
# bench.sh — iomatrix side by side with fio on the same targets (make bench; docs/performance.md).
#
# For every workload and target it runs, BENCH_PAIRS times in turn:
#     iomatrix (default settings: traces on) · fio as users run it · fio tuned (not at QD1)
# with the same warm-up and measured window, and prints the median and the range (min-max) over
# the rounds of the per-round ratios iomatrix/fio for IOPS (MB/s for the 1M sequential workload),
# CPU µs per I/O, mean latency and p99 latency. A ratio > 1 is better for iomatrix in IOPS,
# worse in CPU and latency.
#
# Targets (tests/bench/targets.sh): "zram" — a zram device of the bench's own (hot_add), filled
# with random data, and "zram-empty" — another, never written (both where /sys/class/zram-control
# exists; reset and hot_removed on exit), "tmpfs" — a file in /dev/shm read with O_DIRECT: the
# stages where the engine and the tool are the limit, not a device (zram's reads run in io_uring's
# worker threads). "loop" — a loop device on a file in /dev/shm (root only; detached on exit,
# whatever happens), "disk" — a scratch file on the machine's own disk (direct I/O), "null" — the
# null engines (no I/O: each tool's own overhead). Then: traces on vs off and the pacer on the
# null engine, peak RSS of a long vs a short run, and the time of `iomatrix plan` of a
# 100,000-run matrix.
#
# Definitions, the same for both tools:
#   CPU µs per I/O = CPU time of the tool's whole process tree — every thread, io_uring's iou-wrk
#                    workers included (tests/bench/cpuwin.py samples /proc/PID/task/*/schedstat
#                    every 50 ms) — over the tool's measured window less 0.15 s at each end, per
#                    second, over the IOPS of the window. iomatrix's window is its run JSON's
#                    start_ns + elapsed_s, fio's the job_runtime that ends at its timestamp_ms.
#                    (fio's own usr_cpu + sys_cpu counts its job thread only and misses the
#                    worker threads; iomatrix's own cpu.us_per_io, getrusage of the process, is
#                    left in the rows beside it.)
#   latency        = mean of submission to completion (iomatrix total.lat_ns.mean; fio lat_ns.mean,
#                    reads and writes weighted by their I/O counts); p99: iomatrix's total p99,
#                    fio's lat p99 (--lat_percentiles=1 with --clat_percentiles=0: fio keeps one
#                    latency histogram either way, as by default, but of the span iomatrix's p99
#                    has, submission included; its default is the completion latency alone).
#
# Environment: IOMATRIX (the binary), BENCH_SECS (measured seconds per run, default 3),
# BENCH_WARMUP (1), BENCH_PAIRS (rounds on the engine-bound and null targets, default 5),
# BENCH_DEVICE_PAIRS (rounds on loop and disk, default 3),
# BENCH_TRACE_PAIRS (traces on/off pairs, default BENCH_PAIRS), BENCH_AB_PAIRS
# (the variant and paced pairs, default BENCH_PAIRS),
# BENCH_IOM_KEYS (top-level matrix keys added to every iomatrix run of the table, e.g.
# 'reap_wait = "1/2";'), BENCH_VARIANT (top-level matrix keys: iomatrix with them against
# iomatrix without, on the loop device (else the disk file), rr4k-qd32, pinned like the table,
# BENCH_TRACE_PAIRS pairs in alternating order),
# BENCH_QUICK=1 (1 s runs, RSS 10 s vs 2 s), BENCH_TARGETS ("zram zram-empty tmpfs loop disk
# null"), BENCH_WORKLOADS (names in workloads.sh, for every device target; default: zram
# BENCH_ZRAM_WORKLOADS, zram-empty and tmpfs BENCH_ENGINE_WORKLOADS, loop and disk
# BENCH_DEVICE_WORKLOADS, else rr4k-qd32 on loop and sr1m-qd8 on disk), BENCH_DEVICE_EXTRAS=1
# (the traces and paced pairs on the loop device, else the disk file, too, and the paced pair
# with pace_tick = "200us"), BENCH_DIR (scratch, default /var/tmp/iomatrix-bench;
# the disk target lives there), BENCH_SIZE (target size, 1G), BENCH_PIN (CPU list that
# one-thread workloads of both tools are pinned to with taskset, default the last CPU; "" for
# none), WAKE_COST (tests/bench/wake_cost: the paced pair's floor, what a timed sleep alone
# costs at the default pace_tick),
# BENCH_KEEP=1 keeps the per-run JSON files and the disk target. Every run's figures are left in
# BENCH_DIR/last-rows.tsv (target, workload, tool, IOPS, MB/s, mean latency ns, CPU µs per I/O
# measured alike, round, the device's mean read latency ns over the run or 0, p99 latency ns,
# the tool's own CPU µs per I/O). A run that fails is reported and left out; its round's ratios
# are then not formed.
set -u

IOMATRIX=${IOMATRIX:-build/release/iomatrix}
SECS=${BENCH_SECS:-3}
WARM=${BENCH_WARMUP:-1}
PAIRS=${BENCH_PAIRS:-5}
DEVICE_PAIRS=${BENCH_DEVICE_PAIRS:-3}
TRACE_PAIRS=${BENCH_TRACE_PAIRS:-$PAIRS}
AB_PAIRS_N=${BENCH_AB_PAIRS:-$PAIRS}
IOM_KEYS=${BENCH_IOM_KEYS:-}
VARIANT=${BENCH_VARIANT:-}
TARGETS=${BENCH_TARGETS:-zram zram-empty tmpfs loop disk null}
WORKLOADS=${BENCH_WORKLOADS:-}
DIR=${BENCH_DIR:-/var/tmp/iomatrix-bench}
SIZE=${BENCH_SIZE:-1G}
PIN=${BENCH_PIN-$(( $(nproc) - 1 ))}
RSS_LONG=30
RSS_SHORT=5
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	SECS=${BENCH_SECS:-1}
	RSS_LONG=10
	RSS_SHORT=2
fi

die() { echo "bench: $*" >&2; exit 1; }
[ -x "$IOMATRIX" ] || die "no iomatrix binary at '$IOMATRIX' (set IOMATRIX)"
command -v fio >/dev/null || die "fio is not installed (apt-get install fio)"
command -v python3 >/dev/null || die "python3 is needed for the arithmetic"
[ "$PAIRS" -ge 1 ] 2>/dev/null || die "BENCH_PAIRS must be a positive integer"
[ "$TRACE_PAIRS" -ge 1 ] 2>/dev/null || die "BENCH_TRACE_PAIRS must be a positive integer"
IOMATRIX=$(cd "$(dirname "$IOMATRIX")" && pwd)/$(basename "$IOMATRIX")

mkdir -p "$DIR" || die "cannot create '$DIR'"
WORK=$(mktemp -d "$DIR/run.XXXXXX") || die "cannot create a scratch directory under '$DIR'"
ROWS=$WORK/rows.tsv
: > "$ROWS"
# iomatrix's results directories (its journal, trace and run files, written while it measures)
# on tmpfs, so that no tool writes to the disk under test during a run: an ext4 journal commit
# for a growing trace file flushes the disk's cache in the middle of a measurement. fio writes
# its JSON at the end.
OUT=$(mktemp -d /dev/shm/iomatrix-bench-out.XXXXXX 2>/dev/null) || OUT=$WORK
LOOP=
SHM=
ROUND=0

cleanup() {
	[ -s "$ROWS" ] && cp "$ROWS" "$DIR/last-rows.tsv"
	bench_targets_cleanup
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ -n "$SHM" ] && rm -f "$SHM"
	if [ "${BENCH_KEEP:-0}" = 1 ]; then
		echo "bench: the disk target is kept as $DIR/disk.scratch" >&2
		echo "bench: results kept in $WORK and $OUT" >&2
	else
		rm -rf "$WORK"
		[ "$OUT" = "$WORK" ] || rm -rf "$OUT"
		rm -f "$DIR/disk.scratch"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

. "$(dirname "$0")/workloads.sh"
. "$(dirname "$0")/targets.sh"
# the device targets' own: 4K random reads on the loop device (bound by its worker), the 1M
# sequential reads on the disk (where a wait for too many lets its queue drain)
LOOP_WORKLOADS=${BENCH_DEVICE_WORKLOADS:-rr4k-qd32}
DISK_WORKLOADS=${BENCH_DEVICE_WORKLOADS:-sr1m-qd8}
CPUWIN=$(cd "$(dirname "$0")" && pwd)/cpuwin.py

progress() { # a status line on a terminal, nothing in a log
	[ -t 2 ] && printf '\r%-60s\r%s' '' "${1:+bench: $1 }" >&2
	return 0
}

# measured THREADS TIMELINE CMD... : CMD under the CPU sampler (cpuwin.py, which runs on any
# CPU); one-thread workloads run on $PIN (not while NOPIN=1)
measured() {
	local threads=$1 tl=$2
	shift 2
	if [ "$threads" = 1 ] && [ -n "$PIN" ] && [ "${NOPIN:-0}" != 1 ]; then
		python3 "$CPUWIN" run "$tl" taskset -c "$PIN" "$@"
	else
		python3 "$CPUWIN" run "$tl" "$@"
	fi
}

# matrix FILE PATH TARGETKEYS ENGINE bs qd threads read_pct pattern SECS [trace [KEYS]]
matrix() {
	cat > "$1" <<EOM
iomatrix = 1;
name = "bench";
trace = ${11:-true};
${12:-}
targets = ( { label = "t"; path = "$2"; $3 } );
workload = { engine = "$4"; block_size = "$5"; queue_depth = $6; threads = $7;
             read_pct = $8; pattern = "$9"; direct = true; };
timing = { warmup = "${WARM}s"; duration = "${10}s"; };
EOM
}

# devstat PATH: the /sys stat file of the block device PATH is, or holds PATH (a partition has
# its own); empty when there is none (the null target).
devstat() {
	local mm
	if [ -b "$1" ]; then
		mm=$(stat -L -c '%t:%T' "$1") || return 0
		mm=$(printf '%d:%d' "0x${mm%:*}" "0x${mm#*:}")
	elif [ -e "$1" ]; then
		mm=$(stat -c '%Hd:%Ld' "$1") || return 0
	else
		return 0
	fi
	[ -r "/sys/dev/block/$mm/stat" ] && echo "/sys/dev/block/$mm/stat"
	return 0
}

# reads_now STATFILE: "reads read-ticks-ms" of the device, "0 0" without one
reads_now() {
	if [ -n "$1" ]; then awk '{print $1, $4}' "$1"; else echo "0 0"; fi
}

# dev_lat "BEFORE" "AFTER": the device's own mean read latency in ns over the interval (the block
# layer's read ticks / reads completed, /sys/block/*/stat), 0 when it did no reads
dev_lat() {
	python3 -c "import sys; a, b = sys.argv[1].split(), sys.argv[2].split(); n = int(b[0]) - int(a[0]); print((int(b[1]) - int(a[1])) * 1e6 / n if n > 0 else 0)" "$1" "$2"
}

# run_iomatrix TAG TARGET PATH TKEYS ENGINE WL [trace [KEYS [TOOL]]] — appends a row
run_iomatrix() {
	local tag=$1 tgt=$2 path=$3 tkeys=$4 engine=$5 wl=$6 trace=${7:-true} keys=${8-$IOM_KEYS}
	local out tool=${9:-iomatrix}
	[ "$trace" = true ] || tool=iomnotr
	set -- $(workload "$wl")
	out=$OUT/$tag
	matrix "$out.cfg" "$path" "$tkeys" "$engine" "$1" "$2" "$3" "$4" "$5" "$SECS" "$trace" "$keys"
	rm -rf "$out.d"
	local st before
	st=$(devstat "$path")
	before=$(reads_now "$st")
	if ! measured "$3" "$out.tl" "$IOMATRIX" run "$out.cfg" -o "$out.d" --quiet > "$out.log" 2>&1; then
		echo "bench: iomatrix failed on $tgt/$wl:" >&2
		tail -5 "$out.log" >&2
		return 1
	fi
	python3 - "$out.d/runs/00001.json" "$tgt" "$wl" "$tool" "$ROUND" "$(dev_lat "$before" "$(reads_now "$st")")" "$out.tl" "$CPUWIN" >> "$ROWS" <<'EOP' || return 1
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[8]))
import cpuwin
d = json.load(open(sys.argv[1]))
if d.get("status") != "ok":
    sys.exit("bench: iomatrix run failed: %s" % d.get("error"))
t = d["total"]
cpu, _ = cpuwin.rate(sys.argv[7], d["start_ns"], d["start_ns"] + d["elapsed_s"] * 1e9)
print("\t".join(map(str, [sys.argv[2], sys.argv[3], sys.argv[4],
      t["iops"], t["mb_s"], t["lat_ns"]["mean"], cpu * 1e6 / t["iops"] if t["iops"] else 0,
      sys.argv[5], sys.argv[6], t["lat_ns"]["percentiles"]["99"], d["cpu"]["us_per_io"]])))
EOP
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$out.d/traces"
}

# run_fio TAG TARGET PATH ENGINE WL MODE(users|tuned) — appends a row
run_fio() {
	local tag=$1 tgt=$2 path=$3 engine=$4 wl=$5 mode=$6 rw bs
	local -a args
	set -- $(workload "$wl")
	bs=$(echo "$1" | tr KM km)
	case $4/$5 in
	100/random) rw=(--rw=randread) ;;
	100/sequential) rw=(--rw=read) ;;
	*/random) rw=(--rw=randrw "--rwmixread=$4") ;;
	*) rw=(--rw=rw "--rwmixread=$4") ;;
	esac
	args=(--name=bench --bs="$bs" --iodepth="$2" --numjobs="$3" "${rw[@]}" --norandommap
	      --randrepeat=0 --time_based --runtime="$SECS" --ramp_time="$WARM"
	      --clat_percentiles=0 --lat_percentiles=1
	      --output-format=json --output="$WORK/$tag.json")
	if [ "$engine" = null ]; then
		args+=(--ioengine=null --size="$SIZE")
	else
		args+=(--ioengine=io_uring --direct=1 --filename="$path" --size="$SIZE")
		[ "$mode" = tuned ] && args+=(--fixedbufs=1 --registerfiles=1
			--iodepth_batch_submit=16 --iodepth_batch_complete_max=32)
	fi
	local st before
	st=$( [ "$engine" = null ] || devstat "$path")
	before=$(reads_now "$st")
	if ! measured "$3" "$WORK/$tag.tl" fio "${args[@]}" > "$WORK/$tag.log" 2>&1; then
		echo "bench: fio failed on $tgt/$wl:" >&2
		tail -5 "$WORK/$tag.log" >&2
		return 1
	fi
	python3 - "$WORK/$tag.json" "$tgt" "$wl" "fio-$mode" "$ROUND" "$(dev_lat "$before" "$(reads_now "$st")")" "$WORK/$tag.tl" "$CPUWIN" >> "$ROWS" <<'EOP'
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[8]))
import cpuwin
d = json.load(open(sys.argv[1]))
iops = mbs = ios = lat = own = p99 = 0.0
runtime = 0
for j in d["jobs"]:
    for k in ("read", "write"):
        s = j[k]
        iops += s["iops"]
        mbs += s["bw_bytes"] / 1e6
        ios += s["total_ios"]
        lat += s["lat_ns"]["mean"] * s["total_ios"]
        pct = s.get("lat_ns", {}).get("percentile", {})
        p99 = max(p99, float(pct.get("99.000000", 0)))
    own += (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * j["job_runtime"] / 1000.0
    runtime = max(runtime, j["job_runtime"])
end = d["timestamp_ms"] * 1e6
cpu, _ = cpuwin.rate(sys.argv[7], end - runtime * 1e6, end)
print("\t".join(map(str, [sys.argv[2], sys.argv[3], sys.argv[4], iops, mbs,
      lat / ios if ios else 0, cpu * 1e6 / iops if iops else 0, sys.argv[5], sys.argv[6], p99,
      own * 1e6 / ios if ios else 0])))
EOP
}

# bench_target TARGET PATH TKEYS ENGINE ROUNDS WORKLOADS...
bench_target() {
	local tgt=$1 path=$2 tkeys=$3 engine=$4 rounds=$5 wl i qd
	shift 5
	for wl in "$@"; do
		qd=$(workload "$wl" | cut -d' ' -f2)
		for i in $(seq 1 "$rounds"); do
			ROUND=$i
			progress "$tgt $wl round $i of $rounds"
			# the order rotates every round, so that no tool always follows another; tuned
			# fio batches, which means nothing at QD1
			for k in 0 1 2; do
				case $(( (k + i) % 3 )) in
				0) run_iomatrix "iom-$tgt-$wl-$i" "$tgt" "$path" "$tkeys" "$engine" "$wl" ;;
				1) run_fio "users-$tgt-$wl-$i" "$tgt" "$path" "$engine" "$wl" users ;;
				2) [ "$engine" = null ] || [ "$qd" = 1 ] ||
					run_fio "tuned-$tgt-$wl-$i" "$tgt" "$path" "$engine" "$wl" tuned ;;
				esac
			done
		done
	done
	progress ""
}

# The target of the trace and RSS checks: the loop device, else the disk file.
EXTRA_TGT=
EXTRA_PATH=
EXTRA_KEYS=

echo "iomatrix bench — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "command: BENCH_SECS=$SECS BENCH_WARMUP=$WARM BENCH_PAIRS=$PAIRS BENCH_DEVICE_PAIRS=$DEVICE_PAIRS" \
	"BENCH_TRACE_PAIRS=$TRACE_PAIRS BENCH_TARGETS='$TARGETS' BENCH_WORKLOADS='$WORKLOADS'" \
	"BENCH_PIN='$PIN'" \
	"${IOM_KEYS:+BENCH_IOM_KEYS='$IOM_KEYS' }${VARIANT:+BENCH_VARIANT='$VARIANT' }tests/bench/bench.sh"
echo "$("$IOMATRIX" --version 2>/dev/null | head -1), $(fio --version), kernel $(uname -r)," \
	"$(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "uptime: $(uptime)"
echo

for tgt in $TARGETS; do
	case $tgt in
	zram|zram-empty|tmpfs)
		engine_target "$tgt" "$SIZE" bench || continue
		bench_target "$tgt" "$BENCH_DEV" "$BENCH_TKEYS" io_uring "$PAIRS" ${WORKLOADS:-$BENCH_WLS}
		;;
	loop)
		if [ "$(id -u)" != 0 ]; then
			echo "bench: skipping the loop device: needs root (losetup)" >&2
			continue
		fi
		SHM=$(mktemp /dev/shm/iomatrix-bench.XXXXXX) || die "cannot create a file in /dev/shm"
		truncate -s "$SIZE" "$SHM" || die "cannot size '$SHM'"
		LOOP=$(losetup -f --show "$SHM") || { echo "bench: skipping the loop device: losetup failed" >&2; continue; }
		# Fill it once so that reads see data, not holes.
		dd if=/dev/urandom of="$LOOP" bs=1M count=$(( $(blockdev --getsize64 "$LOOP") >> 20 )) \
			oflag=direct status=none
		EXTRA_TGT=loop EXTRA_PATH=$LOOP EXTRA_KEYS="destructive = true;"
		bench_target loop "$LOOP" "destructive = true;" io_uring "$DEVICE_PAIRS" \
			${WORKLOADS:-$LOOP_WORKLOADS}
		;;
	disk)
		FILE=$DIR/disk.scratch
		# iomatrix creates and fills the file the first time (and marks it as its own).
		matrix "$WORK/mk.cfg" "$FILE" "size = \"$SIZE\"; overwrite = true;" io_uring 4K 1 1 100 random 0.1 false
		"$IOMATRIX" run "$WORK/mk.cfg" -o "$WORK/mk.d" --quiet > "$WORK/mk.log" 2>&1 ||
			{ cat "$WORK/mk.log" >&2; die "cannot prepare '$FILE'"; }
		[ -n "$EXTRA_TGT" ] || { EXTRA_TGT=disk EXTRA_PATH=$FILE EXTRA_KEYS="size = \"$SIZE\"; overwrite = true;"; }
		bench_target disk "$FILE" "size = \"$SIZE\"; overwrite = true;" io_uring "$DEVICE_PAIRS" \
			${WORKLOADS:-$DISK_WORKLOADS}
		;;
	null)
		bench_target null "$WORK/null.scratch" "size = \"64M\";" null "$PAIRS" null-qd32
		;;
	*) die "unknown target '$tgt' (zram, zram-empty, tmpfs, loop, disk, null)" ;;
	esac
done

# Traces on (the default) against off: at least 7 pairs (a few per cent is the effect, the noise
# of one pair is as large), the order swapped every pair, and not pinned — pinning the process to
# one CPU would put the trace writer on the worker's CPU, which no iomatrix run does by itself. On
# the null engine, where the difference of CPU µs per I/O is what a trace costs per I/O (goal
# ≤ 20 ns), and with BENCH_DEVICE_EXTRAS=1 on the loop device (else the disk file) too.
# trace_pairs GROUP PATH TARGET_KEYS ENGINE WORKLOAD
trace_pairs() {
	local i tr
	NOPIN=1
	for i in $(seq 1 "$TRACE_PAIRS"); do
		ROUND=$i
		progress "traces on/off $1 round $i of $TRACE_PAIRS"
		for tr in $( [ $((i % 2)) = 1 ] && echo "true false" || echo "false true"); do
			run_iomatrix "iom-$tr-$1-$i" "trace-$1" "$2" "$3" "$4" "$5" "$tr"
		done
	done
	NOPIN=0
	progress ""
}
trace_pairs null "$WORK/null.scratch" 'size = "64M";' null null-qd32
if [ -n "$EXTRA_TGT" ] && [ "${BENCH_DEVICE_EXTRAS:-0}" = 1 ]; then
	trace_pairs "$EXTRA_TGT" "$EXTRA_PATH" "$EXTRA_KEYS" io_uring rr4k-qd32
fi

# ab_pairs WHAT GROUP PATH TARGET_KEYS ENGINE WORKLOAD A B B_TARGET_KEYS B_KEYS B_TOOL:
# BENCH_AB_PAIRS (default BENCH_PAIRS) pairs of run A (TARGET_KEYS, the table's keys) against run B (B_TARGET_KEYS, B_KEYS, results
# under B_TOOL) of GROUP, the order swapped every pair; runs are tagged A-i and B-i.
ab_pairs() {
	local i v
	for i in $(seq 1 "$AB_PAIRS_N"); do
		ROUND=$i
		progress "$1 $i of $AB_PAIRS_N"
		for v in $( [ $((i % 2)) = 1 ] && echo "0 1" || echo "1 0"); do
			if [ "$v" = 1 ]; then
				run_iomatrix "$8-$i" "$2" "$3" "$9" "$5" "$6" true "${10}" "${11}"
			else
				run_iomatrix "$7-$i" "$2" "$3" "$4" "$5" "$6" true
			fi
		done
	done
	progress ""
}

# iomatrix with BENCH_VARIANT's keys against iomatrix with BENCH_IOM_KEYS' (the table's), pinned
# as the table is, the order swapped every pair.
if [ -n "$EXTRA_TGT" ] && [ -n "$VARIANT" ]; then
	ab_pairs "variant pair" "variant-$EXTRA_TGT" "$EXTRA_PATH" "$EXTRA_KEYS" io_uring rr4k-qd32 \
		"def-$EXTRA_TGT" "var-$EXTRA_TGT" "$EXTRA_KEYS" "$VARIANT" iomvar
fi

# Pacing (docs/load.md): rr4k-qd32 offered 100K IOPS (rate_iops as a target key)
# against the same unthrottled, the order swapped every pair: IOPS (the paced run's is its
# rate) and CPU µs per I/O, whose difference × 100K says what share of a core pacing adds at
# 100K IOPS. On the loop device (else the disk file), and on the null engine, where nothing but
# the pacer differs (no device, no kernel I/O path whose per-I/O cost depends on the batch).
if [ -n "$EXTRA_TGT" ] && [ "${BENCH_PACE:-1}" = 1 ] && [ "${BENCH_DEVICE_EXTRAS:-0}" = 1 ]; then
	ab_pairs "paced pair" "pace-$EXTRA_TGT" "$EXTRA_PATH" "$EXTRA_KEYS" io_uring rr4k-qd32 \
		"free-$EXTRA_TGT" "pace-$EXTRA_TGT" "$EXTRA_KEYS rate_iops = 100000;" "$IOM_KEYS" iompaced
fi
if [ "${BENCH_PACE:-1}" = 1 ]; then
	ab_pairs "paced null pair" pace-null "$WORK/null.scratch" 'size = "64M";' null null-qd32 \
		free-null pace-null 'size = "64M"; rate_iops = 100000;' "$IOM_KEYS" iompaced
fi
if [ "${BENCH_PACE:-1}" = 1 ] && [ "${BENCH_DEVICE_EXTRAS:-0}" = 1 ]; then
	# the same with pace_tick = "200us": a quarter of the wake-ups, up to 200 µs of issue lag
	ab_pairs "paced null pair (pace_tick 200us)" pace200-null "$WORK/null.scratch" \
		'size = "64M";' null null-qd32 free200-null pace200-null \
		'size = "64M"; rate_iops = 100000; pace_tick = "200us";' "$IOM_KEYS" iompaced
fi

# Peak RSS of a long run against a short one (traces on).
RSS=
if [ -n "$EXTRA_TGT" ] && [ -x /usr/bin/time ]; then
	for s in $RSS_SHORT $RSS_LONG; do
		progress "peak RSS of a $s s run"
		set -- $(workload rr4k-qd32)
		matrix "$WORK/rss$s.cfg" "$EXTRA_PATH" "$EXTRA_KEYS" io_uring "$1" "$2" "$3" "$4" "$5" "$s" true
		/usr/bin/time -f %M -o "$WORK/rss$s.txt" "$IOMATRIX" run "$WORK/rss$s.cfg" \
			-o "$WORK/rss$s.d" --quiet > /dev/null 2>&1 || echo "bench: the RSS run of $s s failed" >&2
		RSS="$RSS $s:$(tail -1 "$WORK/rss$s.txt")"
		rm -rf "$WORK/rss$s.d"
	done
	progress ""
fi

# iomatrix plan of a 100,000-run matrix: 10 × 10 × 10 × 10 cells × 10 repetitions.
cat > "$WORK/plan.cfg" <<EOM
iomatrix = 1;
name = "plan100k";
targets = ( { label = "t"; path = "$WORK/plan.scratch"; size = "1G"; } );
workload = { block_size = [ "4K", "8K", "16K", "32K", "64K", "128K", "256K", "512K", "1M", "2M" ];
             queue_depth = [ 1, 2, 4, 8, 16, 32, 64, 128, 256, 512 ];
             threads = [ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ];
             read_pct = [ 0, 10, 20, 30, 40, 50, 60, 70, 80, 100 ]; };
timing = { warmup = "0s"; duration = "1s"; repeat = 10; };
EOM
PLAN=$(python3 - "$IOMATRIX" "$WORK/plan.cfg" <<'EOP'
import subprocess, sys, time
best = None
for _ in range(3):
    t = time.monotonic()
    p = subprocess.run([sys.argv[1], "plan", sys.argv[2], "--format", "tsv"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    el = time.monotonic() - t
    runs = sum(1 for l in p.stdout.splitlines() if l[:1].isdigit())
    best = el if best is None or el < best else best
print("%d %.3f %d" % (runs, best, p.returncode))
EOP
)

# What one timed wake-up costs this machine, at the default pace_tick's period and on the paced
# runs' CPU: the floor under the paced pairs' CPU (make bench builds wake_cost and passes
# WAKE_COST; without it, no line).
WAKE=
if [ "${BENCH_PACE:-1}" = 1 ] && [ -x "${WAKE_COST:-}" ]; then
	tick=$("$IOMATRIX" help keys | sed -n 's/^workload\.pace_tick .* default \([0-9]*\)us$/\1/p')
	if [ -n "$PIN" ]; then
		WAKE=$(taskset -c "$PIN" "$WAKE_COST" "${tick:-75}" 2 sleep 2>&1)
	else
		WAKE=$("$WAKE_COST" "${tick:-75}" 2 sleep 2>&1)
	fi
fi

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$ROWS" "$PAIRS" "$SECS" "$WARM" "$RSS" "$PLAN" "$LOAD_AFTER" "$VARIANT" "$IOM_KEYS" "$(uptime)" "$WAKE" <<'EOP'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
pairs, secs, warm = sys.argv[2], sys.argv[3], sys.argv[4]
runs = {}
for tgt, wl, tool, iops, mbs, lat, cpu, rnd, devlat, p99, own in rows:
    # figure 4: the tool's mean latency over the device's own (block layer) mean read latency
    # in the same run, for read-only workloads: what the tool adds, free of the device's
    # run-to-run variation
    rel = float(lat) / float(devlat) if float(devlat) > 0 and "-qd" in wl and wl[:2] in ("rr", "sr") else 0.0
    runs.setdefault((tgt, wl), {}).setdefault(tool, {})[rnd] = (
        float(iops), float(mbs), float(lat), float(cpu), rel, float(p99), float(own))

def med(xs):
    return statistics.median(xs) if xs else float("nan")

def ratios(a, b, k):
    """Per-round ratios a/b of figure k, over the rounds where both tools ran."""
    return [a[r][k] / b[r][k] for r in a
            if r in b and b[r][k] > 0 and a[r][k] == a[r][k] and b[r][k] == b[r][k]]

def rng(xs):
    """median (min-max) of per-round ratios"""
    if not xs:
        return "%-17s" % "-"
    return "%.3f (%.2f-%.2f)" % (med(xs), min(xs), max(xs))

def vals(a, k):
    return [x[k] for x in a.values()]

print("iomatrix / fio, median (min-max) of per-round ratios (up to %s rounds of %s s after %s s"
      " warm-up)" % (pairs, secs, warm))
if sys.argv[9]:
    print("iomatrix with: %s" % sys.argv[9])
print("IOPS (MB/s for sr1m): > 1 iomatrix is faster; CPU/IO, lat, p99: < 1 iomatrix costs less"
      " / is quicker")
print("CPU/IO: each tool's whole process, every thread (io_uring's iou-wrk workers included),"
      " over its window")
print("(tests/bench/cpuwin.py), per I/O; lat: mean; p99: iomatrix's p99 over fio's lat p99;"
      " lat/dev: each tool's")
print("mean latency over the device's own mean read latency in the same run, iomatrix's over"
      " fio's")
print()
hdr = "%-10s %-14s %-5s %2s %-17s %-17s %-17s %-17s %7s  %9s %7s %8s" % (
    "target", "workload", "vs", "n", "IOPS", "CPU/IO", "lat mean", "lat p99", "lat/dev",
    "iom IOPS", "iom µs", "iom lat")
print(hdr)
print("-" * len(hdr))
for (tgt, wl), t in runs.items():
    if tgt.startswith(("trace-", "variant-", "pace")):
        continue
    iom = t.get("iomatrix", {})
    k = 1 if wl.startswith("sr1m") else 0
    for mode in ("fio-users", "fio-tuned"):
        f = t.get(mode)
        if not f or not iom:
            continue
        label = {"fio-users": "users", "fio-tuned": "tuned"}[mode]
        if tgt == "null":
            label = "null"
        r = ratios(iom, f, k)
        rel = ratios(iom, f, 4)
        print("%-10s %-14s %-5s %2d %s %s %s %s %7s  %9s %7.3f %7.1fµs" % (
            tgt, wl, label, len(r), rng(r), rng(ratios(iom, f, 3)), rng(ratios(iom, f, 2)),
            rng(ratios(iom, f, 5)), "%.3f" % med(rel) if rel else "-",
            ("%.1fMB/s" % med(vals(iom, 1))) if k else "%.0fK" % (med(vals(iom, 0)) / 1e3),
            med(vals(iom, 3)), med(vals(iom, 2)) / 1e3))
print()
print("fio's own usr_cpu + sys_cpu per I/O against the same fio runs' whole process (median):"
      " " + ", ".join("%s/%s %.2f of %.2f µs" % (tgt, wl, med(vals(f, 6)), med(vals(f, 3)))
                       for (tgt, wl), t in runs.items() for m, f in t.items()
                       if m == "fio-users" and not tgt.startswith(("trace-", "pace"))))
print()

def pairs(prefix, a_tool, b_tool, title, how="", goal=""):
    """The A/B pairs of the targets named prefix + target: tool a over tool b, per pair."""
    for (tgt, wl), t in runs.items():
        a, b = t.get(a_tool, {}), t.get(b_tool, {})
        if not tgt.startswith(prefix) or not a or not b:
            continue
        r = ratios(a, b, 0)
        print("%s (%s, %s, %d pairs%s): IOPS %s×, CPU/IO %s×, lat %s×%s" % (
            title, tgt[len(prefix):], wl, len(r), how, rng(r), rng(ratios(a, b, 3)),
            rng(ratios(a, b, 2)), goal))
        print("  per pair: " + " ".join("%.3f" % x for x in r))
        if prefix == "trace-":
            # what a trace costs per I/O: the CPU ns per I/O with it over without, per pair
            add = [(a[k][3] - b[k][3]) * 1e3 for k in a if k in b]
            print("  traces cost %.1f ns of CPU per I/O (min %.1f, max %.1f; goal ≤ 20 on the null"
                  " engine)" % (med(add), min(add), max(add)))
        if prefix.startswith("pace"):
            # what pacing adds: (paced − unthrottled) CPU µs per I/O × the paced IOPS, in % of
            # a core, per pair and its median
            add = [(a[k][3] - b[k][3]) * a[k][0] / 1e4 for k in a if k in b]
            print("  CPU µs/IO paced %.3f, unthrottled %.3f (medians); pacing adds %.1f %% of a"
                  " core at %.0fK IOPS (min %.1f, max %.1f; goal ≤ 10 with the default tick)" % (
                      med(vals(a, 3)), med(vals(b, 3)), med(add), med(vals(a, 0)) / 1e3,
                      min(add), max(add)))
            if prefix == "pace-" and sys.argv[11]:
                print("  the floor, a timed sleep alone: " + sys.argv[11])

pairs("trace-", "iomatrix", "iomnotr", "traces on / off", ", unpinned")
pairs("variant-", "iomvar", "iomatrix", "iomatrix with %s / without" % sys.argv[8])
pairs("pace-", "iompaced", "iomatrix", "paced at 100K IOPS / unthrottled")
pairs("pace200-", "iompaced", "iomatrix", "paced at 100K IOPS, pace_tick 200us / unthrottled")
rss = dict(x.split(":") for x in sys.argv[5].split())
if len(rss) == 2:
    (s1, k1), (s2, k2) = sorted(rss.items(), key=lambda kv: int(kv[0]))
    d = int(k2) - int(k1)
    print("peak RSS: %s s run %s KiB, %s s run %s KiB, difference %+d KiB (goal within 1024)" %
          (s1, k1, s2, k2, d))
n, el, rc = sys.argv[6].split()
print("load average after: %s" % sys.argv[7])
print("uptime after: %s" % sys.argv[10])
print("iomatrix plan of %s runs: %.3f s (best of 3; goal < 1 s)%s" % (
    n, float(el), "" if rc == "0" else " — exit status %s" % rc))
EOP
