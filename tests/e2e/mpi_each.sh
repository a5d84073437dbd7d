#!/bin/sh
# SPDX-License-Identifier: MIT
# hosts = "each" under MPI (docs/hosts.md), on one machine: mpirun --oversubscribe -np 3.
#   - `plan` shows the host dimension, one value per rank, labelled rR@HOST;
#   - a 2-cell study on 3 ranks, each on its own scratch file through ${rank}: every cell runs
#     once per rank; in each run only the chosen rank did I/O (the run's one host row is
#     its, with the run's every I/O, and only its trace of the run exists, holding them);
#   - `iomatrix report` compares the hosts in its winners table;
#   - plain iomatrix reads hosts = "each" as one host: the dimension has one value.
# Skips (77) when mpirun or iomatrix-mpi is missing.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_mpi

cat >each.cfg <<CFG
iomatrix = 1;
name = "each";
hosts = "each";
targets = ( { label = "a"; path = "$WORK/s\${rank}.scratch"; size = "8M"; } );
workload = { engine = "io_uring"; direct = false; block_size = "4K"; read_pct = [100, 0];
             queue_depth = 2; };
timing = { warmup = "50ms"; duration = "200ms"; repeat = 1; };
CFG

# 1. one host: hosts = "each" is the one value r0, the study as with "together"
"$IOMATRIX" check each.cfg >one.txt 2>&1 || die "plain check of hosts = each: $(cat one.txt)"
grep -q "valid, 2 runs" one.txt || die "plain iomatrix: hosts = each is not one host: $(cat one.txt)"

# 2. the plan under MPI: the host dimension, one value per rank
mpi -np 3 "$MPI_BIN" plan each.cfg >plan.txt 2>&1 || die "mpirun plan: $(cat plan.txt)"
grep -q "^run  rep  target  read_pct  host$" plan.txt || die "the plan has no host column: $(cat plan.txt)"
for r in 0 1 2; do
    [ "$(grep -c " r$r@[^ ]*\$" plan.txt)" -eq 2 ] || die "the plan does not run each cell on rank $r once: $(cat plan.txt)"
done

# 3. the study
mpi -np 3 "$MPI_BIN" run each.cfg -o out -q >run.txt 2>&1 || die "mpirun run: $(tail -n 20 run.txt)"
for i in 1 2 3 4 5 6; do
    for r in 0 1 2; do
        tr=out/traces/0000$i.r$r.trace.gz
        [ -e "$tr" ] || continue
        "$IOMATRIX" trace "$tr" --measured-only -o "$i.r$r.csv" 2>err || die "trace $tr: $(cat err)"
    done
done
python3 - out <<'PY' || die "a cell did not run once per rank, on that rank alone"
import collections, json, os, sys
d = sys.argv[1]
runs = sorted(os.listdir(d + "/runs"))
assert len(runs) == 6, runs
seen = collections.Counter()
for name in runs:
    i = int(name[:5])
    r = json.load(open("%s/runs/%s" % (d, name)))
    assert r["status"] == "ok", r.get("error")
    host = r["cell"]["host"]
    rank = int(host[1:host.index("@")])
    seen[(r["cell"]["read_pct"], rank)] += 1
    rows = r["hosts"]
    # the chosen rank alone: its row, with every I/O of the run
    assert [h["rank"] for h in rows] == [rank], (i, host, rows)
    assert rows[0]["ios"] > 0 and rows[0]["ios"] == r["total"]["ios"], (i, rows[0]["ios"], r["total"]["ios"])
    # only its trace of the run, and the trace holds the I/Os the row counts
    have = [k for k in range(3) if os.path.exists("%s/traces/%05d.r%d.trace.gz" % (d, i, k))]
    assert have == [rank], (i, host, have)
    with open("%d.r%d.csv" % (i, rank)) as f:
        n = sum(1 for _ in f) - 1
    # (fewer only when its writer dropped records: a full ring on a busy machine)
    assert n == rows[0]["ios"] or n < rows[0]["ios"] and rows[0]["trace_dropped"] > 0, (i, n, rows[0])
    print("run", i, host, "ios", rows[0]["ios"], "trace records", n)
assert sorted(seen) == [(p, k) for p in (0, 100) for k in range(3)], seen
assert set(seen.values()) == {1}, seen
PY
"$IOMATRIX" report out >report.txt 2>&1 || die "report: $(cat report.txt)"
grep -Eq "^compared: host \(r0@[^,]*, r1@[^,]*, r2@[^)]*\)" report.txt || die "the report does not compare the hosts: $(head -n 20 report.txt)"
grep -Eq "^cell +r0@[^ ]+ +r1@[^ ]+ +r2@[^ ]+$" report.txt || die "the winners table does not compare the hosts: $(cat report.txt)"
grep -Eq "^r2@[^ ]+: IOPS " report.txt || die "no verdict of rank 2's host: $(cat report.txt)"
exit $fail
