#!/bin/bash
# bench.sh — iomatrix side by side with fio on the same targets (make bench; docs/performance.md).
#
# For every workload and target it runs, BENCH_PAIRS times in turn:
#     iomatrix (default settings: traces on) · fio as users run it · fio tuned
# with the same warm-up and measured window, and prints the median over the rounds of the ratios
# iomatrix/fio for IOPS (MB/s for the 1M sequential workload), CPU µs per I/O and mean latency.
# A ratio > 1 is better for iomatrix in IOPS, worse in CPU and latency.
#
# Targets: "loop" — a loop device on a file in /dev/shm (root only; detached on exit, whatever
# happens), "disk" — a scratch file on the machine's own disk (direct I/O), "null" — the null
# engines (no I/O: each tool's own overhead). Then: traces on vs off, peak RSS of a long vs a short
# run, and the time of `iomatrix plan` of a 100,000-run matrix.
#
# Definitions, the same for both tools:
#   CPU µs per I/O = CPU time (user + system) of the process(es) doing the I/O during the measured
#                    window only / I/Os counted in it. iomatrix: cpu.us_per_io of the run's JSON
#                    (getrusage of the whole process: workers, controller, trace writer); fio: per
#                    job (usr_cpu + sys_cpu) % × job_runtime, summed over the jobs (fio resets its
#                    rusage at the end of ramp_time; the fio parent process is not counted).
#   latency        = mean of submission to completion (iomatrix total.lat_ns.mean; fio lat_ns.mean,
#                    reads and writes weighted by their I/O counts).
#
# Environment: IOMATRIX (the binary), BENCH_SECS (measured seconds per run, default 3),
# BENCH_WARMUP (1), BENCH_PAIRS (rounds, default 3, at least 3 for a median worth the name),
# BENCH_TRACE_PAIRS (traces on/off pairs, default BENCH_PAIRS but at least 7),
# BENCH_IOM_KEYS (top-level matrix keys added to every iomatrix run of the table, e.g.
# 'reap_wait = "1/2";'), BENCH_VARIANT (top-level matrix keys: iomatrix with them against
# iomatrix without, on the loop device (else the disk file), rr4k-qd32, pinned like the table,
# BENCH_TRACE_PAIRS pairs in alternating order),
# BENCH_QUICK=1 (1 s runs, RSS 10 s vs 2 s), BENCH_TARGETS ("loop disk null"),
# BENCH_WORKLOADS (names below, default all), BENCH_DIR (scratch, default /var/tmp/iomatrix-bench;
# the disk target lives there), BENCH_SIZE (target size, 1G), BENCH_PIN (CPU list that
# one-thread workloads of both tools are pinned to with taskset, default the last CPU; "" for
# none),
# BENCH_KEEP=1 keeps the per-run JSON files and the disk target. Every run's figures are left in
# BENCH_DIR/last-rows.tsv (target, workload, tool, IOPS, MB/s, mean latency ns, CPU µs per I/O,
# round, the device's mean read latency ns over the run or 0). A run that fails is reported and left out; its round's ratios are then not formed.
set -u

IOMATRIX=${IOMATRIX:-build/release/iomatrix}
SECS=${BENCH_SECS:-3}
WARM=${BENCH_WARMUP:-1}
PAIRS=${BENCH_PAIRS:-3}
TRACE_PAIRS=${BENCH_TRACE_PAIRS:-$(( PAIRS > 7 ? PAIRS : 7 ))}
IOM_KEYS=${BENCH_IOM_KEYS:-}
VARIANT=${BENCH_VARIANT:-}
TARGETS=${BENCH_TARGETS:-loop disk null}
WORKLOADS=${BENCH_WORKLOADS:-}
DIR=${BENCH_DIR:-/var/tmp/iomatrix-bench}
SIZE=${BENCH_SIZE:-1G}
PIN=${BENCH_PIN-$(( $(nproc) - 1 ))}
RSS_LONG=60
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
WORKLOADS=${WORKLOADS:-$BENCH_DEFAULT_WORKLOADS}

progress() { # a status line on a terminal, nothing in a log
	[ -t 2 ] && printf '\r%-60s\r%s' '' "${1:+bench: $1 }" >&2
	return 0
}

