#!/bin/sh
# SPDX-License-Identifier: MIT
# The shipped matrices: every one passes `check --matrix-only`, and plain `check` (this machine)
# for those whose scratch files go in the current directory, while the /mnt/... placeholders are
# named on their lines; `plan` of atto.cfg has 21 sizes x 2 directions
# x 2 targets x 3 repetitions = 252 runs, matches the golden TSV, and is the same bytes every
# time in every format; the TSV has a header; docs/matrix.md carries the current key table.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"

for f in "$TOP"/matrices/*.cfg; do
    "$IOMATRIX" check --matrix-only "$f" >out 2>err || die "check --matrix-only $(basename "$f"): $(cat err)"
    grep -q "^$f: valid, [0-9]* runs$" out || die "check --matrix-only $(basename "$f") printed: $(cat out)"
    # and on this machine: the ones with scratch files in the current directory run here; the
    # ones whose paths are /mnt/... placeholders ("edit the paths") are refused, on their lines
    dirs=$(sed -n 's|.*path = "\(/mnt/[^/"]*\)/.*|\1|p' "$f" | sort -u)
    missing=0
    for d in $dirs; do [ -d "$d" ] || missing=$((missing + 1)); done
    if [ "$missing" -eq 0 ]; then
        "$IOMATRIX" check "$f" >out 2>err || die "check $(basename "$f"): $(cat err)"
        grep -q "^$f: valid, [0-9]* runs$" out || die "check $(basename "$f") printed: $(cat out)"
    else
        "$IOMATRIX" check "$f" >out 2>err
        rc=$?
        [ "$rc" -eq 2 ] || die "check $(basename "$f") with its /mnt placeholders: exit $rc, want 2"
        for d in $dirs; do
            [ -d "$d" ] && continue
            line=$(grep -n "path = \"$d/" "$f" | head -n 1 | cut -d: -f1)
            grep -q "^$f:$line: target '[^']*': directory '$d' does not exist" err ||
                die "check $(basename "$f") does not name '$d' on line $line: $(cat err)"
        done
        [ -s out ] && die "check $(basename "$f") printed 'valid' for a matrix this machine cannot run: $(cat out)"
    fi
done

atto="$TOP/matrices/atto.cfg"
"$IOMATRIX" plan "$atto" >plan1.txt 2>err || die "plan atto.cfg: $(cat err)"
"$IOMATRIX" plan "$atto" >plan2.txt 2>err || die "plan atto.cfg: $(cat err)"
cmp -s plan1.txt plan2.txt || die "two plans of atto.cfg differ"
grep -q "^252 runs: 84 cells x 3 repetitions$" plan1.txt || die "atto.cfg plan is not 252 runs"
grep -q "^estimated time: size-bound" plan1.txt || die "atto.cfg estimate is not size-bound"
grep -q "^largest buffer memory per run: 256M " plan1.txt || die "atto.cfg buffer memory"
grep -q "^plan hash: [0-9a-f]\{16\}$" plan1.txt || die "no plan hash"
# the first runs: lsi-sas, writes, 512 bytes, three repetitions, then 1K
sed -n '/^run /,/^$/p' plan1.txt | sed -n '2,5p' | awk '{print $1, $2, $3, $4, $5}' >head.txt
printf '%s\n' "1 1 lsi-sas 0 512" "2 2 lsi-sas 0 512" "3 3 lsi-sas 0 512" "4 1 lsi-sas 0 1K" \
    >want.txt
cmp -s head.txt want.txt || die "atto.cfg order: $(cat head.txt)"

for fmt in tsv json; do
    "$IOMATRIX" plan "$atto" --format "$fmt" >a.$fmt 2>err || die "plan --format $fmt: $(cat err)"
    "$IOMATRIX" plan --format="$fmt" "$atto" >b.$fmt 2>err || die "plan --format=$fmt: $(cat err)"
    cmp -s a.$fmt b.$fmt || die "two $fmt plans of atto.cfg differ"
done
head -n 1 a.tsv | grep -q "^index	repetition	target	block_size	queue_depth	threads	read_pct	pattern	engine	direct	verify	seed$" ||
    die "tsv header: $(head -n 1 a.tsv)"
[ "$(wc -l <a.tsv)" -eq 253 ] || die "tsv has $(wc -l <a.tsv) lines, want 253"
cmp -s a.tsv "$TOP/tests/fixtures/plan/atto.tsv" ||
    die "plan of atto.cfg differs from tests/fixtures/plan/atto.tsv: $(diff a.tsv "$TOP/tests/fixtures/plan/atto.tsv" | head -5)"
grep -q '"count": 252,' a.json || die "json count"

# the same plan from a copy elsewhere (the plan does not depend on the file's path, only its hash line)
cp "$atto" copy.cfg
"$IOMATRIX" plan copy.cfg --format tsv | cmp -s - a.tsv || die "plan depends on the file name"

# --set changes the plan and is checked
"$IOMATRIX" plan "$atto" --set 'block_size=["4K","1M"]' --set repeat=1 --format tsv >set.tsv 2>err ||
    die "plan --set: $(cat err)"
[ "$(wc -l <set.tsv)" -eq 9 ] || die "plan --set gives $(wc -l <set.tsv) lines, want 9"

# the key table in docs/matrix.md is the generated one
"$IOMATRIX" help keys --markdown >keys.md || die "help keys --markdown"
sed -n '/<!-- keys:begin -->/,/<!-- keys:end -->/p' "$TOP/docs/matrix.md" | sed '1d;$d' >doc-keys.md
cmp -s keys.md doc-keys.md || die "docs/matrix.md key table is stale: run 'make docs'"

"$IOMATRIX" --version | grep -q "^iomatrix " || die "--version"
"$IOMATRIX" version | grep -q "^iomatrix " || die "version"
"$IOMATRIX" help plan | grep -q "^usage: iomatrix plan MATRIX" || die "help plan"
"$IOMATRIX" help keys | grep -q "^workload.block_size " || die "help keys"
exit "$fail"
