#!/bin/sh
# SPDX-License-Identifier: MIT
# ranks = [1, 2, 3] under MPI (docs/hosts.md), on one machine: mpirun --oversubscribe -np 3.
#   - each cell runs on the first N ranks at once: its run file has N host rows, each with
#     I/Os, the aggregate their sum, and only those ranks' traces of the run exist;
#   - summary.csv and the report show the summed IOPS per rank count (the ranks column);
#   - ranks beyond the job's ranks is refused at plan time, naming the file and line, before
#     anything is written;
#   - a rank beyond every ranks value of a target never prepares it.
# Skips (77) when mpirun or iomatrix-mpi is missing.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_mpi

cat >ranks.cfg <<CFG
iomatrix = 1;
name = "ranks";
targets = ( { label = "a"; path = "$WORK/s\${rank}.scratch"; size = "8M"; } );
workload = { engine = "io_uring"; direct = false; block_size = "4K"; queue_depth = 2;
             ranks = [1, 2, 3]; };
timing = { warmup = "50ms"; duration = "200ms"; repeat = 1; };
CFG

# 1. more ranks than the job has: refused at plan time, on its line, nothing written
mpi -np 2 "$MPI_BIN" run ranks.cfg -o out-2 >two.txt 2>&1
rc=$?
[ "$rc" -eq 2 ] || die "ranks 3 on 2 ranks: exit $rc, not 2: $(cat two.txt)"
grep -q "^ranks.cfg:5: ranks 3 is more than the 2 ranks of this job" two.txt ||
    die "ranks 3 on 2 ranks does not name the file and line: $(cat two.txt)"
[ ! -e out-2 ] && [ ! -e s0.scratch ] && [ ! -e s1.scratch ] || die "a refused ranks wrote something"
mpi -np 2 "$MPI_BIN" plan ranks.cfg >plan2.txt 2>&1 && die "plan of ranks 3 on 2 ranks succeeded"
grep -q "^ranks.cfg:5: ranks 3 is more than" plan2.txt || die "plan does not refuse ranks 3 on 2 ranks: $(cat plan2.txt)"

# 2. the study on 3 ranks
mpi -np 3 "$MPI_BIN" run ranks.cfg -o out -q >run.txt 2>&1 || die "mpirun run: $(tail -n 20 run.txt)"
python3 - out <<'PY' || die "a cell did not run on its first N ranks, summed"
import csv, json, os, sys
d = sys.argv[1]
runs = sorted(os.listdir(d + "/runs"))
assert len(runs) == 3, runs
seen = []
for name in runs:
    i = int(name[:5])
    r = json.load(open("%s/runs/%s" % (d, name)))
    assert r["status"] == "ok", r.get("error")
    n = r["cell"]["ranks"]
    seen.append(n)
    rows = r["hosts"]
    assert [h["rank"] for h in rows] == list(range(n)), (i, n, rows)
    assert all(h["ios"] > 0 for h in rows), (i, rows)
    assert r["total"]["ios"] == sum(h["ios"] for h in rows), (i, r["total"]["ios"], rows)
    have = [k for k in range(3) if os.path.exists("%s/traces/%05d.r%d.trace.gz" % (d, i, k))]
    assert have == list(range(n)), (i, n, have)
    print("ranks", n, "ios", [h["ios"] for h in rows], "IOPS %.0f" % r["total"]["iops"])
assert sorted(seen) == [1, 2, 3], seen
rows = list(csv.DictReader(open(d + "/summary.csv")))
assert sorted(int(x["ranks"]) for x in rows) == [1, 2, 3], rows
for x in rows:
    r = json.load(open("%s/runs/%05d.json" % (d, int(x["index"]))))
    assert abs(float(x["iops"]) - r["total"]["iops"]) <= 1e-6 * r["total"]["iops"] + 1e-3, (x, r["total"]["iops"])
PY
"$IOMATRIX" report out >report.txt 2>&1 || die "report: $(cat report.txt)"
for n in 1 2 3; do
    grep -Eq "^ranks$n +[0-9.]+[KM]? " report.txt || die "the report has no row of $n ranks: $(cat report.txt)"
done

# 3. ranks = [1, 2] on 3 ranks: rank 2 measures none of the target's cells, so it neither
# prepares nor fills its scratch file
sed -e 's/ranks = \[1, 2, 3\]/ranks = [1, 2]/' -e 's/s\${rank}.scratch/u${rank}.scratch/' ranks.cfg >two.cfg
mpi -np 3 "$MPI_BIN" run two.cfg -o out-u -q >runu.txt 2>&1 || die "mpirun run of ranks [1, 2]: $(tail -n 20 runu.txt)"
[ -f u0.scratch ] && [ -f u1.scratch ] || die "ranks 0 and 1 did not prepare their files"
[ ! -e u2.scratch ] || die "rank 2, in no cell of the target, prepared its file"
exit $fail
