#!/bin/bash
# SPDX-License-Identifier: MIT
# knobs.sh — what the workload knobs cost, iomatrix beside fio (docs/performance.md, "What the
# knobs cost"): write-through against plain writes on a disk file, a 50/50 4K/64K mix and zipf:1.2
# against plain 4K random reads on a loop device over /dev/shm, and the mix and plain reads again
# on a zram device of its own filled with random data (where /sys/class/zram-control exists;
# tests/bench/targets.sh), where the engine, not a device, is the limit. Each configuration is
# run by both tools in turn, KNOB_PAIRS times (A B A B), KNOB_SECS measured seconds each; the
# medians of IOPS and of CPU µs per I/O are printed, then iomatrix/fio per pair: median (min-max).
# CPU is each tool's whole process, every thread, over its window (tests/bench/cpuwin.py, as in
# make bench). Root (the loop device), fio, python3.
# Environment: IOMATRIX (binary), KNOB_PAIRS (5), KNOB_SECS (3), KNOB_DIR (/var/tmp: the disk).
set -u
IOM=${IOMATRIX:?set IOMATRIX to the iomatrix binary}
PAIRS=${KNOB_PAIRS:-5}
SECS=${KNOB_SECS:-3}
DIR=${KNOB_DIR:-/var/tmp}
die() { echo "knobs: $*" >&2; exit 2; }
command -v fio >/dev/null || die "fio is not installed"
[ "$(id -u)" = 0 ] || die "needs root (a loop device)"
WORK=$(mktemp -d /dev/shm/iom-knobs.XXXXXX) || die "no work directory"
DISK=$DIR/iom-knobs.scratch
LOOP=
CPUWIN=$(cd "$(dirname "$0")" && pwd)/cpuwin.py
. "$(dirname "$0")/targets.sh"
cleanup() { bench_targets_cleanup; [ -n "$LOOP" ] && losetup -d "$LOOP"; rm -rf "$WORK" "$DISK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
truncate -s 1G "$WORK/loop.img" && LOOP=$(losetup -f --show --direct-io=on "$WORK/loop.img") ||
	die "no loop device"
dd if=/dev/zero of="$DISK" bs=1M count=256 oflag=direct status=none || die "cannot fill $DISK"
zram_add 1G random
ZRAM=$BENCH_DEV
[ -n "$ZRAM" ] || echo "knobs: no zram device: the zram rows are left out" >&2

# iom NAME PATH SIZE WORKLOAD [ACCESS]: one iomatrix run; prints "iops cpu_us_per_io"
iom() {
	local name=$1 path=$2 size=$3 wl=$4 acc=${5:-} dest=""
	[ "${path#/dev/}" != "$path" ] && dest="destructive = true;" || dest="size = \"$size\"; overwrite = true;"
	cat >"$WORK/$name.cfg" <<CFG
iomatrix = 1;
name = "$name";
targets = ( { label = "t"; path = "$path"; $dest } );
$acc
workload = { engine = "io_uring"; direct = true; $wl };
timing = { warmup = "1s"; duration = "${SECS}s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
	rm -rf "$WORK/out-$name"
	python3 "$CPUWIN" run "$WORK/$name.tl" "$IOM" run "$WORK/$name.cfg" -o "$WORK/out-$name" -q \
		>"$WORK/$name.log" 2>&1 || { tail -3 "$WORK/$name.log" >&2; echo "nan nan"; return; }
	python3 -c '
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[2]))
import cpuwin
d = json.load(open(sys.argv[1]))
iops = d["total"]["iops"]
cpu, _ = cpuwin.rate(sys.argv[3], d["start_ns"], d["start_ns"] + d["elapsed_s"] * 1e9)
print(iops, cpu * 1e6 / iops if iops else float("nan"))' \
		"$WORK/out-$name/runs/00001.json" "$CPUWIN" "$WORK/$name.tl"
}
# fio_run NAME PATH SIZE ARGS...: one fio run; prints "iops cpu_us_per_io"
fio_run() {
	local name=$1 path=$2 size=$3
	shift 3
	python3 "$CPUWIN" run "$WORK/$name.tl" fio --name="$name" --filename="$path" --size="$size" \
	    --ioengine=io_uring --direct=1 --time_based --ramp_time=1 --runtime="$SECS" \
	    --output-format=json "$@" >"$WORK/$name.json" 2>"$WORK/$name.err" ||
		{ tail -3 "$WORK/$name.err" >&2; echo "nan nan"; return; }
	python3 -c '
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[2]))
import cpuwin
d = json.load(open(sys.argv[1]))
j = d["jobs"][0]
ios = j["read"]["iops"] + j["write"]["iops"]
end = d["timestamp_ms"] * 1e6
cpu, _ = cpuwin.rate(sys.argv[3], end - j["job_runtime"] * 1e6, end)
print(ios, cpu * 1e6 / ios if ios else float("nan"))' "$WORK/$name.json" "$CPUWIN" "$WORK/$name.tl"
}

