#!/bin/sh
# SPDX-License-Identifier: MIT
# A target with paths = [ … ] (several paths): one run drives both scratch files at once — worker
# thread i on path i mod 2 — and the run's per-path figures add up to its totals, each path
# with I/O of its own, both in flight in the same window (the trace); a bytes-bound window is
# exact across the paths. A bad path among several is refused naming it, before anything is
# written to the good one; a symbolic link among them is refused as a single path is (#14);
# a path swapped for a link mid-sweep fails that target's later runs naming it (each path's
# identity is pinned); `iomatrix diskspd` with two files runs one target with both. As root: two loop devices with
# destructive = true, each device's own write counter seeing its writes.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
here=$(pwd)

cat >m.cfg <<CFG
iomatrix = 1;
name = "paths";
targets = ( { label = "two"; paths = [ "$here/a.scratch", "$here/b.scratch" ]; size = "16M"; } );
workload = { block_size = "4K"; read_pct = 50; queue_depth = 4; threads = 4; engine = "io_uring";
             direct = false; };
timing = { warmup = "0s"; duration = "400ms"; rest = "0s"; };
CFG
"$IOMATRIX" run m.cfg -o out -q >run.out 2>run.err || die "run failed: $(cat run.err)"
[ -f a.scratch ] && [ -f b.scratch ] || die "the scratch files were not both made"
"$IOMATRIX" trace out/traces/00001.trace.gz --format csv -o t.csv 2>err || die "trace: $(cat err)"
python3 - out/runs/00001.json t.csv "$here" <<'PY' || die "per-path figures"
import csv, json, sys
r = json.load(open(sys.argv[1]))
here = sys.argv[3]
assert r["status"] == "ok", r.get("error")
p = r["paths"]
assert [x["path"] for x in p] == [here + "/a.scratch", here + "/b.scratch"], p
for d in ("read", "write", "total"):
    assert sum(x[d]["ios"] for x in p) == r[d]["ios"], (d, p, r[d])
    assert sum(x[d]["bytes"] for x in p) == r[d]["bytes"], (d, p, r[d])
for x in p:
    assert x["total"]["ios"] > 0 and x["read"]["ios"] > 0 and x["write"]["ios"] > 0, x
    assert x["total"]["iops"] > 0 and x["total"]["mb_s"] > 0, x
# thread i works on path i mod 2
th = r["threads"]
assert len(th) == 4, th
for k in (0, 1):
    assert sum(th[i]["total"]["ios"] for i in range(k, 4, 2)) == p[k]["total"]["ios"], (k, th, p)
# both paths in flight in the same window: I/Os of one path submitted while one of the other
# was in flight (the trace: submit time and latency, thread i on path i mod 2)
rows = [(int(x["time_ns"]), int(x["time_ns"]) + int(x["latency_ns"]), int(x["thread"]) % 2)
        for x in csv.DictReader(open(sys.argv[2]))]
ev = sorted([(s, 1, q) for s, e, q in rows] + [(e, -1, q) for s, e, q in rows])
inflight, both, overlapped = [0, 0], 0, 0
for t, step, q in ev:
    if step == 1 and inflight[1 - q] > 0:
        overlapped += 1
    inflight[q] += step
print("per path:", [(x["path"].rsplit("/", 1)[1], x["total"]["ios"]) for x in p],
      "total", r["total"]["ios"], "; submitted while the other path had I/O in flight:",
      overlapped, "of", len(rows))
assert overlapped >= len(rows) // 4, (overlapped, len(rows))
PY

# the run's report lists each path with its own I/Os
"$IOMATRIX" report out --run 1 >run1.txt 2>&1 || die "report --run: $(cat run1.txt)"
n=$(grep -c "^  $here/[ab]\.scratch: [0-9]* I/Os" run1.txt)
[ "$n" -eq 2 ] || die "the run's report does not list the paths: $(tail -n 5 run1.txt)"

# a bytes-bound window: exactly its bytes, split over the paths by their threads
sed 's/duration = "400ms"/bytes = "8M"/' m.cfg >bytes.cfg
"$IOMATRIX" run bytes.cfg -o outb -q --no-trace >run.out 2>run.err || die "bytes run: $(cat run.err)"
python3 - outb/runs/00001.json <<'PY' || die "bytes-bound per-path figures"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "ok", r.get("error")
p = r["paths"]
print("bytes-bound:", [x["total"]["bytes"] for x in p], "of", r["total"]["bytes"])
assert r["total"]["bytes"] == 8 << 20, r["total"]
assert [x["total"]["bytes"] for x in p] == [4 << 20, 4 << 20], p
PY

