#!/bin/bash
# SPDX-License-Identifier: MIT
# ab.sh — one iomatrix build against another on the same targets (make bench-ab;
# docs/performance.md). A change to the hot path or the sweep is compared with the commit before
# it this way: the workloads of bench.sh, each run by build A and build B in turn, the order
# swapped every pair (A B, B A, A B …), and the median over the pairs of the ratios B/A printed
# for IOPS, CPU µs per I/O and mean latency. A ratio above 1 is better for B in IOPS, worse in
# CPU and latency, each with the range (min-max) of the per-pair ratios.
#
# Targets: zram (a zram device of its own, filled with random data) and zram-empty (another,
# unwritten) where /sys/class/zram-control exists, tmpfs (a file in /dev/shm, O_DIRECT) — the
# stages bound by the engine and the tool (tests/bench/targets.sh) — then the loop device, the
# disk file and the null engine.
#
# Environment: AB_A and AB_B (the two binaries; B is "the change"), or AB_REV (a commit: A is
# then built from it in a temporary git worktree, kept as AB_DIR/iomatrix-<commit>), AB_PAIRS (pairs, default 5),
# AB_SECS (measured seconds per run, default 2), AB_WARMUP (1), AB_TARGETS ("zram zram-empty
# tmpfs loop disk null"), AB_WORKLOADS (default all of bench.sh's on loop and disk, its zram and
# engine lists on zram, zram-empty and tmpfs), AB_DIR (scratch, default /var/tmp/iomatrix-ab; the
# disk target lives there), AB_SIZE (1G), AB_PIN (the CPU one-thread workloads are pinned to,
# default the last; "" for none). Every run's figures are left in AB_DIR/ab-rows.tsv.
set -u

B=${AB_B:?set AB_B to the iomatrix binary with the change}
PAIRS=${AB_PAIRS:-5}
SECS=${AB_SECS:-2}
WARM=${AB_WARMUP:-1}
TARGETS=${AB_TARGETS:-zram zram-empty tmpfs loop disk null}
WORKLOADS=${AB_WORKLOADS:-}
DIR=${AB_DIR:-/var/tmp/iomatrix-ab}
SIZE=${AB_SIZE:-1G}
PIN=${AB_PIN-$(( $(nproc) - 1 ))}

die() { echo "ab: $*" >&2; exit 2; }
mkdir -p "$DIR" || die "cannot create '$DIR'"
if [ -z "${AB_A:-}" ] && [ -n "${AB_REV:-}" ]; then
	rev=$(git rev-parse --short "$AB_REV") || die "no commit '$AB_REV'"
	A=$DIR/iomatrix-$rev
	if [ ! -x "$A" ]; then
		tree=$(mktemp -d "$DIR/tree.XXXXXX")
		git worktree add -q --detach "$tree" "$rev" || die "cannot check out $rev"
		make -s -C "$tree" -j2 build/release/iomatrix > "$DIR/build-$rev.log" 2>&1 ||
			{ tail "$DIR/build-$rev.log" >&2; git worktree remove --force "$tree"; die "cannot build $rev"; }
		cp "$tree/build/release/iomatrix" "$A"
		git worktree remove --force "$tree"
	fi
else
	A=${AB_A:?set AB_A to the iomatrix binary before the change, or AB_REV to its commit}
fi
[ -x "$A" ] || die "'$A' is not an executable"
[ -x "$B" ] || die "'$B' is not an executable"
WORK=$(mktemp -d /dev/shm/iomatrix-ab.XXXXXX) || die "cannot make a work directory in /dev/shm"
ROWS=$DIR/ab-rows.tsv
: > "$ROWS"
LOOP= SHM=
cleanup() {
	bench_targets_cleanup
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ -n "$SHM" ] && rm -f "$SHM"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$(dirname "$0")/workloads.sh"
. "$(dirname "$0")/targets.sh"

# one TAG BIN TARGET PATH TKEYS ENGINE WL ROUND — runs BIN once, appends a row
one() {
	local tag=$1 bin=$2 tgt=$3 path=$4 tkeys=$5 engine=$6 wl=$7 round=$8 out
	set -- $(workload "$wl")
	out=$WORK/$tag
	cat > "$out.cfg" <<EOM
iomatrix = 1;
name = "ab";
targets = ( { label = "t"; path = "$path"; $tkeys } );
workload = { engine = "$engine"; block_size = "$1"; queue_depth = $2; threads = $3;
             read_pct = $4; pattern = "$5"; direct = true; };
timing = { warmup = "${WARM}s"; duration = "${SECS}s"; };
EOM
	rm -rf "$out.d"
	if [ "$3" = 1 ] && [ -n "$PIN" ]; then
		taskset -c "$PIN" "$bin" run "$out.cfg" -o "$out.d" --quiet > "$out.log" 2>&1
	else
		"$bin" run "$out.cfg" -o "$out.d" --quiet > "$out.log" 2>&1
	fi || { echo "ab: $tag failed:" >&2; tail -3 "$out.log" >&2; return 1; }
	python3 - "$out.d/runs/00001.json" "$tgt" "$wl" "$tag" "$round" >> "$ROWS" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["total"]
print("\t".join(map(str, [sys.argv[2], sys.argv[3], sys.argv[4].split("-")[0], sys.argv[5],
      t["iops"], t["lat_ns"]["mean"], d["cpu"]["us_per_io"]])))
EOP
	rm -rf "$out.d"
}

