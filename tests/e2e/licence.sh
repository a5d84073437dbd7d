#!/bin/sh
# SPDX-License-Identifier: MIT
# Licence: LICENSE is the MIT licence, every source, test and script file carries the SPDX line
# "SPDX-License-Identifier: MIT" in its first two lines, and no file claims Numerical Recipes'
# code as its source.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
cd "$TOP" || exit 1
command -v git >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"

grep -q '^MIT License' LICENSE || die "LICENSE is not the MIT licence"
grep -q 'Permission is hereby granted, free of charge' LICENSE || die "LICENSE lacks the MIT grant"

n=0
for f in $(git ls-files -- '*.c' '*.h' '*.sh' '*.py' '*.gp' Makefile .ci/run \
    'contrib/*completion*' | grep -v '^tests/fixtures/'); do
    [ -f "$f" ] || continue
    n=$((n + 1))
    head -n 2 "$f" | grep -q 'SPDX-License-Identifier: MIT' || die "$f: no SPDX line in its first two lines"
done
[ "$n" -gt 100 ] || die "only $n files checked: the file list is wrong"

# (this file names the book, so it is left out of the search)
where="src tests contrib docs README.md :!tests/e2e/licence.sh"
if git grep -q -i 'numerical recipes' -- $where; then
    die "a file still names Numerical Recipes: $(git grep -l -i 'numerical recipes' -- $where | tr '\n' ' ')"
fi
echo "$n files carry the SPDX line"
exit $fail
