#!/bin/sh
# SPDX-License-Identifier: MIT
# A filesystem target's device renamed between two visits (root, loop devices): the target
# d-ext4 (filesystems = ["ext4"]) on /dev/loopN is visited twice (interleaved repetitions). After
# its first visit, /dev/loopN is detached and the same name attached to another file full of
# someone's data that carries no signature a probe would see (random bytes). The second visit
# must not make a filesystem on it: the run fails naming the change (the disk sequence number),
# the other target goes on, exit 1, and the victim's file is byte-identical.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for loop devices"
need_cmd losetup mkfs.ext4
back=$(mktemp /dev/shm/iom-fsdev-a.XXXXXX)
victim=$(mktemp /dev/shm/iom-fsdev-v.XXXXXX)
dev=""
cleanup() {
    [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null
    grep -q " $PWD/" /proc/mounts 2>/dev/null && umount -l "$PWD"/* 2>/dev/null
    [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
    rm -f "$back" "$victim"
}
on_exit cleanup
truncate -s 64M "$back"
dd if=/dev/urandom of="$victim" bs=1M count=64 status=none
cp "$victim" victim.orig
dev=$(losetup -f --show "$back") || skip "cannot attach a loop device"

cat >m.cfg <<CFG
iomatrix = 1;
name = "fsdev";
repeat_order = "interleaved";
targets = ( { label = "d"; device = "$dev"; destructive = true; size = "16M";
              filesystems = [ "ext4" ]; },
            { label = "f"; path = "$PWD/f.scratch"; size = "1M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = 0; };
timing = { warmup = "0s"; duration = "300ms"; rest = "2s"; repeat = 2; };
trace = false;
CFG
"$IOMATRIX" run m.cfg -o out -q >out.txt 2>err.txt &
pid=$!
# after run 1 (d-ext4) its filesystem is unmounted when the visit ends, before run 2 (f)
i=0
while [ ! -e out/runs/00002.json ] && [ $i -lt 300 ]; do
    if [ -e out/runs/00001.json ] && ! grep -q "^$dev " /proc/mounts; then
        break
    fi
    sleep 0.05
    i=$((i + 1))
done
[ -e out/runs/00001.json ] || die "run 1 never finished: $(cat err.txt)"
losetup -d "$dev" || die "cannot detach $dev"
i=0
while losetup "$dev" >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
losetup "$dev" "$victim" || die "cannot attach the victim to $dev"
wait "$pid"
rc=$?
pid=
[ "$rc" -eq 1 ] || die "the sweep exited $rc, want 1: $(cat err.txt)"
python3 - <<'PY' || die "the runs"
import json
def run(n):
    return json.load(open("out/runs/%05d.json" % n))
r1, r2, r3, r4 = (run(n) for n in (1, 2, 3, 4))
assert r1["status"] == "ok", r1.get("error")
assert r2["status"] == "ok" and r4["status"] == "ok", (r2.get("error"), r4.get("error"))
assert r3["status"] == "failed", r3["status"]
assert "disk sequence number" in r3["error"] or "no longer the device" in r3["error"], r3["error"]
print("run 3:", r3["error"])
PY
cmp -s "$victim" victim.orig || die "the victim's data was written (mkfs on the renamed device)"
grep -q "iomatrix: target 'd-ext4': .*no longer the device the sweep started with" err.txt ||
    die "no word of the change on stderr: $(cat err.txt)"
exit $fail
