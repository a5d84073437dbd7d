#!/bin/sh
# SPDX-License-Identifier: MIT
# The io_uring engine's own keys end to end. `check` reads submit_batch and reap_wait at their
# old place, the top level, with a warning naming the new one (io_uring.KEY). Then on a loop
# device over a file in /dev/shm (root only): io_uring.sqpoll runs, and says so in the run's
# engine notes; io_uring.iopoll on a device without poll queues (a loop device has none) is
# refused by check and run before anything is written, naming /sys/block/loopN/queue/io_poll,
# and iopoll on a file of an ext4 the sweep makes on that device fails its run at once, before
# any I/O — not a hang; back-to-back write runs of io_uring on a
# device each get their exclusive open (the ring of the run before let go of the device).
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"

cat >old.cfg <<'CFG'
iomatrix = 1;
submit_batch = 8;
reap_wait = "1/2";
targets = ( { label = "a"; path = "a.scratch"; size = "16M"; } );
timing = { duration = "1s"; };
CFG
"$IOMATRIX" check --matrix-only old.cfg >out.txt 2>err.txt || die "check of the old spelling: $(cat err.txt)"
grep -q "^old.cfg:2: warning: 'submit_batch' at the top level is now io_uring.submit_batch$" err.txt &&
    grep -q "^old.cfg:3: warning: 'reap_wait' at the top level is now io_uring.reap_wait$" err.txt ||
    die "check gave no warning for the old spelling: $(cat err.txt)"
grep -q "valid" out.txt || die "check: $(cat out.txt)"
sed 's/^submit_batch = 8;$/io_uring = { submit_batch = 8; reap_wait = "1\/2"; };/; /^reap_wait/d' old.cfg >new.cfg
"$IOMATRIX" check --matrix-only new.cfg >out.txt 2>err.txt || die "check of the group: $(cat err.txt)"
[ ! -s err.txt ] || die "check warned about the io_uring group: $(cat err.txt)"

root_or_finish
need_cmd losetup
back=$(mktemp /dev/shm/iomatrix-e2e.XXXXXX)
dev=""
cleanup() { [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null; rm -f "$back"; }
on_exit cleanup
truncate -s 128M "$back"
dev=$(losetup -f --show "$back") || { echo "cannot attach a loop device"; exit 77; }
name=${dev#/dev/}
[ "$(cat /sys/block/$name/queue/io_poll 2>/dev/null)" = 0 ] ||
    { echo "$dev has poll queues or no io_poll file: the error path cannot be shown"; exit 77; }

matrix() { # IO_URING-GROUP READ_PCT REPEAT [TARGET-KEYS]
    where="path = \"$dev\"; size = \"32M\";"
    [ $# -ge 4 ] && where=$4
    cat <<CFG
iomatrix = 1;
io_uring = { $1 };
targets = ( { label = "loop"; $where destructive = true; } );
workload = { block_size = "4K"; queue_depth = 8; read_pct = $2; direct = true; };
timing = { warmup = "0s"; duration = "300ms"; repeat = $3; };
CFG
}

# sqpoll: the run works and its notes say SQPOLL
matrix "sqpoll = true;" 70 1 >sq.cfg
timeout 60 "$IOMATRIX" run sq.cfg -o sq --no-trace >out.txt 2>err.txt || die "sqpoll run: $(cat err.txt)"
python3 - <<'PY' || die "sqpoll result"
import json
r = json.load(open("sq/runs/00001.json"))
assert r["status"] == "ok" and r["total"]["ios"] > 0, r.get("error")
assert r["engine_notes"].startswith("io_uring: SQPOLL"), r["engine_notes"]
assert r["cpu"]["proc_user_s"] + r["cpu"]["proc_sys_s"] > 0, r["cpu"]
PY

# iopoll on a device without poll queues: refused by the preflight of check and run, before
# anything is written, naming the sysfs file (the run-time check, for a filesystem made by the
# sweep, is the ext4 case below)
matrix "iopoll = true;" 100 1 >io.cfg
timeout 60 "$IOMATRIX" check io.cfg >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 2 ] || die "check of iopoll on $dev: exit $rc, want 2"
timeout 60 "$IOMATRIX" run io.cfg -o io --no-trace >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 2 ] || die "iopoll on $dev: exit $rc, want 2 (refused before it starts)"
grep -q "^io.cfg:[0-9]*: target '[^']*': io_uring.iopoll: /sys/block/$name/queue/io_poll reads 0: $name has no poll queues" err.txt ||
    die "iopoll error: $(cat out.txt err.txt)"
[ ! -e io ] || die "the refused iopoll sweep made its results directory"

# back-to-back write runs of io_uring, each opening the device exclusively
matrix "" 0 3 >w.cfg
timeout 60 "$IOMATRIX" run w.cfg -o w --no-trace >out.txt 2>err.txt || die "write runs: $(cat out.txt err.txt)"
[ "$(grep -c '"status": "ok"' w/runs/*.json | grep -c ':1$')" -eq 3 ] ||
    die "not every write run was ok: $(grep -h '"error"' w/runs/*.json)"

# iopoll on a file of an ext4 made on the device: the device of its filesystem is named
if command -v mkfs.ext4 >/dev/null 2>&1; then
    matrix "iopoll = true;" 100 1 "device = \"$dev\"; filesystems = [\"ext4\"]; size = \"16M\";" >fs.cfg
    timeout 60 "$IOMATRIX" run fs.cfg -o fs --no-trace >out.txt 2>err.txt; rc=$?
    [ "$rc" -ne 124 ] && [ "$rc" -ne 0 ] || die "iopoll on ext4: exit $rc"
    grep -q "/sys/block/$name/queue/io_poll reads 0: $name, the device of the target's filesystem, has no poll queues" out.txt err.txt ||
        die "iopoll on ext4: $(cat out.txt err.txt)"
    ! grep -qs " $dev " /proc/mounts || die "$dev is still mounted"
fi
exit $fail
