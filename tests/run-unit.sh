#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the cmocka unit-test binaries given as arguments from the top of the tree, UNIT_JOBS of
# them at a time (default 2: the slowest, test_run, beside the others), prints each one's output
# in the order given and one closing line, "unit: N passed, N failed". Exit status is non-zero
# when any test failed.
set -u
dir=$(mktemp -d "${TMPDIR:-/tmp}/iomatrix-unit.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT
i=0
for t in "$@"; do
    i=$((i + 1))
    printf '%s %s\n' "$i" "$t"
done | xargs -P "${UNIT_JOBS:-2}" -n 2 sh -c '"$2" >"$0/$1.out" 2>&1; echo $? >"$0/$1.rc"' "$dir"
pass=0 fail=0 bad="" i=0
for t in "$@"; do
    i=$((i + 1))
    out=$(cat "$dir/$i.out" 2>/dev/null); rc=$(cat "$dir/$i.rc" 2>/dev/null || echo 1)
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
