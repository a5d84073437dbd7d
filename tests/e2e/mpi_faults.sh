#!/bin/sh
# SPDX-License-Identifier: MIT
# A fault on one rank under MPI (docs/hosts.md): rank 1's scratch file is replaced during the
# first of three runs; its later runs fail on it (the target is no longer what was prepared),
# and each such run is recorded failed naming rank 1 and its host, while ranks 0 and 2 measure
# on and their rows keep their figures.
# Then a lost rank: SIGSTOP of a follower, and of rank 0, in the middle of a run. The ranks
# still alive fail that run within its deadline (twice the run's watchdog plus 10 s) naming the
# stopped rank and its host, the job ends instead of waiting for ever, and `resume` carries on.
# Skips (77) when mpirun or iomatrix-mpi is missing.
# e2e: parallel slow
. "$TOP/tests/e2e/lib.sh"
need_mpi
command -v pgrep >/dev/null 2>&1 || skip "pgrep is not installed"

# the ranks of this test's jobs (their own command line), and the ones it stopped
job_pids() { pgrep -f "$MPI_BIN (run|resume) $WORK/" || true; }
stopped=""
cleanup() {
    for p in $stopped; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
    for p in $(job_pids); do kill -9 "$p" 2>/dev/null; done
}
on_exit cleanup

cat >f.cfg <<CFG
iomatrix = 1;
name = "hosts-fault";
targets = ( { label = "a"; path = "$WORK/s\${rank}.scratch"; size = "8M"; } );
workload = { engine = "psync"; direct = false; pattern = "random"; block_size = "4K";
             read_pct = 100; queue_depth = 1; threads = 1; };
timing = { warmup = "100ms"; duration = "1500ms"; rest = "0s"; repeat = 3; };
trace = false;
CFG
mpi -np 3 "$MPI_BIN" run f.cfg -o out -q \
    >run.txt 2>&1 &
mp=$!
await_line out/journal "run-start	1" 120 "$mp" ||
    die "run 1 did not start within 120 s: $(tail -n 20 run.txt)"
sleep 0.5
# another file under the same name: rank 1's next open sees it is not the one prepared
rm -f s1.scratch && head -c 8388608 /dev/zero >s1.scratch
wait "$mp"
python3 - out <<'PY' || die "a failed rank is not recorded as such: $(tail -n 20 run.txt)"
import json, sys
d = sys.argv[1]
r1 = json.load(open(d + "/runs/00001.json"))
assert r1["status"] == "ok", r1["error"]
for i in (2, 3):
    r = json.load(open("%s/runs/%05d.json" % (d, i)))
    assert r["status"] == "failed", (i, r["status"])
    assert "rank 1 (host " in r["error"], r["error"]
    rows = {h["rank"]: h for h in r["hosts"]}
    assert rows[1]["status"] == "failed" and rows[1]["ios"] == 0, rows[1]
    for k in (0, 2):  # the others measured on, their data kept
        assert rows[k]["status"] == "ok" and rows[k]["ios"] > 0, rows[k]
    assert r["total"]["ios"] == rows[0]["ios"] + rows[2]["ios"]
PY

