#!/bin/sh
# SPDX-License-Identifier: MIT
# Hooks: a matrix with shell hooks is refused without --allow-hooks (exit 2, saying why);
# `plan` shows the hooks and built-ins; with --allow-hooks they run with their variables, their
# output is kept under DIR/hooks/, and a failing before_run fails its run (with the reason and
# the log) while the sweep goes on. The built-ins drop_caches and precondition run too.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "hooks";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "psync"; direct = false; block_size = [ "4K", "8K", "16K" ];
             read_pct = 50; };
timing = { warmup = "0s"; duration = "100ms"; rest = "0s"; repeat = 1; };
trace = false;
hooks = {
    before_study = "echo study ${study.name} > ${study.dir}/seen.txt";
    before_target = "echo target ${target.label} >> ${study.dir}/seen.txt";
    before_run = "echo run ${run.index} bs=${cell.block_size} >> ${study.dir}/seen.txt; echo to the log; test ${run.index} != 2";
    after_run = "echo after ${run.index} >> ${study.dir}/seen.txt";
    after_study = "echo end >> ${study.dir}/seen.txt";
    drop_caches = true;
    precondition = { pattern = "sequential"; bytes = "2x"; };
};
CFG

"$IOMATRIX" run m.cfg -o refused >refused.out 2>refused.err
rc=$?
[ "$rc" -eq 2 ] || die "a matrix with hooks ran without --allow-hooks (exit $rc)"
grep -q -- "--allow-hooks" refused.err || die "the refusal does not name --allow-hooks: $(cat refused.err)"
[ ! -e refused/runs/00001.json ] || die "runs were made without --allow-hooks"

"$IOMATRIX" plan m.cfg >plan.txt 2>&1 || die "plan failed: $(cat plan.txt)"
grep -q "before_run" plan.txt || die "plan does not show the hooks: $(cat plan.txt)"
grep -q "precondition" plan.txt || die "plan does not show the precondition"

"$IOMATRIX" run m.cfg -o out --allow-hooks >run.out 2>run.err
rc=$?
[ "$rc" -eq 1 ] || die "exit $rc with a failed run, not 1: $(cat run.err)"
cat >want.txt <<'TXT'
study hooks
target a
run 1 bs=4K
after 1
run 2 bs=8K
run 3 bs=16K
after 3
end
TXT
diff want.txt out/seen.txt || die "the hooks did not run as expected"
python3 - <<'PY' || die "results"
import json, sys
r = [json.load(open("out/runs/%05d.json" % i)) for i in (1, 2, 3)]
assert r[0]["status"] == "ok" and r[2]["status"] == "ok", [x["status"] for x in r]
assert r[1]["status"] == "failed", r[1]["status"]
assert "before_run" in r[1]["error"] and "status 1" in r[1]["error"], r[1]["error"]
assert "hooks/00002.before_run.log" in r[1]["error"], r[1]["error"]
PY
grep -q "to the log" out/hooks/00002.before_run.log || die "the failing hook's output is not kept"
[ -f out/hooks/study.before_study.log ] || die "no log of before_study: $(ls out/hooks)"
if [ "$(id -u)" -eq 0 ]; then
    grep -q "precondition target 'a' done: 2097152 bytes" out/journal ||
        die "no precondition of 2 x 1M in the journal: $(grep note out/journal)"
fi
exit $fail
