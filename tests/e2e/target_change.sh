#!/bin/sh
# SPDX-License-Identifier: MIT
# Targets that change under a sweep (docs/hardening.md's cases 1-3) and devices that still
# hold data where a quick look sees none. Root only: loop devices over files in /dev/shm.
#  1. a blank loop device, destructive = true, three 300 ms write runs with rest = "2s": after
#     run 1 it gets an ext4 filesystem and is mounted. Runs 2 and 3 fail naming the change, the
#     sweep exits 1, and fsck.ext4 -fn finds the filesystem clean.
#  2. a scratch file replaced by a symbolic link to victim.txt after run 1: runs 2 and 3 fail
#     naming the link, victim.txt stays byte-identical, and the other target's runs are ok.
#  3. overwrite = true with a symbolic link, then a hard link, at the scratch path: refused
#     before anything is written (check and run, exit 2; target.c refuses them too),
#     naming the link; victim.txt untouched.
#  4. a device with only a backup GPT header left (blkid(8) sees nothing), and a device whose
#     partitions the kernel still lists after the table on disk was wiped (and then with ext4
#     on the partition): refused.
# Mounts, partitions and loop devices are undone in a trap.
# e2e: parallel slow
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for loop devices and mounts"
need_cmd losetup mkfs.ext4 fsck.ext4 mount umount python3 cmp
imgs="" loops="" mnt="$PWD/mnt" pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
    for l in $loops; do
        command -v partx >/dev/null 2>&1 && partx -d "$l" 2>/dev/null
        losetup -d "$l" 2>/dev/null
    done
    for i in $imgs; do rm -f "$i"; done
}
on_exit cleanup
# a new loop device over a new 64 MiB file in /dev/shm, its path in $loop
new_loop() {
    img=$(mktemp /dev/shm/iom-change.XXXXXX) || { echo "no file in /dev/shm"; exit 77; }
    imgs="$imgs $img"
    truncate -s 64M "$img"
    loop=$(losetup -f --show "$img" 2>err) || { echo "no loop device: $(cat err)"; exit 77; }
    loops="$loops $loop"
}
# waits (up to 60 s) for the file $1 to appear
wait_for() {
    n=0
    while [ ! -e "$1" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
    [ -e "$1" ]
}
# the status and error of run file $1
run_of() {
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["status"], r.get("error") or "")' "$1"
}
mkdir "$mnt"

# ---- 1. a device reused mid-sweep ----------------------------------------------------------
new_loop
dev=$loop
cat >dev.cfg <<CFG
iomatrix = 1;
name = "reused";
targets = ( { label = "lo"; path = "$dev"; destructive = true; } );
workload = { engine = "psync"; block_size = "64K"; read_pct = 0; };
timing = { warmup = "0s"; duration = "300ms"; rest = "2s"; repeat = 3; };
trace = false;
CFG
"$IOMATRIX" run dev.cfg -o dev -q >dev.out 2>dev.err &
pid=$!
wait_for dev/runs/00001.json || die "run 1 never finished: $(cat dev.err)"
mkfs.ext4 -q -F "$dev" >mkfs.log 2>&1 || die "mkfs.ext4: $(cat mkfs.log)"
mount "$dev" "$mnt" || die "cannot mount the new ext4"
echo "keep me" >"$mnt/data.txt"
sync
wait "$pid"
rc=$?
pid=""
[ "$rc" -eq 1 ] || die "the sweep exited $rc, not 1: $(cat dev.err)"
set -- $(run_of dev/runs/00001.json)
[ "$1" = ok ] || die "run 1: $*"
r2=$(run_of dev/runs/00002.json) r3=$(run_of dev/runs/00003.json)
echo "run 2: $r2"
echo "run 3: $r3"
# the mkfs may still hold the device when run 2 opens it (rest is 2 s on a loaded machine)
case $r2 in
"failed '$dev' now carries an ext4 filesystem; it held none when the sweep started") ;;
"failed '$dev' is now in use"*) echo "note: run 2 met the mkfs still at work" ;;
*) die "run 2 does not name the change: $r2" ;;
esac
case $r3 in
"failed target 'lo' is not usable: ${r2#failed }") ;;
*) die "run 3 does not fail with run 2's reason: $r3" ;;
esac
grep -q "target 'lo': '$dev' .*its remaining runs fail" dev.err || die "no word on stderr: $(cat dev.err)"
[ "$(cat "$mnt/data.txt")" = "keep me" ] || die "the file on the new filesystem changed"
umount "$mnt" || die "cannot unmount"
fsck.ext4 -fn "$dev" >fsck.log 2>&1
rc=$?
[ "$rc" -eq 0 ] || die "fsck.ext4 -fn exited $rc: $(tail -n 5 fsck.log)"