# lost_pids R: the ranks of the job that loses rank R (its command line names its directory)
lost_pids() { pgrep -f "$MPI_BIN (run $WORK/st$1.cfg -o |resume $WORK/)lost$1( |\$)" || true; }
# rank_pid R: the pid of rank R of the job that loses it
rank_pid() {
    for p in $(lost_pids "$1"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxE "(OMPI_COMM_WORLD_RANK|PMI_RANK)=$1" &&
            { echo "$p"; return 0; }
    done
    return 1
}

# lost R: rank R stopped 0.5 s into run 2 of 3; the job must end within 60 s of the stop.
# Each lost rank's job has a matrix and scratch files of its own, so both can run at once.
lost() {
    cat >"st$1.cfg" <<CFG
iomatrix = 1;
name = "hosts-lost";
targets = ( { label = "a"; path = "$WORK/lost$1-\${rank}.scratch"; size = "8M"; } );
workload = { engine = "psync"; direct = false; pattern = "random"; block_size = "4K";
             read_pct = 100; queue_depth = 1; threads = 1; };
timing = { warmup = "100ms"; duration = "1500ms"; rest = "0s"; repeat = 3; timeout = "3s"; };
trace = false;
CFG
    rm -rf "lost$1"
    mpi -np 3 "$MPI_BIN" run "$WORK/st$1.cfg" -o "lost$1" -q >"lost$1.txt" 2>&1 &
    mp=$!
    # the stop must fall in run 2: a job slow to start (ASan, a busy machine) is waited for
    await_line "lost$1/journal" "run-start	2" 120 "$mp" ||
        { die "rank $1: run 2 did not start within 120 s: $(tail -n 20 "lost$1.txt")"; return; }
    sleep 0.5
    pid=$(rank_pid "$1") || { die "rank $1 not found"; return; }
    kill -STOP "$pid"
    stopped="$stopped $pid"
    t0=$(date +%s)
    rc=0
    # the mpi wrapper's own timeout (120 s) ends a hang; 60 s is the bound asserted
    wait "$mp" || rc=$?
    secs=$(($(date +%s) - t0))
    kill -CONT "$pid" 2>/dev/null
    kill -9 "$pid" 2>/dev/null
    for _ in $(seq 1 100); do [ -z "$(lost_pids "$1")" ] && break; sleep 0.1; done
    echo "rank $1 stopped: the job ended after ${secs} s, exit $rc"
    [ "$rc" -ne 0 ] || die "rank $1 stopped: the job exited 0"
    [ "$rc" -ne 124 ] && [ "$secs" -le 60 ] ||
        die "rank $1 stopped: the job did not end within 60 s ($secs s, exit $rc)"
    grep -q "rank $1 (host [^)]*) did not answer" "lost$1.txt" ||
        die "rank $1 stopped: not named: $(tail -n 20 "lost$1.txt")"
    if [ "$1" -ne 0 ]; then # rank 0 recorded the run failed, naming the rank
        grep -q "run-failed	2	.*rank $1 (host " "lost$1/journal" ||
            die "rank $1 stopped: run 2 not recorded failed: $(cat "lost$1/journal")"
    fi
    # the study goes on where it stopped
    rc=0
    mpi -np 3 "$MPI_BIN" resume "$WORK/lost$1" -q >"resume$1.txt" 2>&1 || rc=$?
    [ "$rc" -le 1 ] || die "rank $1 stopped: resume exit $rc: $(tail -n 20 "resume$1.txt")"
    python3 - "lost$1" <<'PY' || die "rank $1 stopped: the resumed study is not every run once"
import sys
d = sys.argv[1]
ends = {}
for l in open(d + "/journal"):
    f = l.rstrip("\n").split("\t")
    if f[1] in ("run-done", "run-failed"):
        ends.setdefault(int(f[2]), []).append(f[1])
assert sorted(ends) == [1, 2, 3] and all(len(v) == 1 for v in ends.values()), ends
assert ends[1] == ["run-done"] and ends[3] == ["run-done"], ends
PY
}
# both at once, each job with a session directory of its own (Open MPI's and the followers'):
# each waits out its deadline (twice the 3 s watchdog plus the margin)
apart() {
    mkdir "$WORK/tmp$1"
    export TMPDIR="$WORK/tmp$1" OMPI_MCA_btl_vader_backing_directory="$WORK/tmp$1"
    lost "$1"
}
(apart 1; exit $fail) >lost1.log 2>&1 &
l1=$!
(apart 0; exit $fail) >lost0.log 2>&1 &
l0=$!
wait "$l1" || fail=1
wait "$l0" || fail=1
cat lost1.log lost0.log
exit $fail