pin() { # pin THREADS CMD... : one-thread workloads run on $PIN (not while NOPIN=1)
	if [ "$1" = 1 ] && [ -n "$PIN" ] && [ "${NOPIN:-0}" != 1 ]; then
		shift
		taskset -c "$PIN" "$@"
	else
		shift
		"$@"
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
	if ! pin "$3" "$IOMATRIX" run "$out.cfg" -o "$out.d" --quiet > "$out.log" 2>&1; then
		echo "bench: iomatrix failed on $tgt/$wl:" >&2
		tail -5 "$out.log" >&2
		return 1
	fi
	python3 - "$out.d/runs/00001.json" "$tgt" "$wl" "$tool" "$ROUND" "$(dev_lat "$before" "$(reads_now "$st")")" >> "$ROWS" <<'EOP' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
if d.get("status") != "ok":
    sys.exit("bench: iomatrix run failed: %s" % d.get("error"))
t = d["total"]
print("\t".join(map(str, [sys.argv[2], sys.argv[3], sys.argv[4],
      t["iops"], t["mb_s"], t["lat_ns"]["mean"], d["cpu"]["us_per_io"], sys.argv[5],
      sys.argv[6]])))
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
	if ! pin "$3" fio "${args[@]}" > "$WORK/$tag.log" 2>&1; then
		echo "bench: fio failed on $tgt/$wl:" >&2
		tail -5 "$WORK/$tag.log" >&2
		return 1
	fi
	python3 - "$WORK/$tag.json" "$tgt" "$wl" "fio-$mode" "$ROUND" "$(dev_lat "$before" "$(reads_now "$st")")" >> "$ROWS" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
iops = mbs = ios = lat = cpu = 0.0
for j in d["jobs"]:
    for k in ("read", "write"):
        s = j[k]
        iops += s["iops"]
        mbs += s["bw_bytes"] / 1e6
        ios += s["total_ios"]
        lat += s["lat_ns"]["mean"] * s["total_ios"]
    cpu += (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * j["job_runtime"] / 1000.0
print("\t".join(map(str, [sys.argv[2], sys.argv[3], sys.argv[4], iops, mbs,
      lat / ios if ios else 0, cpu * 1e6 / ios if ios else 0, sys.argv[5], sys.argv[6]])))
EOP
}

# bench_target TARGET PATH TKEYS ENGINE WORKLOADS...
bench_target() {
	local tgt=$1 path=$2 tkeys=$3 engine=$4 wl i
	shift 4
	for wl in "$@"; do
		for i in $(seq 1 "$PAIRS"); do
			ROUND=$i
			progress "$tgt $wl round $i of $PAIRS"
			# the order rotates every round, so that no tool always follows another
			for k in 0 1 2; do
				case $(( (k + i) % 3 )) in
				0) run_iomatrix "iom-$tgt-$wl-$i" "$tgt" "$path" "$tkeys" "$engine" "$wl" ;;
				1) run_fio "users-$tgt-$wl-$i" "$tgt" "$path" "$engine" "$wl" users ;;
				2) [ "$engine" = null ] ||
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
echo "command: BENCH_SECS=$SECS BENCH_WARMUP=$WARM BENCH_PAIRS=$PAIRS BENCH_TRACE_PAIRS=$TRACE_PAIRS" \
	"BENCH_TARGETS='$TARGETS' BENCH_WORKLOADS='$WORKLOADS' BENCH_PIN='$PIN'" \
	"${IOM_KEYS:+BENCH_IOM_KEYS='$IOM_KEYS' }${VARIANT:+BENCH_VARIANT='$VARIANT' }tests/bench/bench.sh"
echo "$("$IOMATRIX" --version 2>/dev/null | head -1), $(fio --version), kernel $(uname -r)," \
	"$(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

