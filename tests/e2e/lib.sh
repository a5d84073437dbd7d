# SPDX-License-Identifier: MIT
# lib.sh — the preamble every end-to-end script shares, sourced first: . "$TOP/tests/e2e/lib.sh"
# (tests/run-e2e.sh exports TOP, the top of the tree, and IOMATRIX, the binary under test).
#
# It sets -u and a failure counter: die MESSAGE prints "FAIL: MESSAGE" and marks the script
# failed, and the script ends with `exit $fail`. A script that cannot run here skips with
# exit 77 and one line saying why (skip, need_root, need_cmd, need_mpi, need_consumer: the last
# a failure under IOM_E2E_REQUIRE_CONSUMERS=1); one whose later parts need root
# ends there with what passed so far (root_or_finish). on_exit FUNC runs FUNC once however the
# script ends (done, failed, or stopped by INT/TERM from the runner's timeout), so loop
# devices, mounts and /dev/shm files never outlive the test.
set -u
fail=0

# Marks the script failed, saying what went wrong.
die() { echo "FAIL: $*"; fail=1; }

# Skips the script (exit 77) with MESSAGE as its last line.
skip() { echo "$*"; exit 77; }

# Skips unless root; MESSAGE says what needs root.
need_root() { [ "$(id -u)" -eq 0 ] || skip "$1"; }

# Skips unless every COMMAND is installed ("COMMAND is not installed").
need_cmd() {
    for _c in "$@"; do
        command -v "$_c" >/dev/null 2>&1 || skip "$_c is not installed"
    done
}

# The exports' real consumers (docs/interop.md: fio's fio_jsonplus_clat2csv, fio2gnuplot and
# fio_generate_plots, prometheus' promtool) are checked as need_cmd does, and a missing one skips
# the test; with IOM_E2E_REQUIRE_CONSUMERS=1 (.ci/run sets it: it installs them) it fails it
# instead, so that CI cannot pass with those tests skipped. skip_consumer MESSAGE is the same
# for any other thing they need (python3-six).
skip_consumer() {
    if [ "${IOM_E2E_REQUIRE_CONSUMERS:-0}" = 1 ]; then
        echo "FAIL: $* (IOM_E2E_REQUIRE_CONSUMERS=1: the exports' consumers must be installed)"
        exit 1
    fi
    skip "$@"
}
need_consumer() {
    for _c in "$@"; do
        command -v "$_c" >/dev/null 2>&1 || skip_consumer "$_c is not installed"
    done
}

# Ends the script with its result so far when not root: the rest needs root.
root_or_finish() {
    [ "$(id -u)" -eq 0 ] && return 0
    echo "root parts skipped: not root"
    exit "$fail"
}

# Runs CMD (a function name or a command line) when the script exits, also when INT or TERM
# stops it.
on_exit() {
    trap "$1" EXIT
    trap 'exit 1' INT TERM
}

# Skips unless mpirun and the MPI build are there (tests/e2e/mpi_*.sh); sets MPI_BIN (IOMATRIX_MPI,
# else iomatrix-mpi beside IOMATRIX) and the environment every MPI test runs in: Open MPI's own
# allocations not judged by ASan, ranks that yield when idle (2 cores), its shared-memory
# segments and the followers' private directories (a killed rank leaves its own) under the
# test's scratch directory, gone with it even after a kill -9. Then `mpi ARGS…` runs mpirun.
need_mpi() {
    command -v mpirun >/dev/null 2>&1 || skip "mpirun is not installed (apt-get install openmpi-bin)"
    MPI_BIN=${IOMATRIX_MPI:-$(dirname "$IOMATRIX")/iomatrix-mpi}
    [ -x "$MPI_BIN" ] || skip "no iomatrix-mpi at $MPI_BIN (make mpi)"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" OMPI_MCA_mpi_yield_when_idle=1 \
        OMPI_MCA_btl_vader_backing_directory="$WORK"
    export TMPDIR="$WORK"
}
# await_line FILE PATTERN [SECONDS [PID]]: waits until a line of FILE matches PATTERN (grep's
# basic expression), up to SECONDS (default 120: a busy machine, ASan, ranks starting slowly);
# succeeds when one does, fails at the deadline or as soon as process PID has ended. A test
# that times a fault from a line (a run started) says so and stops when the line never came,
# instead of striking at some other moment.
await_line() {
    _al_end=$(($(date +%s) + ${3:-120}))
    until grep -q -- "$2" "$1" 2>/dev/null; do
        if [ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null; then
            grep -q -- "$2" "$1" 2>/dev/null
            return
        fi
        [ "$(date +%s)" -lt "$_al_end" ] || return 1
        sleep 0.05
    done
}
# mpirun ARGS…: as root where the tests run, more ranks than cores, under a timeout
mpi() { timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe "$@"; }

# The machine's load, for the figures that need a quiet machine (a rate, a spread, a gap): sets
# busy_pct to the share of the last 10 s in which a runnable task waited for a CPU (Linux's
# pressure stall information, /proc/pressure/cpu "some avg10"; without it, the 1-minute load
# average per CPU, in %), and succeeds when it is above BUSY_PCT (default 10; a quiet machine
# shows 0-2). Read after the runs whose figures it judges, so it covers them.
machine_busy() {
    if [ -r /proc/pressure/cpu ]; then
        busy_pct=$(awk '/^some/ { sub("avg10=", "", $2); printf "%d", $2 + 0.5 }' /proc/pressure/cpu)
    else
        busy_pct=$(awk -v n="$(nproc)" '{ printf "%d", 100 * $1 / n + 0.5 }' /proc/loadavg)
    fi
    [ "$busy_pct" -gt "${BUSY_PCT:-10}" ]
}

# figure_or_die MESSAGE: a figure that needs a quiet machine missed its bound. On a busy machine
# (machine_busy) it says "skipped: machine too busy (N % CPU pressure): MESSAGE"; otherwise it
# is a failure (die MESSAGE). What holds whatever the load is asserted with die, never this.
figure_or_die() {
    if machine_busy; then
        echo "skipped: machine too busy ($busy_pct % CPU pressure): $*"
    else
        die "$*"
    fi
}
