#!/bin/sh
# SPDX-License-Identifier: MIT
# Resume under MPI (docs/hosts.md): kill -9 of mpirun in the middle of a 6-run study on 3
# ranks, then `mpirun … iomatrix-mpi resume DIR`: every run exactly once in the journal, every
# run file parses with three host rows, every rank's trace of every run is there. Each
# follower journals in a directory of the study's under $TMPDIR: the resume precondition
# none of the ranks' targets again (one precondition note per rank over both invocations,
# rank 0's journal and each follower's, collected as DIR/journal.rK), and the complete study
# leaves no follower journal behind.
# Skips (77) when mpirun or iomatrix-mpi is missing.
# e2e: parallel slow
. "$TOP/tests/e2e/lib.sh"
need_mpi
command -v pgrep >/dev/null 2>&1 || skip "pgrep is not installed"

cat >k.cfg <<CFG
iomatrix = 1;
name = "hosts-resume";
targets = ( { label = "a"; path = "$WORK/s\${rank}.scratch"; size = "16M"; } );
workload = { engine = "io_uring"; direct = false; pattern = "random"; block_size = "4K";
             read_pct = [70, 100]; queue_depth = 4; threads = 1; };
timing = { warmup = "100ms"; duration = "1s"; rest = "0s"; repeat = 3; };
hooks = { precondition = { pattern = "sequential"; bytes = "1x"; }; };
CFG
TMPDIR=$WORK
export TMPDIR
# the ranks outlive a killed mpirun for a moment: wait for them (by their own command line)
ranks_left() { pgrep -f "$MPI_BIN run $WORK/k.cfg" || true; }
cleanup() {
    for p in $(ranks_left); do kill -9 "$p" 2>/dev/null; done
}
on_exit cleanup

mpirun --allow-run-as-root --oversubscribe -np 3 "$MPI_BIN" run "$WORK/k.cfg" -o out -q >run.txt 2>&1 &
mp=$!
# kill once the study is under way: two runs recorded (up to 120 s: a busy machine, ASan)
for _ in $(seq 1 1200); do
    [ "$(grep -c run-done out/journal 2>/dev/null)" -ge 2 ] 2>/dev/null && break
    sleep 0.1
done
kill -9 "$mp"
wait "$mp" 2>/dev/null
for _ in $(seq 1 300); do [ -z "$(ranks_left)" ] && break; sleep 0.1; done
[ -z "$(ranks_left)" ] || die "the ranks did not end 30 s after mpirun was killed"
cleanup
done_before=$(grep -c run-done out/journal)
[ "$done_before" -lt 6 ] || die "the study finished before the kill: nothing to resume"

mpi -np 3 "$MPI_BIN" resume out -q \
    >resume.txt 2>&1 || die "mpirun resume: $(tail -n 20 resume.txt)"
python3 - out <<'PY' || die "the resumed study is not every run exactly once"
import json, os, sys
d = sys.argv[1]
done = [int(l.split("\t")[2]) for l in open(d + "/journal") if l.split("\t")[1] == "run-done"]
assert sorted(done) == [1, 2, 3, 4, 5, 6], done
for i in range(1, 7):
    r = json.load(open("%s/runs/%05d.json" % (d, i)))
    assert r["status"] == "ok" and [h["rank"] for h in r["hosts"]] == [0, 1, 2], i
    assert r["total"]["ios"] == sum(h["ios"] for h in r["hosts"])
    for k in range(3):
        assert os.path.getsize("%s/traces/%05d.r%d.trace.gz" % (d, i, k)) > 0, (i, k)
PY
python3 - out <<'PY' || die "a rank preconditioned again on resume, or kept no journal"
import sys
d = sys.argv[1]
for k, name in ((0, "journal"), (1, "journal.r1"), (2, "journal.r2")):
    ev = [l.rstrip("\n").split("\t") for l in open("%s/%s" % (d, name))]
    pre = [e for e in ev if e[1] == "note" and e[3].startswith("precondition target 'a' done")]
    runs = sorted(int(e[2]) for e in ev if e[1] == "run-done")
    print("rank", k, "precondition notes", len(pre), "resumes", sum(e[1] == "resume" for e in ev),
          "runs done", runs)
    assert len(pre) == 1, (k, pre)
    assert any(e[1] == "resume" for e in ev), k
    assert set(runs) == set(range(1, 7)), (k, runs)
PY
ls -d "$WORK"/iomatrix-study-* 2>/dev/null && die "a follower's journal outlived the complete study"
for i in 1 2 3 4 5 6; do
    "$IOMATRIX" trace "out/traces/0000$i.r2.trace.gz" -o t.csv 2>err || die "trace run $i rank 2: $(cat err)"
done
echo "runs done before the kill: $done_before"
exit $fail
