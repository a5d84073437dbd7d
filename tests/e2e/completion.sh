#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/iomatrix.bash-completion: sourced in bash, its function completes commands, each
# command's options, matrix keys after --set (from the binary's own key table), presets after
# --preset, formats, and matrix files. Skips (77) without bash.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
command -v bash >/dev/null 2>&1 || skip "no bash"
mkdir -p sub && : >a.cfg && : >b.txt
cat >complete.bash <<'BASH'
. "$TOP/contrib/iomatrix.bash-completion"
fail=0
# comp WANT... -- WORDS...: completes the last word of WORDS; every WANT must be offered
comp() {
    local want=() w
    while [ "$1" != -- ]; do want+=("$1"); shift; done; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=()
    _iomatrix
    for w in "${want[@]}"; do
        case " ${COMPREPLY[*]} " in
        *" $w "*) ;;
        *) echo "FAIL: '${*:2}' offers '${COMPREPLY[*]}', not '$w'"; fail=1 ;;
        esac
    done
}
# none: nothing may be offered
none() {
    COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=()
    _iomatrix
    [ ${#COMPREPLY[@]} -eq 0 ] || { echo "FAIL: '${*:2}' offers '${COMPREPLY[*]}'"; fail=1; }
}
complete -p iomatrix >/dev/null || { echo "FAIL: no 'complete -F' for iomatrix"; fail=1; }
comp new check plan run resume report trace diskspd import help version -- "$IOMATRIX" ""
comp --lenient --format --output -- "$IOMATRIX" import x.fio --
comp report resume -- "$IOMATRIX" re
comp --quiet --no-trace --set --output -- "$IOMATRIX" run x.cfg --
comp --preset -- "$IOMATRIX" new --p
comp atto crystaldiskmark -- "$IOMATRIX" new --preset ""
comp block_size= workload.block_size= timing.repeat= repeat= -- "$IOMATRIX" run a.cfg --set ""
comp workload.queue_depth= -- "$IOMATRIX" plan a.cfg -s workload.q
comp text tsv json -- "$IOMATRIX" plan a.cfg --format ""
comp html md csv -- "$IOMATRIX" report dir --format ""
comp csv fio -- "$IOMATRIX" trace t.gz -f ""
comp target block_size -- "$IOMATRIX" report dir --compare ""
comp a.cfg sub -- "$IOMATRIX" check ""
comp sub -- "$IOMATRIX" report ""
comp -Sh -b --matrix -- "$IOMATRIX" diskspd -
comp keys plan -- "$IOMATRIX" help ""
comp --markdown --man -- "$IOMATRIX" help keys --m
none "$IOMATRIX" check b
# every option the binary lists for a command is offered
for c in new check plan run resume report trace; do
    for o in $("$IOMATRIX" help "$c" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        comp "$o" -- "$IOMATRIX" "$c" --
    done
done
none "$IOMATRIX" report d --run ""
exit $fail
BASH
TOP=$TOP IOMATRIX=$IOMATRIX bash complete.bash