declare -A R
add() { R[$1]="${R[$1]:-} $2"; }
for i in $(seq 1 "$PAIRS"); do
	echo "round $i of $PAIRS" >&2
	add iom-plainw "$(iom pw "$DISK" 256M 'block_size = "4K"; read_pct = 0; queue_depth = 4;')"
	add fio-plainw "$(fio_run pw "$DISK" 256M --rw=randwrite --bs=4k --iodepth=4)"
	add iom-wt "$(iom wt "$DISK" 256M 'block_size = "4K"; read_pct = 0; queue_depth = 4; write_through = true;')"
	add fio-wt "$(fio_run wt "$DISK" 256M --rw=randwrite --bs=4k --iodepth=4 --sync=dsync)"
	add iom-plainr "$(iom pr "$LOOP" 1G 'block_size = "4K"; read_pct = 100; queue_depth = 32;')"
	add fio-plainr "$(fio_run pr "$LOOP" 1G --rw=randread --bs=4k --iodepth=32)"
	add iom-mix "$(iom mx "$LOOP" 1G 'block_size = "4K"; read_pct = 100; queue_depth = 32; access = "mix";' \
		'access_specs = { mix = ( { share = 50; block_size = "4K"; }, { share = 50; block_size = "64K"; } ); };')"
	add fio-mix "$(fio_run mx "$LOOP" 1G --rw=randread --bssplit=4k/50:64k/50 --iodepth=32)"
	add iom-zipf "$(iom zf "$LOOP" 1G 'block_size = "4K"; read_pct = 100; queue_depth = 32; distribution = "zipf:1.2";')"
	add fio-zipf "$(fio_run zf "$LOOP" 1G --rw=randread --bs=4k --iodepth=32 --random_distribution=zipf:1.2)"
	[ -n "$ZRAM" ] || continue
	add iom-plainr-zram "$(iom prz "$ZRAM" 1G 'block_size = "4K"; read_pct = 100; queue_depth = 32;')"
	add fio-plainr-zram "$(fio_run prz "$ZRAM" 1G --rw=randread --bs=4k --iodepth=32)"
	add iom-mix-zram "$(iom mxz "$ZRAM" 1G 'block_size = "4K"; read_pct = 100; queue_depth = 32; access = "mix";' \
		'access_specs = { mix = ( { share = 50; block_size = "4K"; }, { share = 50; block_size = "64K"; } ); };')"
	add fio-mix-zram "$(fio_run mxz "$ZRAM" 1G --rw=randread --bssplit=4k/50:64k/50 --iodepth=32)"
done
echo "uptime: $(uptime)"
med() { python3 -c 'import sys,statistics as s; v=[float(x) for x in sys.argv[1].split()]; print("%.0f %.2f" % (s.median(v[0::2]), s.median(v[1::2])))' "$1"; }
# ratio IOM FIO: iomatrix/fio per pair, "IOPS median (min-max)  CPU median (min-max)"
ratio() { python3 -c '
import math, sys, statistics as s
a, b = [float(x) for x in sys.argv[1].split()], [float(x) for x in sys.argv[2].split()]
def r(k):
    v = [x / y for x, y in zip(a[k::2], b[k::2]) if y > 0 and not math.isnan(x / y)]
    return "%.3f (%.2f-%.2f)" % (s.median(v), min(v), max(v)) if v else "-"
print("%-18s %s" % (r(0), r(1)))' "$1" "$2"; }
printf '%-10s %-18s %12s %14s\n' tool workload "IOPS (median)" "CPU µs/IO"
for w in plainw wt plainr mix zipf plainr-zram mix-zram; do
	[ -n "${R[iom-$w]:-}" ] || continue
	for t in iom fio; do
		read -r iops cpu <<<"$(med "${R[$t-$w]}")"
		printf '%-10s %-18s %12s %14s\n' "$([ $t = iom ] && echo iomatrix || echo fio)" "$w" "$iops" "$cpu"
	done
done
printf '\niomatrix / fio per pair, median (min-max)\n%-18s %-18s %s\n' workload IOPS "CPU µs/IO"
for w in plainw wt plainr mix zipf plainr-zram mix-zram; do
	[ -n "${R[iom-$w]:-}" ] || continue
	printf '%-18s %s\n' "$w" "$(ratio "${R[iom-$w]}" "${R[fio-$w]}")"
done
