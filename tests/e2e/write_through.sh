#!/bin/sh
# SPDX-License-Identifier: MIT
# write_through = true: every write is on stable media when it completes. On a disk that reports
# a volatile write cache (a loop device does: "write back") and no FUA, each O_DSYNC write is the
# write and a cache flush, so the run's "disk" counters show at least one flush per write; the
# same run without write_through shows almost none. DiskSpd's -Sh maps to it (-Su does not).
# The scratch files sit on an ext4 on the loop device, so other I/O on the machine does not count.
# Every report shows it: the DiskSpd view's "hardware write cache disabled, writethrough on" and
# the disk's counts, the text report's legend and disk note, the Markdown, JSON, HTML (its
# winners' legend and a table beneath) and CSV (disk_writes, disk_flushes, write_cache, fua).
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for a loop device and a mount"
need_cmd losetup mkfs.ext4 python3
img=$(mktemp /dev/shm/iom-wt.XXXXXX)
mnt=$(mktemp -d /tmp/iom-wt-mnt.XXXXXX)
loop=""
cleanup() {
    grep -q " $mnt " /proc/mounts && umount "$mnt"
    [ -n "$loop" ] && losetup -d "$loop"
    rmdir "$mnt"
    rm -f "$img"
}
on_exit cleanup
truncate -s 96M "$img"
loop=$(losetup -f --show "$img" 2>err) || skip "no loop device: $(cat err)"
name=${loop#/dev/}
wc=$(cat "/sys/block/$name/queue/write_cache" 2>/dev/null)
[ "$wc" = "write back" ] || skip "$loop reports write_cache '$wc', not a volatile cache"
[ -n "$(awk 'NF >= 16' "/sys/block/$name/stat")" ] || skip "the kernel does not count flushes"
mkfs.ext4 -q -F "$loop" >mkfs.out 2>&1 || { die "mkfs: $(cat mkfs.out)"; exit 1; }
mount "$loop" "$mnt" || { die "cannot mount $loop"; exit 1; }

cat >m.cfg <<CFG
iomatrix = 1;
name = "wt";
targets = ( { label = "f"; path = "$mnt/wt.dat"; size = "16M"; } );
workload = { block_size = "4K"; read_pct = 0; queue_depth = 1; write_through = [ false, true ];
             engine = [ "io_uring", "psync", "libaio" ]; };
timing = { warmup = "0s"; bytes = "4M"; };
trace = false;
CFG
"$IOMATRIX" run m.cfg -o out -q >run.out 2>run.err || die "run failed: $(cat run.err)"

# DiskSpd: -Sh writes through, -Su does not
for s in Sh Su; do
    "$IOMATRIX" diskspd -b4K -r -w100 -$s -o1 -d1 -W0 -c16M "$mnt/ds.dat" --output ds$s --quiet \
        --no-trace >ds$s.out 2>ds$s.err || die "diskspd -$s: $(cat ds$s.err)"
done
python3 - "$name" <<'PY' || die "flush counts"
import glob, json, sys
name = sys.argv[1]
def runs(pattern):
    for f in sorted(glob.glob(pattern)):
        yield f, json.load(open(f))
seen = 0
for f, r in list(runs("out/runs/*.json")) + list(runs("dsSh/runs/*.json")) + list(runs("dsSu/runs/*.json")):
    assert r["status"] == "ok", (f, r.get("error"))
    d, w = r["disk"], r["write"]["ios"]
    assert d and d["name"] == name, (f, d)
    wt = r["cell"].get("write_through") in (True, "true")
    print(f, r["cell"].get("engine"), "write_through" if wt else "-", "writes", w,
          "disk writes", d["writes"], "flushes", d["flushes"])
    assert w >= 100, (f, w)
    if wt:
        assert d["flushes"] >= w, (f, "fewer flushes than writes", d, w)
    else:
        assert d["flushes"] <= w // 20, (f, "flushes without write_through", d, w)
    seen += wt
assert seen == 4, seen  # three engines and DiskSpd -Sh
PY
# what the disk did, shown: the DiskSpd view's write-cache line and disk counts, the report's
# legend and its disk note (every cell's writes and flushes, the cache mode, FUA), the JSON's
"$IOMATRIX" report dsSh --run 1 >dsrun.txt 2>&1 || die "report --run 1: $(cat dsrun.txt)"
grep -qx "hardware write cache disabled, writethrough on (O_DSYNC: a write completes on stable media)" dsrun.txt ||
    die "the DiskSpd view lacks the write-through line"
grep -Eq "^disk $name over the window: [0-9]+ reads, [0-9]+ writes, [0-9]+ flushes; write cache: write back, FUA: no$" dsrun.txt ||
    die "the DiskSpd view lacks the disk's counts: $(grep '^disk ' dsrun.txt)"
"$IOMATRIX" report dsSu --run 1 | grep -qx "using hardware write cache, writethrough off" ||
    die "-Su's view does not say the write cache is used"
"$IOMATRIX" report out >rep.txt 2>&1 || die "report: $(cat rep.txt)"
tr '\n' ' ' <rep.txt | tr -s ' ' | grep -q "disk (beneath the tables): the writes and flushes the target's disk completed per run, its write cache (write back: volatile) and FUA" ||
    die "the report's legend does not name the disk figures"
grep -q "^disk per run (mean of the repetitions):$" rep.txt || die "the report has no disk note"
tr '\n' ' ' <rep.txt | tr -s ' ' | grep -Eq "write-through[^:]*: f [0-9.]+K? writes, [0-9.]+K? flushes \(write back, no FUA\)" ||
    die "the disk note: $(sed -n '/^disk per run/,$p' rep.txt)"
"$IOMATRIX" report out --format md >rep.md 2>&1 || die "report md"
grep -q "flushes (write back, no FUA)" rep.md || die "the Markdown report has no disk counts"
grep -q "^Beneath the tables, \*\*Disk\*\*: the writes and flushes the target's disk completed per run" rep.md ||
    die "the Markdown report's legend does not name the disk figures"
"$IOMATRIX" report out --format json >rep.json 2>&1 || die "report json"
grep -q '"disk": {' rep.json || die "the JSON report has no disk figures"
"$IOMATRIX" report out --format html >rep.html 2>&1 || die "report html"
grep -q "beneath the table, the disk per run: its writes and flushes, its write cache and FUA</p>" rep.html ||
    die "the HTML winners' legend does not name the disk figures"
grep -Eq '^<tr><td class="l">[^<]*write-through[^<]*</td><td class="l">f</td><td class="l">[0-9.]+K? writes, [0-9.]+K? flushes \(write back, no FUA\)</td></tr>$' rep.html ||
    die "the HTML report has no disk row: $(grep -A3 'id="disk"' rep.html)"
# the CSV's disk columns: a write-through row's disk flushed about once per write it was given
# (ext4's journal adds a disk write per O_DSYNC write, so half the disk's writes), the others
# almost never
"$IOMATRIX" report out --format csv >rep.csv 2>&1 || die "report csv"
python3 - rep.csv <<'PY2' || die "the CSV's disk columns"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
wt = [r for r in rows if r["write_through"] == "true"]
assert wt and all(r["write_cache"] == "write back" and r["fua"] == "no" for r in rows), rows[0]
assert all(float(r["disk_flushes"]) >= 0.4 * float(r["disk_writes"]) > 0 for r in wt), wt[0]
assert all(float(r["disk_flushes"]) <= float(r["disk_writes"]) / 20 for r in rows if r not in wt)
PY2
exit $fail