for tgt in $TARGETS; do
	case $tgt in
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
		bench_target loop "$LOOP" "destructive = true;" io_uring $WORKLOADS
		;;
	disk)
		FILE=$DIR/disk.scratch
		# iomatrix creates and fills the file the first time (and marks it as its own).
		matrix "$WORK/mk.cfg" "$FILE" "size = \"$SIZE\"; overwrite = true;" io_uring 4K 1 1 100 random 0.1 false
		"$IOMATRIX" run "$WORK/mk.cfg" -o "$WORK/mk.d" --quiet > "$WORK/mk.log" 2>&1 ||
			{ cat "$WORK/mk.log" >&2; die "cannot prepare '$FILE'"; }
		[ -n "$EXTRA_TGT" ] || { EXTRA_TGT=disk EXTRA_PATH=$FILE EXTRA_KEYS="size = \"$SIZE\"; overwrite = true;"; }
		bench_target disk "$FILE" "size = \"$SIZE\"; overwrite = true;" io_uring $WORKLOADS
		;;
	null)
		bench_target null "$WORK/null.scratch" "size = \"64M\";" null null-qd32
		;;
	*) die "unknown target '$tgt' (loop, disk, null)" ;;
	esac
done

# Traces on (the default) against off, on the engine-bound workload: at least 7 pairs (a few per
# cent is the effect, the noise of one pair is as large), the order swapped every pair, and not
# pinned — pinning the process to one CPU would put the trace writer on the worker's CPU, which
# no iomatrix run does by itself.
if [ -n "$EXTRA_TGT" ]; then
	NOPIN=1
	for i in $(seq 1 "$TRACE_PAIRS"); do
		ROUND=$i
		progress "traces on/off round $i of $TRACE_PAIRS"
		for tr in $( [ $((i % 2)) = 1 ] && echo "true false" || echo "false true"); do
			run_iomatrix "iom-$tr-$EXTRA_TGT-$i" "trace-$EXTRA_TGT" "$EXTRA_PATH" "$EXTRA_KEYS" io_uring rr4k-qd32 "$tr"
		done
	done
	NOPIN=0
	progress ""
fi

