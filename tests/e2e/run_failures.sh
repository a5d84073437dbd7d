#!/bin/sh
# SPDX-License-Identifier: MIT
# A sweep with one impossible target (its scratch file replaced, after check and preparation
# passed, by a file that is not iomatrix's own: found when the run opens it) records that
# target's run as failed, with the reason, and completes the rest (exit 1). Buffers that cannot
# fit in memory are refused before anything runs. --set overrides are applied and recorded. A
# non-empty results directory is refused.
# Results on the disk under test, with traces on, get a warning.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "failures";
targets = (
  { label = "good"; path = "good.scratch"; size = "64M"; },
  { label = "impossible"; path = "foreign.dat"; size = "64M"; }
);
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = 100; };
timing = { warmup = "0s"; duration = "200ms"; repeat = 1; };
CFG
# a file that is not iomatrix's own: check refuses one that is there before the sweep, so the
# impossible target's before_run hook puts one in place of its prepared scratch file
cp m.cfg appear.cfg
cat >>appear.cfg <<CFG
hooks = { before_run = "test \${target.label} != impossible || { rm -f '$PWD/foreign.dat' && echo data >'$PWD/foreign.dat'; }"; };
CFG
"$IOMATRIX" check appear.cfg >/dev/null 2>err.txt || die "check before the file appears: $(cat err.txt)"
"$IOMATRIX" run appear.cfg -o out --no-trace --allow-hooks >run.txt 2>err.txt
rc=$?
[ -e foreign.dat ] || die "the before_run hook did not write foreign.dat: $(cat err.txt)"
rm -f foreign.dat
[ "$rc" -eq 1 ] || die "exit $rc, want 1"
[ "$(ls out/runs | wc -l)" -eq 2 ] || die "want 2 run files: $(ls out/runs)"
python3 - out <<'PY' || die "run statuses"
import json
a = json.load(open("out/runs/00001.json")); b = json.load(open("out/runs/00002.json"))
assert a["status"] == "ok", a.get("error")
assert b["status"] == "failed" and "foreign.dat" in b["error"], b.get("error")
PY
grep -q "1 run ok, 1 failed" run.txt || die "summary: $(tail -n 2 run.txt)"
grep -q "impossible" err.txt || die "no message about the impossible target: $(cat err.txt)"

# a non-empty results directory is refused
"$IOMATRIX" run m.cfg -o out >/dev/null 2>err.txt; rc=$?
[ "$rc" -ne 0 ] && grep -q "is not empty" err.txt || die "non-empty dir: exit $rc $(cat err.txt)"

# buffers larger than memory are refused before anything runs, with the numbers
"$IOMATRIX" run m.cfg -o big --set block_size=64M --set queue_depth=65536 --set threads=64 \
    >/dev/null 2>err.txt; rc=$?
[ "$rc" -eq 1 ] || die "huge buffers: exit $rc"
grep -q "of I/O buffers (64M × queue depth 65536 × 64 threads)" err.txt ||
    die "huge buffers message: $(cat err.txt)"
[ ! -e big/runs ] || die "the refused sweep created runs/"

# --set is applied and recorded
"$IOMATRIX" run m.cfg -o set --set 'targets=({ label = "only"; path = "good.scratch"; size = "8M"; })' \
    --set read_pct=0 --no-trace >/dev/null 2>err.txt || die "--set run: $(cat err.txt)"
python3 - <<'PY' || die "--set not recorded"
import json
s = json.load(open("set/study.json")); r = json.load(open("set/runs/00001.json"))
assert any("read_pct" in o for o in s["overrides"]), s["overrides"]
assert r["cell"]["read_pct"] == 0 and r["cell"]["target"] == "only", r["cell"]
PY
grep -q "read_pct" set/matrix.cfg || die "matrix.cfg is not the matrix as run"

# results on the same device as a target, with traces on: a warning that says so; none with
# --no-trace, and none with the results elsewhere (a tmpfs, when the scratch is not one)
"$IOMATRIX" run m.cfg -o same --set 'targets=({ label = "t"; path = "good.scratch"; size = "8M"; })' \
    >/dev/null 2>err.txt || die "same-device run: $(cat err.txt)"
grep -q "warning: target 't' and the results in 'same' are on the same device" err.txt ||
    die "no same-device warning: $(cat err.txt)"
"$IOMATRIX" run m.cfg -o same2 --no-trace \
    --set 'targets=({ label = "t"; path = "good.scratch"; size = "8M"; })' >/dev/null 2>err.txt ||
    die "same-device run without traces: $(cat err.txt)"
! grep -q "warning" err.txt || die "warning without traces: $(cat err.txt)"
if [ -d /dev/shm ] && [ "$(stat -c %d /dev/shm)" != "$(stat -c %d .)" ]; then
    other=$(mktemp -d /dev/shm/iomatrix-e2e-out.XXXXXX)
    on_exit 'rm -rf "$other"'
    "$IOMATRIX" run m.cfg -o "$other/r" \
        --set 'targets=({ label = "t"; path = "good.scratch"; size = "8M"; })' >/dev/null 2>err.txt ||
        die "run with results on /dev/shm: $(cat err.txt)"
    rm -rf "$other"
    ! grep -q "warning" err.txt || die "warning with the results elsewhere: $(cat err.txt)"
fi
exit $fail
