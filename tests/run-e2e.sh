#!/bin/sh
# Runs every end-to-end test under tests/e2e/ against $IOMATRIX, each under a timeout, from a
# fresh scratch directory that is removed afterwards. Exit 0 pass, 77 skip, anything else fail.
# Prints a line per test with its seconds, and one closing line, "e2e: N passed, N failed,
# N skipped".
set -u
: "${IOMATRIX:?set IOMATRIX to the iomatrix binary}"
top=$(cd "$(dirname "$0")/.." && pwd)
export IOMATRIX TOP="$top"
pass=0 fail=0 skip=0 failed=""
for t in "$top"/tests/e2e/*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    [ "$name" = lib ] && continue # the preamble the scripts source, not a test
    [ -n "${E2E_ONLY:-}" ] && case " $E2E_ONLY " in *" $name "*) ;; *) continue ;; esac
    work=$(mktemp -d "${TMPDIR:-/tmp}/iomatrix-e2e.XXXXXX")
    log="$work.log"
    t0=$(date +%s)
    ( cd "$work" && WORK="$work" timeout -k 10 "${E2E_TIMEOUT:-240}" sh "$t" ) >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    case $rc in
    0)  pass=$((pass + 1)); echo "PASS $name (${secs}s)" ;;
    77) skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$log")" ;;
    *)  fail=$((fail + 1)); failed="$failed $name"; echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$log" | tail -n 40 ;;
    esac
    rm -rf "$work" "$log"
done
[ -n "$failed" ] && echo "failing end-to-end tests:$failed"
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
