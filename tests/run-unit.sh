#!/bin/sh
# Runs the cmocka unit-test binaries given as arguments from the top of the tree and prints one
# closing line, "unit: N passed, N failed". Exit status is non-zero when any test failed.
set -u
pass=0 fail=0 bad=""
for t in "$@"; do
    out=$("$t" 2>&1); rc=$?
    printf '%s\n' "$out"
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
    if [ "$rc" -ne 0 ]; then
        bad="$bad $(basename "$t")"
        [ -z "$f" ] && fail=$((fail + 1))
    fi
done
[ -n "$bad" ] && echo "failing unit-test binaries:$bad"
echo "unit: $pass passed, $fail failed"
[ -z "$bad" ]
