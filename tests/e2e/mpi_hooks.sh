#!/bin/sh
# SPDX-License-Identifier: MIT
# Shell hooks on every rank (hooks.where = "every", docs/hosts.md) on 3 ranks: each rank runs
# before_study, before_target, before_run, after_run and after_study around its own visits and
# runs, with ${rank}, ${ranks} and ${host}; every follower's logs land in rank 0's results
# directory as hooks/NAME.rK.log (rank 0's under the single-host name), each naming its rank;
# a before_run hook failing on rank 2 alone fails that run on all three ranks (every host row
# failed, the aggregate naming rank 2), and the other runs are whole. With the default
# (hooks.where = "rank0") the followers run no hook.
# Skips (77) when mpirun or iomatrix-mpi is missing.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_mpi
need_cmd python3

cat >h.cfg <<CFG
iomatrix = 1;
name = "hooks-every";
targets = ( { label = "a"; path = "$WORK/a\${rank}.scratch"; size = "4M"; } );
workload = { engine = "psync"; direct = false; block_size = [ "4K", "8K", "16K" ]; };
timing = { warmup = "0s"; duration = "100ms"; rest = "0s"; repeat = 1; };
trace = false;
hooks = {
    where = "every";
    before_study = "echo study rank \${rank} of \${ranks} on \${host}";
    before_target = "echo target \${target.label} rank \${rank}";
    before_run = "echo run \${run.index} rank \${rank} of \${ranks} on \${host}; test \${run.index} != 2 -o \${rank} != 2";
    after_run = "echo after \${run.index} rank \${rank}";
    after_study = "echo end rank \${rank}";
};
CFG

mpi -np 3 "$MPI_BIN" run h.cfg -o out -q --allow-hooks >run.txt 2>&1
rc=$?
[ "$rc" -eq 1 ] || die "exit $rc with a failed run, not 1: $(tail -n 20 run.txt)"
host=$(hostname -s)
for k in 0 1 2; do
    sfx=".r$k"
    [ "$k" -eq 0 ] && sfx=""
    for f in "study.before_study:study rank $k of 3 on $host" "a.before_target:target a rank $k" \
             "00001.before_run:run 1 rank $k of 3 on $host" "00002.before_run:run 2 rank $k of 3" \
             "00003.before_run:run 3 rank $k of 3" "00001.after_run:after 1 rank $k" \
             "00003.after_run:after 3 rank $k" "study.after_study:end rank $k"; do
        log="out/hooks/${f%%:*}$sfx.log"
        [ -f "$log" ] || { die "rank $k: no $log ($(ls out/hooks | tr '\n' ' '))"; continue; }
        grep -q "^${f#*:}" "$log" || die "$log does not say '${f#*:}': $(cat "$log")"
    done
done
python3 - out <<'PY' || die "the failing hook on rank 2 did not fail run 2 on every rank alone"
import json, sys
d = sys.argv[1]
for i in (1, 2, 3):
    r = json.load(open("%s/runs/%05d.json" % (d, i)))
    rows = r["hosts"]
    assert [h["rank"] for h in rows] == [0, 1, 2], rows
    st = [h["status"] for h in rows]
    print("run", i, r["status"], st, (r.get("error") or "")[:120])
    if i == 2:
        assert r["status"] == "failed" and st == ["failed"] * 3, (r["status"], st)
        assert "rank 2" in r["error"], r["error"]
        assert all("rank 2" in h["error"] for h in rows[:2]), [h["error"] for h in rows]
        assert "before_run" in rows[2]["error"], rows[2]["error"]
    else:
        assert r["status"] == "ok" and st == ["ok"] * 3, (r["status"], st, r.get("error"))
        assert all(h["ios"] > 0 for h in rows), rows
PY

# the default: rank 0 alone runs the hooks
sed -e '/where = "every";/d' -e 's/-o out/-o out0/' h.cfg >r0.cfg
mpi -np 3 "$MPI_BIN" run r0.cfg -o out0 -q --allow-hooks >run0.txt 2>&1
[ -f out0/hooks/00001.before_run.log ] || die "rank 0 ran no before_run hook by default"
ls out0/hooks | grep -q '\.r[12]\.' && die "a follower ran a hook by default: $(ls out0/hooks)"
exit $fail