# pairs TARGET PATH TKEYS ENGINE WL...
pairs() {
	local tgt=$1 path=$2 tkeys=$3 engine=$4 wl i
	shift 4
	for wl in "$@"; do
		for i in $(seq 1 "$PAIRS"); do
			if [ $((i % 2)) = 1 ]; then
				one "A-$tgt-$wl-$i" "$A" "$tgt" "$path" "$tkeys" "$engine" "$wl" "$i"
				one "B-$tgt-$wl-$i" "$B" "$tgt" "$path" "$tkeys" "$engine" "$wl" "$i"
			else
				one "B-$tgt-$wl-$i" "$B" "$tgt" "$path" "$tkeys" "$engine" "$wl" "$i"
				one "A-$tgt-$wl-$i" "$A" "$tgt" "$path" "$tkeys" "$engine" "$wl" "$i"
			fi
		done
	done
}

echo "iomatrix A/B — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "A: $A ($("$A" --version 2>/dev/null | head -1))"
echo "B: $B ($("$B" --version 2>/dev/null | head -1))"
echo "command: AB_PAIRS=$PAIRS AB_SECS=$SECS AB_WARMUP=$WARM AB_TARGETS='$TARGETS'" \
	"AB_WORKLOADS='$WORKLOADS' AB_PIN='$PIN' tests/bench/ab.sh; kernel $(uname -r)," \
	"$(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg)"

for tgt in $TARGETS; do
	case $tgt in
	zram|zram-empty|tmpfs)
		engine_target "$tgt" "$SIZE" ab || continue
		pairs "$tgt" "$BENCH_DEV" "$BENCH_TKEYS" io_uring ${WORKLOADS:-$BENCH_WLS}
		;;
	loop)
		[ "$(id -u)" = 0 ] || { echo "ab: skipping the loop device: needs root" >&2; continue; }
		SHM=$(mktemp /dev/shm/iomatrix-ab-loop.XXXXXX) || die "cannot create a file in /dev/shm"
		truncate -s "$SIZE" "$SHM"
		LOOP=$(losetup -f --show "$SHM") || { echo "ab: skipping the loop device" >&2; continue; }
		dd if=/dev/urandom of="$LOOP" bs=1M count=$(( $(blockdev --getsize64 "$LOOP") >> 20 )) \
			oflag=direct status=none
		pairs loop "$LOOP" "destructive = true;" io_uring ${WORKLOADS:-$BENCH_DEFAULT_WORKLOADS}
		;;
	disk)
		pairs disk "$DIR/disk.scratch" "size = \"$SIZE\"; overwrite = true;" io_uring \
			${WORKLOADS:-$BENCH_DEFAULT_WORKLOADS}
		;;
	null)
		pairs null "$WORK/null.scratch" "size = \"64M\";" null null-qd32
		;;
	*) die "unknown target '$tgt' (zram, zram-empty, tmpfs, loop, disk, null)" ;;
	esac
done

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); uptime: $(uptime)"
python3 - "$ROWS" <<'EOP'
import collections, statistics, sys
runs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    tgt, wl, build, rnd, iops, lat, cpu = line.split("\t")
    runs[(tgt, wl)].setdefault(rnd, {})[build] = (float(iops), float(lat), float(cpu))
def rng(xs):
    return "%.3f (%.2f-%.2f)" % (statistics.median(xs), min(xs), max(xs))
print("\nB/A: median (min-max) of the per-pair ratios")
print("%-10s %-16s %5s %9s %9s %-17s %-17s %-17s" %
      ("target", "workload", "pairs", "IOPS A", "IOPS B", "IOPS B/A", "CPU B/A", "lat B/A"))
for (tgt, wl), rounds in runs.items():
    pairs = [r for r in rounds.values() if "A" in r and "B" in r]
    if not pairs:
        continue
    med = lambda f: statistics.median(f(p) for p in pairs)
    print("%-10s %-16s %5d %9.0f %9.0f %s %s %s" % (tgt, wl, len(pairs),
          med(lambda p: p["A"][0]), med(lambda p: p["B"][0]),
          rng([p["B"][0] / p["A"][0] for p in pairs]),
          rng([p["B"][2] / p["A"][2] if p["A"][2] else 1 for p in pairs]),
          rng([p["B"][1] / p["A"][1] if p["A"][1] else 1 for p in pairs])))
EOP
