# SPDX-License-Identifier: MIT
# targets.sh — the engine-bound targets of make bench, bench-ab and bench-knobs, sourced by
# bench.sh, ab.sh and knobs.sh (bash; root).
#
#   zram_add SIZE FILL    sets BENCH_DEV to a zram device of the bench's own (hot_add on /sys/class/zram-control,
#                         disksize SIZE), filled with random data when FILL is "random" (every
#                         read decompresses a page), left unwritten when "none" (every read is
#                         of a page the driver never stored: the cheapest I/O the kernel does);
#                         BENCH_DEV is empty when zram is not available. The kernel's
#                         zram driver is synchronous and refuses non-blocking submission, so
#                         io_uring runs each read in its worker threads (iou-wrk): a stage
#                         bound by the engine and the tool, not by a device.
#   tmpfs_add SIZE        sets BENCH_DEV to a file of SIZE in /dev/shm filled with random data,
#                         read with O_DIRECT (tmpfs takes it since Linux 6.6): a copy from the
#                         page cache. (Both run in the caller's shell, not in $(…), so that
#                         the cleanup knows what they made.)
#   engine_target TGT SIZE WHO
#                         makes the target TGT of that name (zram, zram-empty, tmpfs) with the
#                         two above; sets BENCH_DEV, BENCH_TKEYS (its matrix target keys) and
#                         BENCH_WLS (its default workloads, workloads.sh's lists); returns 1
#                         after WHO's message on stderr when it cannot be made.
#   bench_targets_cleanup resets and hot_removes every zram device zram_add made, and removes
#                         the tmpfs files; the callers' EXIT trap runs it whatever happened.

BENCH_ZRAMS=
BENCH_SHMS=
BENCH_DEV=

zram_add() {
	local size=$1 fill=$2 id dev
	BENCH_DEV=
	[ -w /sys/class/zram-control/hot_add ] || return 0
	id=$(cat /sys/class/zram-control/hot_add 2>/dev/null) || return 0
	[ -n "$id" ] || return 0
	BENCH_ZRAMS="$BENCH_ZRAMS $id"
	dev=/dev/zram$id
	echo "$size" > "/sys/block/zram$id/disksize" || return 0
	for _ in 1 2 3 4 5 6 7 8 9 10; do [ -b "$dev" ] && break; sleep 0.1; done
	[ -b "$dev" ] || return 0
	if [ "$fill" = random ]; then
		dd if=/dev/urandom of="$dev" bs=1M count=$(( $(blockdev --getsize64 "$dev") >> 20 )) \
			oflag=direct status=none || return 0
	fi
	BENCH_DEV=$dev
}

tmpfs_add() {
	local f
	BENCH_DEV=
	f=$(mktemp /dev/shm/iomatrix-bench-tmpfs.XXXXXX) || return 0
	BENCH_SHMS="$BENCH_SHMS $f"
	dd if=/dev/urandom of="$f" bs=1M count=$(( $(numfmt --from=iec "$1") >> 20 )) \
		status=none || return 0
	BENCH_DEV=$f
}

engine_target() {
	local tgt=$1 size=$2 who=$3
	BENCH_DEV=
	BENCH_TKEYS="destructive = true;"
	BENCH_WLS=$BENCH_ENGINE_WORKLOADS
	case $tgt in
	zram|zram-empty)
		if [ "$(id -u)" != 0 ] || [ ! -d /sys/class/zram-control ]; then
			echo "$who: skipping $tgt: needs root and zram (/sys/class/zram-control)" >&2
			return 1
		fi
		zram_add "$size" "$( [ "$tgt" = zram ] && echo random || echo none)"
		[ "$tgt" = zram ] && BENCH_WLS=$BENCH_ZRAM_WORKLOADS
		;;
	tmpfs)
		tmpfs_add "$size"
		BENCH_TKEYS="size = \"$size\"; overwrite = true;"
		;;
	esac
	[ -n "$BENCH_DEV" ] || { echo "$who: skipping $tgt: it could not be made" >&2; return 1; }
}

bench_targets_cleanup() {
	local id
	for id in $BENCH_ZRAMS; do
		echo 1 > "/sys/block/zram$id/reset" 2>/dev/null
		echo "$id" > /sys/class/zram-control/hot_remove 2>/dev/null
	done
	BENCH_ZRAMS=
	# shellcheck disable=SC2086
	[ -n "$BENCH_SHMS" ] && rm -f $BENCH_SHMS
	BENCH_SHMS=
}
