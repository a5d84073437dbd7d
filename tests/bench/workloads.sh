# SPDX-License-Identifier: MIT
# workloads.sh — the workloads of make bench and make bench-ab, sourced by both (bash).
# The default list of the device targets (loop, disk), the lists of the engine-bound targets
# (zram filled, zram unwritten, the tmpfs file), then: workload NAME -> "bs qd threads read_pct
# pattern" (die: the caller's).
BENCH_DEFAULT_WORKLOADS="rr4k-qd32 rr4k-qd1 rw4k-70-qd32-t2 sr1m-qd8 rw16k-50-qd2-t4"
BENCH_ZRAM_WORKLOADS="rr4k-qd32 rr4k-qd32-t2 rr4k-qd1"
BENCH_ENGINE_WORKLOADS="rr4k-qd32 rr4k-qd32-t2"

workload() {
	case $1 in
	rr4k-qd32) echo "4K 32 1 100 random" ;;
	rr4k-qd1) echo "4K 1 1 100 random" ;;
	rr4k-qd32-t2) echo "4K 32 2 100 random" ;;
	rw4k-70-qd32-t2) echo "4K 32 2 70 random" ;;
	sr1m-qd8) echo "1M 8 1 100 sequential" ;;
	rw16k-50-qd2-t4) echo "16K 2 4 50 random" ;;
	null-qd32) echo "4K 32 1 100 random" ;;
	*) die "unknown workload '$1'" ;;
	esac
}
