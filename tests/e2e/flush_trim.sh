#!/bin/sh
# SPDX-License-Identifier: MIT
# fsync_every and trim_pct, on a loop device (root only). fsync_every = 8 issues one flush per 8
# writes of a thread (the run's "flush" figures; the disk's flush counter sees them, fewer
# where the block layer folds flushes in flight together);
# trim_pct = 10 makes about 10 % of the I/Os discards (the run's "trim" figures, and the disk's
# discard counter); both with io_uring and psync. A target without discard fails the run with a
# message naming the trim (a loop device over a ramfs file); an engine that cannot discard
# (libaio) is refused by check, on the key's line.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for a loop device"
need_cmd losetup python3
img=$(mktemp /dev/shm/iom-ft.XXXXXX)
loop=""
cleanup() { [ -n "$loop" ] && losetup -d "$loop"; rm -f "$img"; }
on_exit cleanup
truncate -s 64M "$img"
loop=$(losetup -f --show "$img" 2>err) || skip "no loop device: $(cat err)"
name=${loop#/dev/}
[ "$(cat "/sys/block/$name/queue/discard_max_bytes")" != 0 ] || skip "$loop does not discard"

cat >m.cfg <<CFG
iomatrix = 1;
name = "ft";
targets = ( { label = "d"; path = "$loop"; destructive = true; } );
workload = { block_size = "4K"; read_pct = 0; queue_depth = 4; engine = [ "io_uring", "psync" ];
             fsync_every = [ 0, 8 ]; trim_pct = [ 0, 10 ]; };
timing = { warmup = "0s"; duration = "300ms"; };
trace = false;
CFG
"$IOMATRIX" run m.cfg -o out -q >run.out 2>run.err || die "run failed: $(cat run.err)"
python3 - <<'PY' || die "flush and trim counts"
import glob, json
for f in sorted(glob.glob("out/runs/*.json")):
    r = json.load(open(f))
    c = r["cell"]
    assert r["status"] == "ok", (f, r.get("error"))
    w = r["write"]["ios"]
    fl = (r["flush"] or {}).get("ios", 0)
    tr = (r["trim"] or {}).get("ios", 0)
    d = r["disk"]
    print(f, c["engine"], "fsync_every", c["fsync_every"], "trim_pct", c["trim_pct"],
          "writes", w, "flushes", fl, "trims", tr, "disk flushes", d["flushes"], "discards", d["discards"])
    if c["fsync_every"] == 8:
        # one flush per 8 writes issued; the window cuts at most a few in flight
        assert abs(fl - w / 8) <= 4, (f, w, fl)
        assert r["flush"]["lat_ns"]["mean"] > 0, f
        # the block layer may fold flushes in flight together into one
        assert fl / 2 <= d["flushes"] <= fl + 4, (f, d, fl)
    else:
        assert fl == 0 and d["flushes"] <= 2, (f, fl, d)
    if c["trim_pct"] == 10:
        # each read, write or trim drawn a trim with probability 0.1 (a flush is not drawn: it
        # follows every 8th write): within 4 standard deviations of the count's binomial spread
        # (a busy machine makes fewer I/Os, and the share wanders more)
        n = tr + w + r["read"]["ios"]
        share = tr / n
        assert abs(share - 0.1) <= 4 * (0.1 * 0.9 / n) ** 0.5, (f, share, n)
        assert abs(d["discards"] - tr) <= 8, (f, d, tr)
        assert r["trim"]["bytes"] == tr * 4096, f
    else:
        assert tr == 0 and d["discards"] == 0, (f, tr, d)
    if c["fsync_every"] == 0 and c["trim_pct"] == 0:
        assert r["flush"] is None and r["trim"] is None, f
PY

# an engine without discard is refused before anything runs
sed 's/engine = \[ "io_uring", "psync" \]/engine = "libaio"/; s/fsync_every = \[ 0, 8 \]; //' m.cfg >aio.cfg
"$IOMATRIX" check aio.cfg >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 2 ] || die "libaio with trim_pct: exit $rc"
grep -q "^aio.cfg:5: engine libaio cannot discard (trim_pct) (target 'd')" err.txt ||
    die "libaio with trim_pct: $(cat err.txt)"

# a device that does not discard (a loop device over a file on ramfs, which has no fallocate):
# the run fails, naming the trim and what to change
mnt=$(mktemp -d /tmp/iom-ft-ramfs.XXXXXX)
loop2=""
cleanup() {
    [ -n "$loop2" ] && losetup -d "$loop2"
    grep -q " $mnt " /proc/mounts && umount "$mnt"
    rmdir "$mnt"
    [ -n "$loop" ] && losetup -d "$loop"
    rm -f "$img"
}
mount -t ramfs none "$mnt" || { echo "cannot mount ramfs: the rest skipped"; exit $fail; }
truncate -s 16M "$mnt/back"
loop2=$(losetup -f --show "$mnt/back" 2>err) || { echo "no loop device: the rest skipped"; exit $fail; }
[ "$(cat "/sys/block/${loop2#/dev/}/queue/discard_max_bytes")" = 0 ] ||
    { echo "$loop2 discards: the rest skipped"; exit $fail; }
cat >nod.cfg <<CFG
iomatrix = 1;
name = "nodiscard";
targets = ( { label = "nodiscard"; path = "$loop2"; destructive = true; } );
workload = { block_size = "4K"; read_pct = 0; engine = [ "io_uring", "psync" ]; trim_pct = 10; };
timing = { warmup = "0s"; duration = "200ms"; };
trace = false;
CFG
"$IOMATRIX" run nod.cfg -o nod -q >out.txt 2>err.txt && die "a trim on a device without discard did not fail"
n=$(grep -l "trim at offset [0-9]* failed: Operation not supported (the target does not discard" nod/runs/*.json | wc -l)
[ "$n" -eq 2 ] || die "no clear error for a device without discard: $(cat err.txt)"
"$IOMATRIX" report nod >rep.txt 2>&1
grep -q "run 1 (nodiscard io_uring): failed: trim at offset" rep.txt ||
    die "the report does not name the target of the failed trim: $(cat rep.txt)"
exit $fail
