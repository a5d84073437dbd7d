#!/bin/sh
# SPDX-License-Identifier: MIT
# The man pages: iomatrix(1), iomatrix-matrix(5) and iomatrix-mpi(1) render without a warning
# (groff -ww, and man --warnings when man is installed); iomatrix(1) has a synopsis line for every command the
# binary lists; the KEYS section of iomatrix-matrix(5) is the binary's `help keys --man`.
# Skips (77) when neither groff nor man is installed.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
m1="$TOP/docs/iomatrix.1"
m5="$TOP/docs/iomatrix-matrix.5"
mmpi="$TOP/docs/iomatrix-mpi.1"
[ -f "$m1" ] && [ -f "$m5" ] && [ -f "$mmpi" ] || { echo "FAIL: man pages missing"; exit 1; }

rendered=0
if command -v groff >/dev/null 2>&1; then
    for m in "$m1" "$m5" "$mmpi"; do
        groff -man -ww -z "$m" 2>warn || die "groff fails on $(basename "$m")"
        [ -s warn ] && die "groff warns on $(basename "$m"): $(head -n 5 warn)"
        groff -man -Tutf8 -P-cbou "$m" 2>/dev/null | grep -q "NAME" || die "$(basename "$m") renders no NAME"
    done
    rendered=1
fi
if command -v man >/dev/null 2>&1; then
    for m in "$m1" "$m5" "$mmpi"; do
        LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" >page 2>warn ||
            die "man -l $(basename "$m") fails: $(head -n 3 warn)"
        [ -s warn ] && die "man warns on $(basename "$m"): $(head -n 5 warn)"
        [ "$(wc -l <page)" -gt 30 ] || die "man -l $(basename "$m") renders $(wc -l <page) lines"
    done
    rendered=1
fi

# every command has its synopsis line
"$IOMATRIX" help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p' >commands
[ -s commands ] || die "no commands from 'iomatrix help'"
while read -r c; do
    grep -q "^\.B iomatrix $c\$" "$m1" || die "iomatrix.1 has no synopsis of '$c'"
done <commands

# and every option of every command is described (diskspd's are DiskSpd's, described in its entry)
while read -r c; do
    [ "$c" = diskspd ] && continue
    for o in $("$IOMATRIX" help "$c" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        roff=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
        grep -q -- "$roff" "$m1" || die "iomatrix.1 does not describe $o of '$c'"
    done
done <commands

# the generated key table is current
sed -n '/^\.\\" keys:begin/,/^\.\\" keys:end/p' "$m5" | sed '1d;$d' >doc-keys
"$IOMATRIX" help keys --man >keys || die "help keys --man"
cmp -s keys doc-keys || die "the KEYS section of iomatrix-matrix.5 is stale: run 'make docs'"
grep -q '^\.B workload\.block_size$' keys || die "help keys --man lacks workload.block_size"

# and so is the list of DiskSpd's flags, from the flags' table
sed -n '/^\.\\" diskspd:begin/,/^\.\\" diskspd:end/p' "$m1" | sed '1d;$d' >doc-diskspd
"$IOMATRIX" help diskspd --man >diskspd || die "help diskspd --man"
cmp -s diskspd doc-diskspd || die "the diskspd flags of iomatrix.1 are stale: run 'make docs'"
grep -q '^\.B \\-b<size>$' diskspd || die "help diskspd --man lacks -b"

[ "$rendered" -eq 1 ] || { [ "$fail" -eq 0 ] && { echo "neither groff nor man is installed"; exit 77; }; }
exit "$fail"
