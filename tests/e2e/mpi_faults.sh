#!/bin/sh
# A fault on one rank under MPI (docs/hosts.md): rank 1's scratch file is replaced during the
# first of three runs; its later runs fail on it (the target is no longer what was prepared),
# and each such run is recorded failed naming rank 1 and its host, while ranks 0 and 2 measure
# on and their rows keep their figures.
# Skips (77) when mpirun or iomatrix-mpi is missing.
. "$TOP/tests/e2e/lib.sh"
need_mpi

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
for _ in $(seq 1 300); do
    grep -q "run-start	1" out/journal 2>/dev/null && break
    sleep 0.1
done
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
exit $fail
