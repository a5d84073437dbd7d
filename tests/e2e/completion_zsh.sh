#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/iomatrix.zsh-completion: its function, run by zsh with the completion system's
# builtins recorded (compadd, _files), offers what the bash completion offers: the commands,
# each command's options from the binary, matrix keys after --set, presets, formats, and matrix
# files. Skips (77) without zsh.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
command -v zsh >/dev/null 2>&1 || skip "zsh is not installed"
cat >complete.zsh <<'ZSH'
fail=0
offered=()
compadd() {
    while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -S ]] && shift; shift; done
    [[ $1 == -- ]] && shift
    offered+=("$@")
}
_files() { offered+=("FILES:$*"); }
# comp WANT... -- WORDS...: completes the last word of WORDS; every WANT must be offered
comp() {
    local -a want
    while [[ $1 != -- ]]; do want+=("$1"); shift; done; shift
    words=("$@"); CURRENT=$#; offered=()
    _iomatrix
    for w in $want; do
        (( ${offered[(Ie)$w]} )) || { print "FAIL: '${words[2,-1]}' offers '$offered', not '$w'"; fail=1; }
    done
}
words=("$IOMATRIX" ""); CURRENT=2
. "$TOP/contrib/iomatrix.zsh-completion"
comp new check plan run resume report trace diskspd import help version -- "$IOMATRIX" ""
comp fio diskspd icf -- "$IOMATRIX" import x.fio --format ""
comp --quiet --no-trace --set --output -- "$IOMATRIX" run x.cfg --
comp atto crystaldiskmark -- "$IOMATRIX" new --preset ""
comp block_size= workload.block_size= timing.repeat= repeat= -- "$IOMATRIX" run a.cfg --set ""
comp text tsv json -- "$IOMATRIX" plan a.cfg --format ""
comp html md csv -- "$IOMATRIX" report dir --format ""
comp target block_size -- "$IOMATRIX" report dir --compare ""
comp "FILES:-g *.cfg" -- "$IOMATRIX" check ""
comp "FILES:-/" -- "$IOMATRIX" report ""
comp -Sh -b --matrix -- "$IOMATRIX" diskspd -
comp keys plan -- "$IOMATRIX" help ""
# every option the binary lists for a command is offered
for c in new check plan run resume report trace; do
    for o in $("$IOMATRIX" help "$c" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        comp "$o" -- "$IOMATRIX" "$c" --
    done
done
exit $fail
ZSH
TOP=$TOP IOMATRIX=$IOMATRIX zsh -f complete.zsh || die "the zsh completion"
exit $fail