# a bad path among several: refused naming it, and the good one is not touched
sum_a=$(md5sum <a.scratch)
mkdir ro
sed "s#\"$here/b.scratch\"#\"$here/nodir/b.scratch\"#; s#\"$here/a.scratch\"#\"$here/c.scratch\"#" \
    m.cfg >bad.cfg
"$IOMATRIX" run bad.cfg -o outbad -q >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 2 ] || die "a bad path among several: exit $rc, want 2"
grep -q "^bad.cfg:3: target 'two': directory '$here/nodir' does not exist" err.txt ||
    die "the bad path is not named: $(cat err.txt)"
[ ! -e c.scratch ] || die "the good path was created though another path is bad"
[ ! -e outbad/runs ] || die "a results directory was written"
# the good path an existing scratch file: not written either
sed "s#\"$here/b.scratch\"#\"$here/nodir/b.scratch\"#" m.cfg >bad2.cfg
"$IOMATRIX" run bad2.cfg -o outbad2 -q >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 2 ] || die "a bad second path: exit $rc, want 2"
[ "$(md5sum <a.scratch)" = "$sum_a" ] || die "a.scratch changed though b's path is bad"

# an existing file that is not iomatrix's among the paths: refused before anything is written
# (by the preflight, exit 2, as `check` refuses it), the good path (new) not created
head -c 65536 /dev/urandom >theirs.dat
cp theirs.dat theirs.orig
sed "s#\"$here/a.scratch\"#\"$here/d.scratch\"#; s#\"$here/b.scratch\"#\"$here/theirs.dat\"#" \
    m.cfg >theirs.cfg
"$IOMATRIX" run theirs.cfg -o outtheirs -q >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 2 ] || die "an unmarked file among the paths: exit $rc, want 2"
grep -q "'$here/theirs.dat' exists and is not an iomatrix scratch file" err.txt ||
    die "the unmarked file is not named: $(cat err.txt)"
[ ! -e d.scratch ] || die "the good path was created though another path is not iomatrix's"
cmp theirs.dat theirs.orig || die "the unmarked file was written"

# a symbolic link among the paths: refused as a single path is, the file it leads to unchanged
echo "someone else's" >other
ln -s other l.scratch
sed "s#\"$here/b.scratch\"#\"$here/l.scratch\"#" m.cfg >link.cfg
"$IOMATRIX" run link.cfg -o outlink -q >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 2 ] || die "a symbolic link among the paths: exit $rc, want 2"
grep -q "'$here/l.scratch' is a symbolic link to 'other'" err.txt ||
    die "the link is not named: $(cat err.txt)"
[ "$(cat other)" = "someone else's" ] || die "the link's file was written"
[ "$(md5sum <a.scratch)" = "$sum_a" ] || die "a.scratch changed though a link is among the paths"

# the same file twice under two names: refused before anything runs
sed "s#\"$here/b.scratch\"#\"$here/./a.scratch\"#" m.cfg >dup.cfg
"$IOMATRIX" check dup.cfg >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 2 ] && grep -q "are the same file: give each path once" err.txt ||
    die "one file twice: exit $rc, $(cat err.txt)"

# the second path replaced by a symbolic link mid-sweep: its own pinned identity catches it at
# the next run's open, that run and the rest fail naming it, the link's file is not written
head -c 65536 /dev/urandom >victim.txt
cp victim.txt victim.orig
sed 's/duration = "400ms"; rest = "0s";/duration = "200ms"; rest = "2s"; repeat = 3;/' m.cfg |
    sed 's/read_pct = 50/read_pct = 0/' >swap.cfg
