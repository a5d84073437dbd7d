#!/bin/sh
# SPDX-License-Identifier: MIT
# A filesystem target on 3 ranks, each on a loop device of its own through ${rank}, killed with
# kill -9 of mpirun while the ranks' filesystems are mounted, then resumed (docs/hosts.md,
# "Faults and resume"): each follower's journal recorded the mkfs of its filesystem before it
# made it, so on resume each rank knows the ext4 on its device as its own and makes it anew
# (without that journal a follower refused to touch a filesystem it had not made, and its
# runs failed); every run is ok exactly once on all three ranks, rank 1's and rank 2's mkfs
# records are in journal.r1 and journal.r2 (one per invocation), and nothing stays mounted.
# Root only; skips (77) without mpirun, iomatrix-mpi, losetup or mkfs.ext4.
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for loop devices"
need_mpi
need_cmd losetup mkfs.ext4 python3
command -v pgrep >/dev/null 2>&1 || skip "pgrep is not installed"
TMPDIR=$WORK
export TMPDIR
imgs="" loops=""
ranks_left() { pgrep -f "$MPI_BIN run $WORK/f.cfg" || true; }
cleanup() {
    for p in $(ranks_left); do kill -9 "$p" 2>/dev/null; done
    # a mount left by a killed rank names the link or the loop device
    grep -E "^(/dev/iom-mpi-fs-$$-r[012]|$(echo $loops | tr ' ' '|')) " /proc/mounts 2>/dev/null |
        while read -r _ mp _; do umount "$mp" 2>/dev/null; done
    for l in $loops; do losetup -d "$l" 2>/dev/null; done
    for i in $imgs; do rm -f "$i"; done
    rm -f /dev/iom-mpi-fs-$$-r0 /dev/iom-mpi-fs-$$-r1 /dev/iom-mpi-fs-$$-r2
}
on_exit cleanup
for k in 0 1 2; do
    img=$(mktemp /dev/shm/iom-mpi-fs.XXXXXX)
    imgs="$imgs $img"
    truncate -s 64M "$img"
    l=$(losetup -f --show "$img" 2>err) || skip "no loop device: $(cat err)"
    loops="$loops $l"
    # a device target's name is under /dev/: a link there to this rank's loop device
    ln -s "$l" "/dev/iom-mpi-fs-$$-r$k" || die "cannot link /dev/iom-mpi-fs-$$-r$k"
done

cat >f.cfg <<CFG
iomatrix = 1;
name = "hosts-fs";
targets = ( { label = "d"; device = "/dev/iom-mpi-fs-$$-r\${rank}"; destructive = true; size = "8M";
              filesystems = [ "ext4" ]; } );
workload = { engine = "psync"; block_size = [ "4K", "64K" ]; read_pct = 50; };
timing = { warmup = "0s"; duration = "1s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
mpirun --allow-run-as-root --oversubscribe -np 3 "$MPI_BIN" run "$WORK/f.cfg" -o out -q >run.txt 2>&1 &
mp=$!
# kill in the first run: every rank's filesystem made and mounted
await_line out/journal "	run-start	1" 120 "$mp" ||
    die "run 1 did not start within 120 s: $(tail -n 20 run.txt)"
sleep 0.3
kill -9 "$mp"
wait "$mp" 2>/dev/null
for _ in $(seq 1 300); do [ -z "$(ranks_left)" ] && break; sleep 0.1; done
[ -z "$(ranks_left)" ] || die "the ranks did not end 30 s after mpirun was killed"
grep -q "	run-done	2" out/journal && die "the study finished before the kill: nothing to resume"

mpi -np 3 "$MPI_BIN" resume out -q >resume.txt 2>&1 || die "mpirun resume: $(tail -n 20 resume.txt)"
python3 - out <<'PY' || die "the resumed filesystem study is not whole on every rank: $(tail -n 5 resume.txt)"
import json, sys
d = sys.argv[1]
done = [int(l.split("\t")[2]) for l in open(d + "/journal") if l.split("\t")[1] == "run-done"]
assert sorted(done) == [1, 2], done
for i in (1, 2):
    r = json.load(open("%s/runs/%05d.json" % (d, i)))
    assert r["status"] == "ok", (i, r.get("error"))
    assert [h["status"] for h in r["hosts"]] == ["ok"] * 3, (i, [h.get("error") for h in r["hosts"]])
for k in (1, 2):
    mk = [l.split("\t")[3] for l in open("%s/journal.r%d" % (d, k)) if l.split("\t")[1] == "mkfs"]
    print("rank", k, "mkfs records:", len(mk))
    assert len(mk) == 2 and all(" ext4 " in m for m in mk), (k, mk)
PY
grep -qE "^(/dev/iom-mpi-fs-$$-r[012]|$(echo $loops | tr ' ' '|')) " /proc/mounts &&
    die "a rank's filesystem is still mounted after the resume"
exit $fail
