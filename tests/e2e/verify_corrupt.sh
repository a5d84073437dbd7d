#!/bin/sh
# SPDX-License-Identifier: MIT
# Data verification catches corruption made behind iomatrix's back, with its offset.
#
# A 16 MiB loop device (on /dev/shm) is written whole by a verified sweep (sequential 4K writes,
# verify = true). Then, with dd on the device: 16 bytes in the middle of the sector at
# 5 MiB + 1 KiB are overwritten (bit rot: the header stays, the crc32 no longer matches), and the
# sector at 1 MiB is copied over the sector at 7 MiB (a misdirected write: a valid header for
# another offset). A second verified sweep reads the device whole: its run must fail, counting
# at least 2 mismatched sectors and naming both offsets with expected and found, first in the
# error message and the progress line, and in runs/00001.json. A third sweep on a clean device
# passes. A unit test (tests/test_verify.c) covers a sector zeroed after a verified run of the
# same sweep. Each engine that moves data does it all (io_uring, libaio), each in its own
# directory, the write sweep making the device whole again. Needs root and a loop device; skips
# (77) otherwise.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_root "skip: needs root (loop device)"
command -v losetup >/dev/null || { echo "skip: no losetup"; exit 77; }

img=/dev/shm/iom-verify-$$.img
dev=
cleanup() {
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	rm -f "$img"
}
on_exit cleanup
dd if=/dev/zero of="$img" bs=1M count=16 status=none || { echo "skip: cannot create $img"; exit 77; }
dev=$(losetup -f --show "$img" 2>/dev/null) || { dev=; echo "skip: no loop device"; exit 77; }

matrix() { # READ_PCT ENGINE
	cat <<CFG
iomatrix = 1;
name = "verify";
targets = ( { label = "loop"; path = "$dev"; destructive = true; } );
workload = { engine = "$2"; direct = true; pattern = "sequential"; block_size = "4K";
             queue_depth = 4; read_pct = $1; verify = true; };
timing = { warmup = "0s"; bytes = "16M"; repeat = 1; };
CFG
}

for engine in io_uring libaio; do
mkdir "$engine" && cd "$engine" || exit 1
matrix 0 "$engine" >write.cfg
matrix 100 "$engine" >read.cfg
"$IOMATRIX" run write.cfg -o w --no-trace >w.txt 2>&1 || die "$engine: write sweep failed: $(cat w.txt)"
python3 - <<'PY' || die "$engine: write run: no verify block"
import json
r = json.load(open("w/runs/00001.json"))
assert r["status"] == "ok", r.get("error")
v = r["verify"]
assert v["sectors_written"] >= 16 * 2048, v
assert v["mismatches"] == 0, v
PY

# a clean read passes and checks every sector
"$IOMATRIX" run read.cfg -o clean --no-trace >clean.txt 2>&1 || die "$engine: clean read failed: $(cat clean.txt)"
python3 - <<'PY' || die "$engine: clean read"
import json
r = json.load(open("clean/runs/00001.json"))
assert r["status"] == "ok", r.get("error")
v = r["verify"]
assert v["sectors_checked"] >= 16 * 2048 and v["mismatches"] == 0 and v["sectors_unwritten"] == 0, v
PY

# behind iomatrix's back: bit rot at 5 MiB + 1 KiB, a misdirected write at 7 MiB
printf 'CORRUPTCORRUPT!!' | dd of="$dev" bs=1 seek=$((5 * 1048576 + 1024 + 200)) conv=notrunc status=none
dd if="$dev" of=sector.bin bs=512 skip=$((1048576 / 512)) count=1 status=none
dd if=sector.bin of="$dev" bs=512 seek=$((7 * 1048576 / 512)) conv=notrunc oflag=direct status=none
blockdev --flushbufs "$dev" 2>/dev/null

"$IOMATRIX" run read.cfg -o r --no-trace >r.txt 2>&1
rc=$?
[ "$rc" -ne 0 ] || die "$engine: the corrupt read sweep exited 0"
grep -q "data verification failed: [0-9]* mismatched sectors" r.txt ||
	die "$engine: progress line: $(cat r.txt)"
grep -q "first at offset 5243904: expected crc32 [0-9a-f]* (run 1, thread 0, write [0-9]*), found crc32 [0-9a-f]* of the sector as read" r.txt ||
	die "$engine: first offset not reported: $(cat r.txt)"
python3 - <<'PY' || die "$engine: corrupt read result"
import json
r = json.load(open("r/runs/00001.json"))
assert r["status"] == "failed", r["status"]
v = r["verify"]
assert v["mismatches"] >= 2, v  # (reads after the share may repeat one)
offs = [m["offset"] for m in v["first"]][:2]
assert offs == [5 * 1048576 + 1024, 7 * 1048576], offs
m0, m1 = v["first"][:2]
assert "(run 1, thread 0" in m0["expected"] and "as read" in m0["found"], m0
assert m1["expected"] == "a header for offset 7340032", m1
assert m1["found"].startswith("a header for offset 1048576 (run 1"), m1
assert "5243904" in r["error"], r["error"]
PY
cd ..
done
exit $fail