grep -q "repeat = 3" swap.cfg || die "swap.cfg has no repeat"
"$IOMATRIX" run swap.cfg -o swap -q --no-trace >swap.out 2>swap.err &
pid=$!
n=0
while [ ! -e swap/runs/00001.json ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
rm b.scratch
ln -s victim.txt b.scratch
wait "$pid"
rc=$?
[ "$rc" -eq 1 ] || die "the swapped sweep exited $rc, not 1: $(cat swap.err)"
cmp victim.txt victim.orig || die "victim.txt was written through the link"
python3 - "$here" <<'PY' || die "the swapped path's runs"
import json, sys
here = sys.argv[1]
r = [json.load(open("swap/runs/%05d.json" % i)) for i in (1, 2, 3)]
print("swapped:", [(x["status"], x.get("error")) for x in r])
assert r[0]["status"] == "ok" and len(r[0]["paths"]) == 2, r[0].get("error")
want = "'%s/b.scratch' is now a symbolic link to 'victim.txt'" % here
assert r[1]["status"] == "failed" and want in r[1]["error"], r[1].get("error")
assert r[2]["status"] == "failed" and want in r[2]["error"], r[2].get("error")
PY
rm b.scratch

# diskspd with two files: one target with both paths, both driven
"$IOMATRIX" diskspd -c8M -t1 -o2 -b4K -r -w50 -d1 -W0 --no-trace --output ds \
    "$here/x.dat" "$here/y.dat" >ds.out 2>ds.err || die "diskspd: $(cat ds.err)"
grep -q "^path: '$here/y.dat'" ds.out || die "the DiskSpd view does not list y.dat"
python3 - ds/runs/00001.json <<'PY' || die "diskspd with two files"
import json, sys
r = json.load(open(sys.argv[1]))
p = r["paths"]
assert len(p) == 2 and all(x["total"]["ios"] > 0 for x in p), p
assert sum(x["total"]["ios"] for x in p) == r["total"]["ios"], (p, r["total"])
assert r["cell"]["threads"] in (2, "2"), r["cell"]
PY

root_or_finish
need_cmd losetup
img1=$(mktemp /dev/shm/iom-paths.XXXXXX)
img2=$(mktemp /dev/shm/iom-paths.XXXXXX)
loop1="" loop2=""
cleanup() {
    [ -n "$loop1" ] && losetup -d "$loop1"
    [ -n "$loop2" ] && losetup -d "$loop2"
    rm -f "$img1" "$img2"
}
on_exit cleanup
truncate -s 32M "$img1" "$img2"
loop1=$(losetup -f --show "$img1" 2>err) || { echo "no loop device: $(cat err)"; exit $fail; }
loop2=$(losetup -f --show "$img2" 2>err) || { echo "no second loop device: $(cat err)"; exit $fail; }
cat >dev.cfg <<CFG
iomatrix = 1;
name = "paths-dev";
targets = ( { label = "loops"; paths = [ "$loop1", "$loop2" ]; destructive = true; } );
workload = { block_size = "4K"; read_pct = 0; queue_depth = 4; threads = 2; engine = "io_uring";
             direct = true; };
timing = { warmup = "0s"; duration = "300ms"; rest = "0s"; };
trace = false;
CFG
w1=$(awk '{print $5}' "/sys/block/${loop1#/dev/}/stat")
w2=$(awk '{print $5}' "/sys/block/${loop2#/dev/}/stat")
"$IOMATRIX" run dev.cfg -o outdev -q >run.out 2>run.err || die "device run: $(cat run.err)"
w1b=$(awk '{print $5}' "/sys/block/${loop1#/dev/}/stat")
w2b=$(awk '{print $5}' "/sys/block/${loop2#/dev/}/stat")
python3 - outdev/runs/00001.json "$loop1" "$loop2" $((w1b - w1)) $((w2b - w2)) <<'PY' ||
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "ok", r.get("error")
p = r["paths"]
dw = [int(sys.argv[4]), int(sys.argv[5])]
print("devices:", [(x["path"], x["write"]["ios"]) for x in p], "disk writes", dw)
assert [x["path"] for x in p] == sys.argv[2:4], p
assert sum(x["write"]["ios"] for x in p) == r["write"]["ios"], (p, r["write"])
for x, d in zip(p, dw):
    assert x["write"]["ios"] > 0, x
    # each device's own counter: at least what was counted on its path (warm-up and the
    # window's edges add a few; the block layer may merge neighbours)
    assert d > 0 and d >= x["write"]["ios"] // 2, (x, d)
PY
    die "per-device figures"
exit $fail
