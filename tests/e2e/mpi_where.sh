#!/bin/sh
# SPDX-License-Identifier: MIT
# A target's hosts = [ … ] under MPI (docs/hosts.md), on one machine: mpirun --oversubscribe
# -np 3 (every rank on one hostname, so the rank:N selector makes it testable):
#   - `plan` says where every target lives, and "not here" on the ranks it leaves out;
#   - a target on rank 1 only: only rank 1 does its I/O (its run's one host row, its trace
#     alone), and its scratch file is never created on the other ranks; a target named by
#     the short hostname lives on every rank; a target without hosts on every rank too;
#   - a target that lives on no rank of the job is refused on its line.
# Skips (77) when mpirun or iomatrix-mpi is missing.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_mpi
me=$(hostname)
me=${me%%.*}

cat >where.cfg <<CFG
iomatrix = 1;
name = "where";
targets = ( { label = "one"; path = "$WORK/one\${rank}.scratch"; size = "8M"; hosts = [ "rank:1" ]; },
            { label = "named"; path = "$WORK/named\${rank}.scratch"; size = "8M"; hosts = [ "$me" ]; },
            { label = "all"; path = "$WORK/all\${rank}.scratch"; size = "8M"; } );
workload = { engine = "io_uring"; direct = false; block_size = "4K"; queue_depth = 2; };
timing = { warmup = "50ms"; duration = "200ms"; repeat = 1; };
CFG

# 1. plan: where every target lives
mpi -np 3 "$MPI_BIN" plan where.cfg >plan.txt 2>&1 || die "mpirun plan: $(cat plan.txt)"
for r in 0 2; do
    grep -q "^  rank $r (host [^)]*): one (not here: hosts rank:1)\$" plan.txt || die "plan does not say target one is not on rank $r: $(cat plan.txt)"
done
grep -q "^  rank 1 (host [^)]*): one $WORK/one1.scratch\$" plan.txt || die "plan does not say target one lives on rank 1: $(cat plan.txt)"
for r in 0 1 2; do
    grep -q "^  rank $r (host [^)]*): named $WORK/named$r.scratch\$" plan.txt || die "plan: target named not on rank $r: $(cat plan.txt)"
    grep -q "^  rank $r (host [^)]*): all $WORK/all$r.scratch\$" plan.txt || die "plan: target all not on rank $r: $(cat plan.txt)"
done

# 2. the study
mpi -np 3 "$MPI_BIN" run where.cfg -o out -q >run.txt 2>&1 || die "mpirun run: $(tail -n 20 run.txt)"
grep -q "did not all arrive" run.txt && die "a run's figures went missing: $(cat run.txt)"
[ -f one1.scratch ] || die "rank 1 did not prepare target one"
[ ! -e one0.scratch ] && [ ! -e one2.scratch ] || die "target one's file was created on a rank it does not live on: $(ls)"
for r in 0 1 2; do
    [ -f "named$r.scratch" ] && [ -f "all$r.scratch" ] || die "rank $r did not prepare its named and all targets"
done
python3 - out <<'PY' || die "a target's I/O was not on the ranks where it lives"
import json, os, sys
d = sys.argv[1]
want = {"one": [1], "named": [0, 1, 2], "all": [0, 1, 2]}
seen = set()
for name in sorted(os.listdir(d + "/runs")):
    i = int(name[:5])
    r = json.load(open("%s/runs/%s" % (d, name)))
    assert r["status"] == "ok", r.get("error")
    t = r["cell"]["target"]
    seen.add(t)
    rows = r["hosts"]
    assert [h["rank"] for h in rows] == want[t], (i, t, rows)
    assert all(h["ios"] > 0 for h in rows) and r["total"]["ios"] == sum(h["ios"] for h in rows), (i, rows)
    have = [k for k in range(3) if os.path.exists("%s/traces/%05d.r%d.trace.gz" % (d, i, k))]
    assert have == want[t], (i, t, have)
    print("run", i, t, "ios per rank", [(h["rank"], h["ios"]) for h in rows])
assert seen == set(want), seen
PY

# 3. a target on no rank of the job
sed 's/"rank:1"/"rank:5"/' where.cfg >nowhere.cfg
mpi -np 3 "$MPI_BIN" plan nowhere.cfg >nowhere.txt 2>&1 && die "a target on no rank was planned"
grep -q "^nowhere.cfg:3: target 'one' lives on no rank of this job" nowhere.txt || die "no rank: $(cat nowhere.txt)"
exit $fail
