#!/bin/sh
# SPDX-License-Identifier: MIT
# A hook variable is accepted only where bash, dash and busybox sh keep its value as data. The
# places where bash (as /bin/sh) evaluates a value as arithmetic or as a variable name, which
# runs a $(command) hidden in an array subscript, are refused: `check` names the file, the line
# and the construct, and `run` refuses before any hook runs. Each exploit runs with a results
# directory named x[$(touch PWNED; echo owned >victim)], once with bash, dash and busybox sh
# each bound over /bin/sh in a private mount namespace (a shell not installed is skipped with a
# message): no PWNED file appears and the victim's sha256 is unchanged. An accepted hook in the
# same directory prints ${study.dir} byte for byte under each shell. Needs root (the mount
# namespace); skips otherwise.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for a private mount namespace"
need_cmd sha256sum

# NAME|TEMPLATE|what check must say after '${study.dir}'
cat >exploits <<'EOF'
dollar_bracket|echo $[ ${study.dir} ]|is text in a command with $[…]
backq_dbracket|echo `[[ ${study.dir} -eq 1 ]]`|is inside backquotes
subscript|a[${study.dir}]=1|is in an array subscript (a[…])
test_v|test -v ${study.dir}|follows 'test -v'
bracket_v|[ -v ${study.dir} ]|follows '[ -v'
printf_v|printf -v ${study.dir} %s x|follows 'printf -v'
EOF

# cfg FILE TEMPLATE: a one-run matrix whose before_study hook (line 7) is TEMPLATE
cfg() {
    esc=$(printf '%s' "$2" | sed 's/\\/\\\\/g; s/"/\\"/g')
    cat >"$1" <<EOF
iomatrix = 1;
name = "places";
targets = ( { label = "t"; path = "scratch.dat"; size = "64K"; } );
workload = { engine = "null"; direct = false; block_size = "4K"; };
timing = { warmup = "0s"; duration = "10ms"; rest = "0s"; repeat = 1; };
hooks = {
  before_study = "$esc";
};
EOF
}

echo "a file the exploits would overwrite" >victim
want_sum=$(sha256sum <victim)
dir='x[$(touch PWNED; echo owned >victim)]'

n=0
while IFS='|' read -r name tmpl msg; do
    n=$((n + 1))
    cfg "m_$name.cfg" "$tmpl"
    "$IOMATRIX" check "m_$name.cfg" >out 2>err
    rc=$?
    [ "$rc" -eq 2 ] || die "$name: check accepted '$tmpl' (exit $rc)"
    grep -qF "m_$name.cfg:7: hooks.before_study: '\${study.dir}' $msg" err ||
        die "$name: check does not name the line and the construct: $(cat err)"
done <exploits
[ "$n" -eq 6 ] || die "read $n exploits, not 6"

cfg m_ok.cfg 'printf "%s" "${study.dir}" > "${study.dir}/ok"'
shells=0
for sh in bash dash busybox; do
    sh_path=$(command -v "$sh") || { echo "$sh is not installed: not tried"; continue; }
    # (busybox runs its shell when called as sh)
    if ! unshare -m sh -c 'mount --bind "$1" /bin/sh && /bin/sh -c "exit 0"' sh "$sh_path" 2>err
    then
        echo "cannot bind $sh over /bin/sh in a mount namespace ($(cat err)): not tried"
        continue
    fi
    shells=$((shells + 1))
    while IFS='|' read -r name tmpl msg; do
        rm -rf "$dir"
        unshare -m sh -c 'mount --bind "$1" /bin/sh && exec "$2" run "$3" -o "$4" --allow-hooks -q' \
            sh "$sh_path" "$IOMATRIX" "m_$name.cfg" "$dir" >run.out 2>run.err
        rc=$?
        [ "$rc" -eq 2 ] || die "$sh, $name: run did not refuse '$tmpl' (exit $rc): $(cat run.err)"
        [ -z "$(find . -name PWNED)" ] || die "$sh, $name: a hook ran the command in the directory's name"
        [ "$(sha256sum <victim)" = "$want_sum" ] || die "$sh, $name: the victim file was overwritten"
        rm -f PWNED
        echo "a file the exploits would overwrite" >victim
    done <exploits
    # an accepted place (an argument in "…") runs, and the value comes back byte for byte
    rm -rf "$dir"
    unshare -m sh -c 'mount --bind "$1" /bin/sh && exec "$2" run "$3" -o "$4" --allow-hooks -q' \
        sh "$sh_path" "$IOMATRIX" m_ok.cfg "$dir" >run.out 2>run.err
    rc=$?
    [ "$rc" -eq 0 ] || die "$sh: the accepted hook's sweep exited $rc: $(cat run.err)"
    [ "$(cat "$dir/ok" 2>/dev/null)" = "$dir" ] ||
        die "$sh: the hook printed '$(cat "$dir/ok" 2>/dev/null)', not '$dir'"
    [ -z "$(find . -name PWNED)" ] || die "$sh: the accepted hook ran the command in the name"
    [ "$(sha256sum <victim)" = "$want_sum" ] || die "$sh: the victim file was overwritten"
done
[ "$shells" -ge 1 ] || skip "no shell could be bound over /bin/sh"
[ "$fail" -eq 0 ] && echo "$n exploits refused by check and by run under $shells shells; victim unchanged"
exit "$fail"
