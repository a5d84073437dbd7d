#!/bin/sh
# SPDX-License-Identifier: MIT
# Every malformed matrix under tests/bad/ gets exactly one line on stderr, "FILE:LINE: message",
# with the line and message its first line expects ("# expect: LINE: substring"), and exit 2.
# Then the inputs that are not files of the corpus: a missing file, a directory, a file with a
# NUL byte, and bad command lines.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
n=0
for f in "$TOP"/tests/bad/*.cfg; do
    n=$((n + 1))
    expect=$(sed -n '1s/^# expect: //p' "$f")
    line=${expect%%:*}
    msg=${expect#*: }
    out=$("$IOMATRIX" check "$f" 2>err)
    rc=$?
    got=$(cat err)
    nlines=$(wc -l <err)
    case "$got" in
    "$f:$line: "*"$msg"*) ok=1 ;;
    *) ok=0 ;;
    esac
    if [ "$rc" -ne 2 ] || [ "$ok" -ne 1 ] || [ "$nlines" -ne 1 ] || [ -n "$out" ]; then
        echo "FAIL $(basename "$f"): exit $rc, want 2 and '$f:$line: ...$msg...'"
        echo "     got: $got"
        fail=1
    fi
done
[ "$n" -ge 40 ] || { echo "only $n files in tests/bad (want at least 40)"; fail=1; }

# expect CODE PATTERN CMD...: runs CMD, checks the exit code and that stderr matches PATTERN
expect() {
    code=$1 pattern=$2
    shift 2
    "$@" >out 2>err
    rc=$?
    if [ "$rc" -ne "$code" ] || ! grep -q -- "$pattern" err; then
        echo "FAIL: $* -> exit $rc (want $code), stderr: $(cat err)"
        fail=1
    fi
}

expect 2 "^missing.cfg: cannot read the matrix: No such file or directory$" \
    "$IOMATRIX" check missing.cfg
mkdir adir
expect 2 "^adir: cannot read the matrix: 'adir' is a directory, not a regular file$" "$IOMATRIX" check adir
printf 'iomatrix = 1;\000\n' >nul.cfg
expect 2 "^nul.cfg:1: not a text file" "$IOMATRIX" check nul.cfg
expect 2 "^iomatrix: unknown command 'chek' (did you mean 'check'?)$" "$IOMATRIX" chek x.cfg
expect 2 "^iomatrix: unknown option '--frobnicate' for 'plan'" \
    "$IOMATRIX" plan --frobnicate "$TOP/matrices/quick.cfg"
expect 2 "^iomatrix: option '--format' needs a value" "$IOMATRIX" plan "$TOP/matrices/quick.cfg" --format
expect 2 "^iomatrix: unknown format 'xml' (use text, tsv or json)$" \
    "$IOMATRIX" plan "$TOP/matrices/quick.cfg" --format xml
expect 2 "^iomatrix: 'plan' takes MATRIX (missing)$" "$IOMATRIX" plan
expect 2 "too many arguments" "$IOMATRIX" plan a.cfg b.cfg
expect 2 "^iomatrix: --set needs KEY=VALUE" "$IOMATRIX" check --set block_size "$TOP/matrices/quick.cfg"
expect 2 "quick.cfg: --set blocksize=4K: unknown key 'blocksize' (did you mean 'block_size'?)" \
    "$IOMATRIX" check --set blocksize=4K "$TOP/matrices/quick.cfg"
expect 2 "quick.cfg: --set block_size=3K5: block_size '3K5': unknown unit 'K5'" \
    "$IOMATRIX" check --set block_size=3K5 "$TOP/matrices/quick.cfg"
expect 2 "quick.cfg: --set queue_depth=\[1,: not a value" \
    "$IOMATRIX" check --set 'queue_depth=[1,' "$TOP/matrices/quick.cfg"
expect 2 "^iomatrix: unknown option '--bogus'" "$IOMATRIX" --bogus
expect 2 "^usage: iomatrix COMMAND" "$IOMATRIX"
[ "$fail" -eq 0 ] && echo "$n malformed matrices rejected as expected"
exit "$fail"
