#!/bin/sh
# SPDX-License-Identifier: MIT
# Messages, each by its exact text: plurals ("1 run into", "1 run ok", "verdict over 1 cell"),
# no empty reason after a colon ("run interrupted: the figures…" when none was recorded), a new
# study into a non-empty directory refused before any "N runs into" line, and `report` of a
# directory that is not a study ("not a results directory: X (no study.json)").
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

cat >one.cfg <<'CFG'
iomatrix = 1;
name = "one";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = "4K"; };
timing = { warmup = "0s"; duration = "0.2s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
"$IOMATRIX" run one.cfg -o r1 >out.txt 2>err.txt || die "run failed: $(cat err.txt)"
grep -qx "one.cfg: 1 run into r1" out.txt || die "no '1 run into': $(head -n 1 out.txt)"
grep -qx "1 run ok, 0 failed; results in r1" out.txt || die "no '1 run ok': $(tail -n 1 out.txt)"
"$IOMATRIX" check one.cfg >out.txt 2>&1 || die "check failed: $(cat out.txt)"
grep -qx "one.cfg: valid, 1 run" out.txt || die "check: $(cat out.txt)"

# two targets, one cell
sed 's/targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );/targets = ( { label = "a"; path = "a.scratch"; size = "1M"; }, { label = "b"; path = "b.scratch"; size = "1M"; } );/' one.cfg >two.cfg
"$IOMATRIX" run two.cfg -o r2 >out.txt 2>err.txt || die "run two failed: $(cat err.txt)"
grep -q "^verdict over 1 cell: won/same/undecided/lost/single run, median margin$" out.txt ||
    die "no 'verdict over 1 cell': $(grep verdict out.txt)"
"$IOMATRIX" report r2 --format md >md.txt || die "report md failed"
grep -q "over 1 cell\." md.txt || die "md: $(grep 'over ' md.txt)"

# a new study into a non-empty directory: refused before anything is said on stdout
"$IOMATRIX" run one.cfg -o r1 >out.txt 2>err.txt && die "a second run into r1 was not refused"
[ -s out.txt ] && die "run printed before refusing: $(cat out.txt)"
grep -qx "iomatrix: results directory 'r1' is not empty (resume it with 'iomatrix resume r1', or choose another with -o)" err.txt ||
    die "refusal: $(cat err.txt)"

# report of a directory that is not a study
mkdir notstudy
"$IOMATRIX" report notstudy >out.txt 2>err.txt && die "report of a non-study succeeded"
grep -qx "iomatrix: not a results directory: notstudy (no study.json)" err.txt ||
    die "report of a non-study: $(cat err.txt)"

# an interrupted run recorded without a reason: no empty reason after a colon
python3 - <<'PY'
import json
p = "r1/runs/00001.json"
r = json.load(open(p))
r["status"] = "interrupted"; r["error"] = ""
json.dump(r, open(p, "w"))
PY
"$IOMATRIX" report r1 --run 1 >out.txt 2>err.txt || die "report --run 1 failed: $(cat err.txt)"
grep -qx "run interrupted: the figures cover part of the window" out.txt ||
    die "interrupted line: $(grep -i interrupted out.txt)"
grep -q "interrupted: :" out.txt && die "an empty reason was printed"
exit $fail
