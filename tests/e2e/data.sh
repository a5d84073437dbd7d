#!/bin/sh
# SPDX-License-Identifier: MIT
# data = …: what writes carry, read back from the target. One sequential write pass over the
# first 4M of a loop device (4K blocks) per value (the uncounted I/O after the pass goes on
# beyond them), then those 4M are read: dedupe:30% leaves about 30 % of the blocks repeating an
# earlier block (by hash), compressible:50% gzips (block by block, as storage compresses) to
# 40-60 % of its size, zeros to almost nothing, random not at all (and no block repeats).
# Root only.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for a loop device"
need_cmd losetup python3
img=$(mktemp /dev/shm/iom-data.XXXXXX)
loop=""
cleanup() { [ -n "$loop" ] && losetup -d "$loop"; rm -f "$img"; }
on_exit cleanup
truncate -s 64M "$img"
loop=$(losetup -f --show "$img" 2>err) || skip "no loop device: $(cat err)"

for d in random zeros compressible:50% dedupe:30%; do
    n=$(echo "$d" | tr -c 'a-z0-9\n' '_')
    cat >m$n.cfg <<CFG
iomatrix = 1;
name = "data";
targets = ( { label = "d"; path = "$loop"; destructive = true; } );
workload = { block_size = "4K"; read_pct = 0; pattern = "sequential"; engine = "psync";
             data = "$d"; };
timing = { warmup = "0s"; bytes = "4M"; };
trace = false;
CFG
    "$IOMATRIX" run m$n.cfg -o out$n -q >run.out 2>run.err || die "run with data $d: $(cat run.err)"
    python3 - "$loop" "$d" <<'PY' || die "data $d"
import hashlib, sys, zlib
dev, data = sys.argv[1], sys.argv[2]
raw = open(dev, "rb").read(4 << 20)  # what the counted pass wrote; the I/O after it goes on
blocks = [raw[i:i + 4096] for i in range(0, len(raw), 4096)]
seen, repeats = set(), 0
for b in blocks:
    h = hashlib.sha1(b).digest()
    repeats += h in seen
    seen.add(h)
# compressed block by block, as storage compresses (each 4K on its own)
share = sum(len(zlib.compress(b, 6)) for b in blocks) / len(raw)
rep = repeats / len(blocks)
print("data %s: %d blocks, %.1f %% repeat an earlier one, gzip to %.1f %%" % (data, len(blocks), 100 * rep, 100 * share))
if data == "dedupe:30%":
    assert 0.25 <= rep <= 0.35, rep
    assert share > 0.95, share
elif data == "compressible:50%":
    assert 0.40 <= share <= 0.60, share
    assert rep < 0.01, rep
elif data == "zeros":
    assert share < 0.01 and rep > 0.99, (share, rep)
else:
    assert share > 0.99 and repeats == 0, (share, repeats)
PY
done
# verify keeps working with compressible data: a 50/50 mix checks every sector it reads back
cat >v.cfg <<CFG
iomatrix = 1;
name = "vdata";
targets = ( { label = "d"; path = "$loop"; destructive = true; size = "4M"; } );
workload = { block_size = [ "4K", "64K" ]; read_pct = 50; queue_depth = 8; verify = true;
             data = "compressible:50%"; };
timing = { warmup = "0s"; duration = "300ms"; };
trace = false;
CFG
"$IOMATRIX" run v.cfg -o vout -q >run.out 2>run.err || die "verify with compressible data: $(cat run.err)"
python3 - <<'PY' || die "verify with compressible data"
import glob, json
for f in sorted(glob.glob("vout/runs/*.json")):
    r = json.load(open(f))
    v = r["verify"]
    print(f, r["status"], "sectors checked", v["sectors_checked"], "mismatches", v["mismatches"])
    assert r["status"] == "ok" and v["mismatches"] == 0 and v["sectors_checked"] > 0, (f, v)
PY

# The scratch fill follows data only with fill_data = true (a read-only cell leaves it as filled).
for fd in "true zeros" "true compressible:50%" "false zeros"; do
    set -- $fd
    n=$(echo "$1$2" | tr -c 'a-z0-9\n' '_')
    cat >f$n.cfg <<CFG
iomatrix = 1;
name = "fill";
targets = ( { label = "f"; path = "$PWD/f$n.dat"; size = "4M"; fill_data = $1; } );
workload = { block_size = "4K"; read_pct = 100; data = "$2"; };
timing = { warmup = "0s"; duration = "50ms"; };
trace = false;
CFG
    "$IOMATRIX" run f$n.cfg -o fout$n -q >run.out 2>run.err || die "fill_data = $1, $2: $(cat run.err)"
    python3 - "f$n.dat" "$1" "$2" <<'PY' || die "fill_data = $1, data $2"
import sys, zlib
raw = open(sys.argv[1], "rb").read()
blocks = [raw[i:i + 4096] for i in range(0, len(raw), 4096)]
share = sum(len(zlib.compress(b, 6)) for b in blocks) / len(raw)
print("fill_data = %s, data %s: the fill gzips to %.1f %%" % (sys.argv[2], sys.argv[3], 100 * share))
want = {"truezeros": (0, 0.01), "truecompressible:50%": (0.4, 0.6), "falsezeros": (0.99, 1.02)}
lo, hi = want[sys.argv[2] + sys.argv[3]]
assert lo <= share <= hi, share
PY
done
grep -q '"data": "dedupe:30%"' outdedupe_30_/runs/00001.json || die "the cell does not name the data: $(grep -o '"cell": {[^}]*}' outdedupe_30_/runs/00001.json)"
exit $fail