# ab_pairs WHAT GROUP PATH TARGET_KEYS ENGINE WORKLOAD A B B_TARGET_KEYS B_KEYS B_TOOL: TRACE_PAIRS
# pairs of run A (TARGET_KEYS, the table's keys) against run B (B_TARGET_KEYS, B_KEYS, results
# under B_TOOL) of GROUP, the order swapped every pair; runs are tagged A-i and B-i.
ab_pairs() {
	local i v
	for i in $(seq 1 "$TRACE_PAIRS"); do
		ROUND=$i
		progress "$1 $i of $TRACE_PAIRS"
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

# Pacing (issue 17, docs/load.md): rr4k-qd32 offered 100K IOPS (rate_iops as a target key)
# against the same unthrottled, the order swapped every pair: IOPS (the paced run's is its
# rate) and CPU µs per I/O, whose difference × 100K says what share of a core pacing adds at
# 100K IOPS. On the loop device (else the disk file), and on the null engine, where nothing but
# the pacer differs (no device, no kernel I/O path whose per-I/O cost depends on the batch).
if [ -n "$EXTRA_TGT" ] && [ "${BENCH_PACE:-1}" = 1 ]; then
	ab_pairs "paced pair" "pace-$EXTRA_TGT" "$EXTRA_PATH" "$EXTRA_KEYS" io_uring rr4k-qd32 \
		"free-$EXTRA_TGT" "pace-$EXTRA_TGT" "$EXTRA_KEYS rate_iops = 100000;" "$IOM_KEYS" iompaced
fi
if [ "${BENCH_PACE:-1}" = 1 ]; then
	ab_pairs "paced null pair" pace-null "$WORK/null.scratch" 'size = "64M";' null null-qd32 \
		free-null pace-null 'size = "64M"; rate_iops = 100000;' "$IOM_KEYS" iompaced
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

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$ROWS" "$PAIRS" "$SECS" "$WARM" "$RSS" "$PLAN" "$LOAD_AFTER" "$VARIANT" "$IOM_KEYS" <<'EOP'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
pairs, secs, warm = sys.argv[2], sys.argv[3], sys.argv[4]
runs = {}
for tgt, wl, tool, iops, mbs, lat, cpu, rnd, devlat in rows:
    # figure 4: the tool's mean latency over the device's own (block layer) mean read latency
    # in the same run, for read-only workloads: what the tool adds, free of the device's
    # run-to-run variation
    rel = float(lat) / float(devlat) if float(devlat) > 0 and "-qd" in wl and wl[:2] in ("rr", "sr") else 0.0
    runs.setdefault((tgt, wl), {}).setdefault(tool, {})[rnd] = (
        float(iops), float(mbs), float(lat), float(cpu), rel)

def med(xs):
    return statistics.median(xs) if xs else float("nan")

def ratios(a, b, k):
    """Per-round ratios a/b of figure k, over the rounds where both tools ran."""
    return [a[r][k] / b[r][k] for r in a if r in b and b[r][k] > 0]

def vals(a, k):
    return [x[k] for x in a.values()]

print("iomatrix / fio, median of per-round ratios (%s rounds of %s s after %s s warm-up)" %
      (pairs, secs, warm))
if sys.argv[9]:
    print("iomatrix with: %s" % sys.argv[9])
print("IOPS: > 1 iomatrix is faster; CPU µs/IO and lat: < 1 iomatrix costs less / is quicker")
print("lat/dev: each tool's mean latency over the device's own mean read latency in the same run")
print("(block layer, /sys/block/*/stat), iomatrix's over fio's: what the tools add, compared")
print()
hdr = "%-6s %-16s %-10s %9s %9s %9s %8s  %10s %8s %9s %7s" % (
    "target", "workload", "vs fio", "IOPS", "CPU/IO", "lat mean", "lat/dev", "iom IOPS",
    "iom µs", "iom lat", "iom/dev")
print(hdr)
print("-" * len(hdr))
for (tgt, wl), t in runs.items():
    if tgt.startswith(("trace-", "variant-")):
        continue
    iom = t.get("iomatrix", {})
    metric = "MB/s" if wl.startswith("sr1m") else "IOPS"
    k = 1 if metric == "MB/s" else 0
    for mode in ("fio-users", "fio-tuned"):
        f = t.get(mode)
        if not f or not iom:
            continue
        label = {"fio-users": "users", "fio-tuned": "tuned"}[mode]
        if tgt == "null":
            label = "null"
        rel = ratios(iom, f, 4)
        iom_rel = [x for x in vals(iom, 4) if x > 0]
        print("%-6s %-16s %-10s %8.3f%s %9.3f %9.3f %8s  %10s %8.3f %8.1fµs %7s" % (
            tgt, wl, label, med(ratios(iom, f, k)), "M" if k else "x",
            med(ratios(iom, f, 3)), med(ratios(iom, f, 2)),
            "%.3f" % med(rel) if rel else "-",
            ("%.1fMB/s" % med(vals(iom, 1))) if k else "%.0fK" % (med(vals(iom, 0)) / 1e3),
            med(vals(iom, 3)), med(vals(iom, 2)) / 1e3,
            "%.3f" % med(iom_rel) if iom_rel else "-"))
print()
def pairs(prefix, a_tool, b_tool, title, how="", goal=""):
    """The A/B pairs of the targets named prefix + target: tool a over tool b, per pair."""
    for (tgt, wl), t in runs.items():
        a, b = t.get(a_tool, {}), t.get(b_tool, {})
        if not tgt.startswith(prefix) or not a or not b:
            continue
        r = ratios(a, b, 0)
        print("%s (%s, %s, %d pairs%s): IOPS %.3f×, CPU/IO %.3f×, lat %.3f×%s" % (
            title, tgt[len(prefix):], wl, len(r), how, med(r), med(ratios(a, b, 3)),
            med(ratios(a, b, 2)), goal))
        print("  per pair: " + " ".join("%.3f" % x for x in r))
        if prefix.startswith("pace"):
            # what pacing adds: (paced − unthrottled) CPU µs per I/O × the paced IOPS, in % of
            # a core, per pair and its median
            add = [(a[k][3] - b[k][3]) * a[k][0] / 1e4 for k in a if k in b]
            print("  CPU µs/IO paced %.3f, unthrottled %.3f (medians); pacing adds %.1f %% of a"
                  " core at %.0fK IOPS (per pair: %s)" % (
                      med(vals(a, 3)), med(vals(b, 3)), med(add), med(vals(a, 0)) / 1e3,
                      " ".join("%.1f" % x for x in add)))

pairs("trace-", "iomatrix", "iomnotr", "traces on / off", ", unpinned", " (goal IOPS ≥ 0.97×)")
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
print("iomatrix plan of %s runs: %.3f s (best of 3; goal < 1 s)%s" % (
    n, float(el), "" if rc == "0" else " — exit status %s" % rc))
EOP
