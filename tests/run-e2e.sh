#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every end-to-end test under tests/e2e/ against $IOMATRIX, each under a timeout, from a
# fresh scratch directory that is removed afterwards. Exit 0 pass, 77 skip, anything else fail.
# Prints a line per test with its seconds, and one closing line, "e2e: N passed, N failed,
# N skipped".
#
# Two phases. First the tests whose script says "# e2e: parallel" (no rate, count or time that
# another program on the machine could disturb; loop devices, mounts, dm devices and MPI jobs of
# their own are fine), E2E_JOBS of them at a time (default 3: most of them wait on short runs,
# not on a CPU), those marked "# e2e: parallel slow" first so that none of them is left running
# alone at the end; then every other test alone, in name order, so that nothing else runs beside
# a test that measures.
set -u
: "${IOMATRIX:?set IOMATRIX to the iomatrix binary}"
top=$(cd "$(dirname "$0")/.." && pwd)
export IOMATRIX TOP="$top"

# run_one NAME: runs tests/e2e/NAME.sh; its exit status, seconds and log into $E2E_RES/NAME.*
run_one() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/iomatrix-e2e.XXXXXX")
    t0=$(date +%s)
    ( cd "$work" && WORK="$work" timeout -k 10 "${E2E_TIMEOUT:-240}" sh "$TOP/tests/e2e/$1.sh" ) \
        >"$E2E_RES/$1.log" 2>&1
    echo $? >"$E2E_RES/$1.rc"
    echo $(($(date +%s) - t0)) >"$E2E_RES/$1.secs"
    rm -rf "$work"
}
# the parallel phase calls this script once per test
if [ "${1:-}" = --one ]; then
    run_one "$2"
    exit 0
fi
E2E_RES=$(mktemp -d "${TMPDIR:-/tmp}/iomatrix-e2e-res.XXXXXX") || exit 2
export E2E_RES
trap 'rm -rf "$E2E_RES"' EXIT
trap 'exit 130' INT TERM

pass=0 fail=0 skip=0 failed=""
# report NAME: its line (and on failure the end of its log), counted
report() {
    rc=$(cat "$E2E_RES/$1.rc" 2>/dev/null || echo 1) secs=$(cat "$E2E_RES/$1.secs" 2>/dev/null || echo 0)
    case $rc in
    0)  pass=$((pass + 1)); echo "PASS $1 (${secs}s)" ;;
    77) skip=$((skip + 1)); echo "SKIP $1: $(tail -n 1 "$E2E_RES/$1.log")" ;;
    *)  fail=$((fail + 1)); failed="$failed $1"; echo "FAIL $1 (exit $rc)"; sed 's/^/    /' "$E2E_RES/$1.log" | tail -n 40 ;;
    esac
}

parallel="" slow="" serial=""
for t in "$top"/tests/e2e/*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    [ "$name" = lib ] && continue # the preamble the scripts source, not a test
    [ -n "${E2E_ONLY:-}" ] && case " $E2E_ONLY " in *" $name "*) ;; *) continue ;; esac
    if grep -q '^# e2e: parallel slow$' "$t"; then
        slow="$slow $name"
    elif grep -q '^# e2e: parallel$' "$t"; then
        parallel="$parallel $name"
    else
        serial="$serial $name"
    fi
done

parallel="$slow$parallel"
if [ -n "$parallel" ]; then
    printf '%s\n' $parallel | xargs -P "${E2E_JOBS:-3}" -n 1 sh "$0" --one
    for name in $parallel; do
        report "$name"
    done
fi
for name in $serial; do
    run_one "$name"
    report "$name"
done
[ -n "$failed" ] && echo "failing end-to-end tests:$failed"
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
