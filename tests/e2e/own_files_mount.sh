#!/bin/sh
# SPDX-License-Identifier: MIT
# A bind mount over a running sweep's results directory (docs/hardening.md, "Its own files",
# case 8): the sweep, which holds its directory open and pinned, notices before its next run,
# writes nothing into the directory mounted over it and exits 1 naming it. The victim files
# of the other directory (runs/00003.json, summary.csv) keep their sha256. Needs root.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_root "a bind mount needs root"

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "pinned";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = "4K"; };
timing = { warmup = "0s"; duration = "400ms"; rest = "0s"; repeat = 4; };
trace = false;
CFG
mkdir -p d other/runs
printf 'precious run\n' >other/runs/00003.json
printf 'precious summary\n' >other/summary.csv
before=$(cat other/runs/00003.json other/summary.csv | sha256sum)
mounted=0
cleanup() { [ "$mounted" -eq 0 ] || umount d 2>/dev/null; }
on_exit cleanup

"$IOMATRIX" run m.cfg -o d -q >run.out 2>run.err </dev/null &
pid=$!
for _ in $(seq 200); do [ -f d/runs/00001.json ] && break; sleep 0.05; done
[ -f d/runs/00001.json ] || die "the sweep recorded no first run"
mount --bind other d && mounted=1
wait "$pid"
rc=$?
umount d && mounted=0
[ "$rc" -eq 1 ] || die "exit $rc after its directory was mounted over, want 1: $(cat run.err)"
grep -q "'d' is no longer the directory this sweep opened" run.err ||
	die "the message does not name the directory: $(cat run.err)"
after=$(cat other/runs/00003.json other/summary.csv | sha256sum)
[ "$before" = "$after" ] || die "the sweep wrote into the directory mounted over its own"
[ "$(ls other/runs)" = "00003.json" ] || die "the sweep left files in the other directory: $(ls other/runs)"
n=$(ls d/runs | grep -c '\.json$')
[ "$n" -ge 1 ] && [ "$n" -lt 4 ] || die "its own directory holds $n run files"
exit $fail