# ---- 2. a scratch file replaced by a symbolic link mid-sweep ------------------------------
head -c 65536 /dev/urandom >victim.txt
cp victim.txt victim.orig
cat >file.cfg <<CFG
iomatrix = 1;
name = "swapped";
targets = ( { label = "s"; path = "$PWD/s.scratch"; size = "1M"; },
            { label = "k"; path = "$PWD/k.scratch"; size = "1M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = 0; };
timing = { warmup = "0s"; duration = "300ms"; rest = "2s"; repeat = 3; };
trace = false;
CFG
"$IOMATRIX" run file.cfg -o file -q >file.out 2>file.err &
pid=$!
wait_for file/runs/00001.json || die "run 1 never finished: $(cat file.err)"
rm s.scratch
ln -s victim.txt s.scratch
wait "$pid"
rc=$?
pid=""
[ "$rc" -eq 1 ] || die "the swapped sweep exited $rc, not 1: $(cat file.err)"
cmp victim.txt victim.orig || die "victim.txt was written"
r2=$(run_of file/runs/00002.json) r3=$(run_of file/runs/00003.json)
echo "run 2: $r2"
[ "$r2" = "failed '$PWD/s.scratch' is now a symbolic link to 'victim.txt'; it was the scratch file itself when the sweep started" ] ||
    die "run 2 does not name the link: $r2"
[ "$r3" = "failed target 's' is not usable: ${r2#failed }" ] || die "run 3: $r3"
for n in 4 5 6; do # the other target goes on
    r=$(run_of file/runs/0000$n.json)
    [ "$r" = "ok " ] || die "run $n, of the untouched target k: $r"
done

# ---- 3. overwrite = true at a symbolic link and at a hard link -----------------------------
sed 's/size = "1M";/size = "1M"; overwrite = true;/; s/repeat = 3/repeat = 1/' file.cfg >ow.cfg
grep -q "overwrite = true" ow.cfg || die "ow.cfg has no overwrite"
"$IOMATRIX" run ow.cfg -o ow-sym -q >ow.out 2>ow.err
rc=$?
# refused before anything is written (preflight: exit 2, the target's line), and by target.c
# itself when preflight is not asked (test_target_scratch_symlink_and_open)
[ "$rc" -eq 2 ] || die "overwrite through a symbolic link: exit $rc"
grep -q "^ow.cfg:3: target 's': '$PWD/s.scratch' is a symbolic link to 'victim.txt'" ow.err ||
    die "the refusal does not name the link: $(cat ow.err)"
[ ! -e ow-sym ] || die "the refused sweep made its results directory"
"$IOMATRIX" check ow.cfg >ow.out 2>ow.err && die "check passes a symbolic link at a scratch path"
grep -q "^ow.cfg:3: target 's': '$PWD/s.scratch' is a symbolic link to 'victim.txt'" ow.err ||
    die "check does not name the link: $(cat ow.err)"
head -n 1 ow.err
rm s.scratch
ln victim.txt s.scratch
"$IOMATRIX" run ow.cfg -o ow-hard -q >ow.out 2>ow.err
rc=$?
[ "$rc" -eq 2 ] || die "overwrite of a hard link: exit $rc"
grep -q "^ow.cfg:3: target 's': '$PWD/s.scratch' is a file with 2 hard links" ow.err ||
    die "the refusal does not name the hard links: $(cat ow.err)"
head -n 1 ow.err
cmp victim.txt victim.orig || die "victim.txt was written through overwrite = true"
python3 -c 'import os,sys; sys.exit("user.iomatrix" in os.listxattr("victim.txt"))' ||
    die "victim.txt was marked as a scratch file"
rm s.scratch

# ---- 4. data a quick look does not see ----------------------------------------------------
cat >gpt.py <<'PY'
# A GPT with one partition on the device argv[1]; "backup": the first 34 sectors (protective
# MBR, primary header and entries) zeroed afterwards, so only the backup header at the end is left.
import os, struct, sys, uuid, zlib
path, backup = sys.argv[1], len(sys.argv) > 2 and sys.argv[2] == "backup"
fd = os.open(path, os.O_RDWR)
size = os.lseek(fd, 0, os.SEEK_END)
ss, last = 512, size // 512 - 1
first_use, last_use = 34, last - 33
ent = struct.pack("<16s16sQQQ72s", uuid.UUID("0fc63daf-8483-4772-8e79-3d69d8477de4").bytes_le,
                  uuid.uuid4().bytes_le, 2048, last_use, 0, "data".encode("utf-16-le"))
ents = ent.ljust(128 * 128, b"\0")
def hdr(my, alt, lba):
    h = struct.pack("<8sIIIIQQQQ16sQIII", b"EFI PART", 0x10000, 92, 0, 0, my, alt, first_use,
                    last_use, uuid.uuid4().bytes_le, lba, 128, 128, zlib.crc32(ents))
    return (h[:16] + struct.pack("<I", zlib.crc32(h)) + h[20:]).ljust(ss, b"\0")
mbr = bytearray(ss)
mbr[446:462] = struct.pack("<B3sB3sII", 0, b"\0\2\0", 0xee, b"\xff\xff\xff", 1, min(last, 2**32 - 1))
mbr[510:512] = b"\x55\xaa"
for off, data in ((0, bytes(mbr)), (ss, hdr(1, last, 2)), (2 * ss, ents),
                  ((last - 32) * ss, ents), (last * ss, hdr(last, 1, last - 32))):
    os.pwrite(fd, data, off)
if backup:
    os.pwrite(fd, bytes(34 * ss), 0)
os.fsync(fd)
PY
cat >blank.cfg <<'CFG'
iomatrix = 1;
name = "hidden";
targets = ( { label = "d"; path = "DEV"; destructive = true; } );
workload = { engine = "psync"; block_size = "64K"; read_pct = 0; };
timing = { warmup = "0s"; duration = "100ms"; };
trace = false;
CFG
new_loop
python3 gpt.py "$loop" backup || die "cannot write the GPT"
if command -v blkid >/dev/null 2>&1 && blkid -p "$loop" >/dev/null 2>&1; then
    echo "note: blkid -p sees the backup-only GPT here"
fi
sed "s|DEV|$loop|" blank.cfg >gpt.cfg
"$IOMATRIX" run gpt.cfg -o gpt -q >gpt.out 2>gpt.err
rc=$?
[ "$rc" -eq 1 ] || die "a device with a backup GPT: exit $rc"
grep -q "refusing to write to '$loop': it carries a gpt partition table" gpt.err ||
    die "the backup GPT is not named: $(cat gpt.err)"
head -n 1 gpt.err
[ ! -d gpt/runs ] || [ -z "$(ls gpt/runs)" ] || grep -q '"status": "failed"' gpt/runs/* ||
    die "a run on the backup-GPT device did not fail"

if command -v partx >/dev/null 2>&1; then
    new_loop
    python3 gpt.py "$loop" || die "cannot write the GPT"
    if partx -a "$loop" 2>partx.err && [ -b "${loop}p1" ]; then
        # the table on disk wiped, start and end; the kernel still has (and serves) the partition
        dd if=/dev/zero of="$loop" bs=512 count=34 conv=fsync status=none
        dd if=/dev/zero of="$loop" bs=512 seek=$((64 * 2048 - 33)) count=33 conv=fsync status=none
        sed "s|DEV|$loop|" blank.cfg >part.cfg
        "$IOMATRIX" run part.cfg -o part1 -q >part.out 2>part.err
        rc=$?
        [ "$rc" -eq 1 ] || die "a device with a partition in the kernel: exit $rc"
        grep -q "refusing to write to '$loop': the kernel lists partition '${loop}p1' on it" part.err ||
            die "the kernel's partition is not named: $(cat part.err)"
        head -n 1 part.err
        mkfs.ext4 -q -F "${loop}p1" >/dev/null 2>&1 || die "mkfs.ext4 on the partition"
        "$IOMATRIX" run part.cfg -o part2 -q >part.out 2>part.err
        rc=$?
        [ "$rc" -eq 1 ] || die "a device with ext4 on a partition: exit $rc"
        grep -q "refusing to write to '$loop': its partition '${loop}p1' carries an ext4 filesystem" part.err ||
            die "the partition's filesystem is not named: $(cat part.err)"
        head -n 1 part.err
        fsck.ext4 -fn "${loop}p1" >/dev/null 2>&1 || die "the partition's ext4 is damaged"
        partx -d "$loop"
    else
        echo "note: partx -a cannot add partitions here ($(cat partx.err)); partition case skipped"
    fi
else
    echo "note: partx is not installed; partition case skipped"
fi
exit $fail
