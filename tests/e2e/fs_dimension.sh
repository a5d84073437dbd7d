#!/bin/sh
# SPDX-License-Identifier: MIT
# The filesystem as a dimension, on a loop device: a target with filesystems = [ ext4, xfs, raw ]
# becomes three targets; iomatrix makes each filesystem (journalling its UUID first), mounts it
# privately, runs the cells on a scratch file there (raw: on the device), unmounts it, and the
# next one replaces it; killed with a filesystem mounted, it resumes. A filesystem iomatrix did
# not make is never replaced: with a foreign ext4 on the device the sweep refuses to touch it. Root only; every mount and the loop device
# are undone in a trap.
# e2e: parallel slow
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for loop devices and mounts"
need_cmd losetup mkfs.ext4 wipefs blkid python3
img=$(mktemp /dev/shm/iom-fsdim.XXXXXX)
loop=""
cleanup() {
    if [ -n "$loop" ]; then
        for m in $(awk -v d="$loop" '$1 == d { print $2 }' /proc/mounts); do umount "$m"; done
        losetup -d "$loop"
    fi
    rm -f "$img"
}
on_exit cleanup
truncate -s 320M "$img"
loop=$(losetup -f --show "$img" 2>err) || { echo "no loop device: $(cat err)"; exit 77; }

fs='"ext4", "raw"'
command -v mkfs.xfs >/dev/null 2>&1 && fs='"ext4", "xfs", "raw"'
cat >m.cfg <<CFG
iomatrix = 1;
name = "fsdim";
targets = ( { label = "d"; device = "$loop"; destructive = true; size = "16M";
              filesystems = [ $fs ]; mount_options = "noatime"; } );
workload = { engine = "psync"; block_size = [ "4K", "64K" ]; read_pct = 50; };
timing = { warmup = "0s"; duration = "100ms"; };
trace = false;
hooks = { before_target = "echo \${target.label} \${target.filesystem} \${target.mount} >> \${study.dir}/visits.txt"; };
CFG
"$IOMATRIX" plan m.cfg >plan.txt 2>&1 || die "plan: $(cat plan.txt)"
grep -q "d-ext4" plan.txt && grep -q "d-raw" plan.txt || die "no target per filesystem: $(cat plan.txt)"

"$IOMATRIX" run m.cfg -o out --allow-hooks >run.out 2>run.err || die "run failed: $(cat run.err)"
n=$(echo "$fs" | tr ',' '\n' | wc -l)
[ "$(ls out/runs | grep -c '\.json$')" -eq $((2 * n)) ] || die "not every run ran: $(ls out/runs)"
for f in out/runs/*.json; do
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["status"] != "ok")' "$f" ||
        die "$f is not ok: $(grep -o '"error":[^,]*' "$f")"
done
[ "$(grep -c '	mkfs	' out/journal)" -eq "$n" ] || die "the journal does not record every mkfs"
grep -q "	mkfs	0	$loop ext4 [0-9a-f-]\{36\} iom-" out/journal || die "no UUID and label in the journal"
grep -q "^d-ext4 ext4 /" out/visits.txt || die "the ext4 visit had no mount point: $(cat out/visits.txt)"
grep -q "^d-raw raw" out/visits.txt || die "no raw visit: $(cat out/visits.txt)"
grep -q "$loop" /proc/mounts && die "the device is still mounted"
[ -f out/hooks/d-ext4.mkfs.log ] || die "no mkfs log"

# killed while a filesystem of its own is mounted, a sweep resumes: the stale mount is undone
# and the filesystem (recognised by the UUID in the journal) replaced
"$IOMATRIX" run m.cfg -o out3 -q --allow-hooks --set duration=600ms >/dev/null 2>&1 &
pid=$!
await_line out3/journal "	run-start	1" 120 "$pid" || die "run 1 did not start within 120 s"
kill -9 "$pid"
wait "$pid" 2>/dev/null
# and the mkfs log the resume writes again is its own (docs/hardening.md, "Its own files"): a
# link planted under its name is replaced, never written through
printf 'precious\n' >victim
vsum=$(sha256sum victim)
rm -f out3/hooks/d-ext4.mkfs.log
ln -s "$WORK/victim" out3/hooks/d-ext4.mkfs.log
"$IOMATRIX" resume out3 -q --allow-hooks >resume.out 2>resume.err || die "resume failed: $(cat resume.err)"
[ "$(sha256sum victim)" = "$vsum" ] || die "the resume wrote through a planted mkfs log link"
[ -f out3/hooks/d-ext4.mkfs.log ] && [ ! -L out3/hooks/d-ext4.mkfs.log ] ||
    die "the resumed ext4 visit wrote no mkfs log of its own"
[ "$(ls out3/runs | grep -c '\.json$')" -eq $((2 * n)) ] || die "not every run ran after resume"
grep -q "	study-end	" out3/journal || die "the resumed sweep did not end"
grep -q "$loop" /proc/mounts && die "the device is still mounted after resume"

# a filesystem iomatrix did not make is never replaced
mkfs.ext4 -q -F -L precious "$loop" >/dev/null 2>&1 || die "cannot make the foreign filesystem"
"$IOMATRIX" run m.cfg -o out2 --allow-hooks >run2.out 2>run2.err
rc=$?
[ "$rc" -eq 1 ] || die "exit $rc with a foreign filesystem on the device, not 1"
[ "$(blkid -o value -s LABEL "$loop")" = precious ] || die "the foreign filesystem was replaced"
grep -q "d-ext4" run2.err || die "the refusal does not name the target: $(cat run2.err)"
grep "refus\|ext4" run2.err | head -n 3
exit $fail
