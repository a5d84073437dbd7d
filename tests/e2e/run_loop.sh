#!/bin/sh
# SPDX-License-Identifier: MIT
# A run on a block device: a loop device over a file in /dev/shm (root only). Writing needs
# destructive = true (refused before the sweep starts otherwise); the device facts name the loop driver and the backing file; the
# submit/reap policy keys (io_uring = { submit_batch; reap_wait; }, or at the top level, their
# old place, with a warning) shape the submissions of io_uring and libaio alike, and by default
# each run's notes name where its adaptive wait ended; a device that
# carries a filesystem is refused even with destructive = true.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for a loop device"
command -v losetup >/dev/null 2>&1 || { echo "losetup not installed"; exit 77; }
back=$(mktemp /dev/shm/iomatrix-e2e.XXXXXX)
dev=""
cleanup() { [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null; rm -f "$back"; }
on_exit cleanup
truncate -s 64M "$back"
dev=$(losetup -f --show "$back") || { echo "cannot attach a loop device"; exit 77; }

cat >m.cfg <<CFG
iomatrix = 1;
name = "loop";
targets = ( { label = "loop"; path = "$dev"; size = "32M"; destructive = DESTRUCTIVE; } );
workload = { block_size = "4K"; queue_depth = [1, 16]; read_pct = [100, 0];
             engine = ["io_uring", "libaio"]; };
timing = { warmup = "100ms"; duration = "300ms"; repeat = 1; };
CFG
sed 's/DESTRUCTIVE/false/' m.cfg >safe.cfg
sed 's/DESTRUCTIVE/true/' m.cfg >go.cfg

# refused before anything is written (preflight): exit 2, on the target's line, no results
"$IOMATRIX" run safe.cfg -o safe --no-trace >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 2 ] || die "writing without destructive: exit $rc"
grep -q "^safe.cfg:3: target 'loop' has cells that write to block device '$dev' (read_pct 0) but not destructive = true" err.txt ||
    die "no word of destructive: $(cat err.txt)"
[ ! -e safe ] || die "the refused sweep created its results directory"

"$IOMATRIX" run go.cfg -o go >out.txt 2>err.txt || die "run on $dev: $(cat err.txt)"
python3 - <<PY || die "device facts or results"
import json, os
s = json.load(open("go/study.json"))
f = s["targets"][0]["facts"]
assert f["driver"] == "loop", f
assert f.get("backing_file", "$back") == "$back" or "$back" in json.dumps(f), f
assert len(os.listdir("go/runs")) == 8
for n in os.listdir("go/runs"):
    r = json.load(open("go/runs/" + n))
    assert r["status"] == "ok" and r["total"]["ios"] > 0, (n, r.get("error"))
    # the default policy is the adaptive wait, for io_uring and libaio alike: the notes say
    # where the thread's wait ended, a power of two from 1 to half the queue
    notes = r["engine_notes"]
    assert "submit_batch 1, reap_wait adaptive (ended at " in notes, notes
    end = int(notes.split("(ended at ")[1].split()[0])
    qd = r["cell"]["queue_depth"]
    assert end >= 1 and end & (end - 1) == 0 and end <= max(1, qd // 2), notes
PY

# The submit/reap policy reaches the worker: with submit_batch = 16 every submission of a QD32
# run carries at least 16 I/Os (the I/Os of one submission share one submit stamp in the trace),
# with io_uring and with libaio; submit_batch 1 with reap_wait "1/4", which refills as soon as a
# quarter of the queue is reaped, submits fewer. The keys' old place, the top level, is still read, with a warning.
cat >pol.cfg <<CFG
iomatrix = 1;
name = "policy";
io_uring = { submit_batch = SB; reap_wait = RW; };
targets = ( { label = "loop"; path = "$dev"; size = "32M"; } );
workload = { block_size = "4K"; queue_depth = 32; read_pct = 100; engine = "ENGINE"; };
timing = { warmup = "0s"; duration = "300ms"; };
CFG
sed 's/SB/16/; s/RW/16/; s/ENGINE/io_uring/' pol.cfg >pol16.cfg
sed 's/SB/16/; s/RW/16/; s/ENGINE/libaio/' pol.cfg >pol116.cfg
sed 's/^io_uring = { submit_batch = SB; reap_wait = RW; };$/submit_batch = 1;\nreap_wait = "1\/4";/
     s/ENGINE/io_uring/' pol.cfg >pol1.cfg
for p in 16 116 1; do
    "$IOMATRIX" run pol$p.cfg -o pol$p >out.txt 2>err$p.txt || die "policy run: $(cat err$p.txt)"
    "$IOMATRIX" trace pol$p/traces/00001.trace.gz -o pol$p.csv 2>err.txt ||
        die "policy trace: $(cat err.txt)"
done
grep -q "^pol1.cfg:3: warning: 'submit_batch' at the top level is now io_uring.submit_batch$" err1.txt &&
    grep -q "^pol1.cfg:4: warning: 'reap_wait' at the top level is now io_uring.reap_wait$" err1.txt ||
    die "no warning for the old spelling: $(cat err1.txt)"
! grep -q "warning" err16.txt || die "a warning for the new spelling: $(cat err16.txt)"
python3 - <<'PY' || die "the policy"
import collections, csv, json, statistics
def batches(csvfile):
    n = collections.Counter()
    for row in csv.DictReader(open(csvfile)):
        n[(row["thread"], row["time_ns"])] += 1  # time_ns: when the I/O was submitted
    return list(n.values())
notes = {p: json.load(open("pol%d/runs/00001.json" % p))["engine_notes"] for p in (16, 116, 1)}
assert "submit_batch 16, reap_wait 16" in notes[16], notes
assert notes[116].startswith("libaio") and "submit_batch 16, reap_wait 16" in notes[116], notes
assert "submit_batch 1, reap_wait 1/4" in notes[1], notes
b16, baio, b1 = batches("pol16.csv"), batches("pol116.csv"), batches("pol1.csv")
assert len(b16) > 10 and min(b16) >= 16, (len(b16), min(b16), sorted(b16)[:10])
assert len(baio) > 10 and min(baio) >= 16, (len(baio), min(baio), sorted(baio)[:10])
assert statistics.median(b1) < 16, sorted(b1)[len(b1) // 2]
print("submissions: %d with submit_batch 16 (smallest %d), %d with libaio (smallest %d), "
      "%d by default (median %g)" % (len(b16), min(b16), len(baio), min(baio), len(b1),
                                      statistics.median(b1)))
PY

# a filesystem signature makes the device untouchable
if command -v mkfs.ext4 >/dev/null 2>&1; then
    mkfs.ext4 -q -F "$dev" >/dev/null 2>&1
    "$IOMATRIX" run go.cfg -o ext4 --no-trace >out.txt 2>err.txt; rc=$?
    [ "$rc" -eq 1 ] || die "device with ext4: exit $rc"
    grep -q "ext4" err.txt || die "no word of ext4: $(cat err.txt)"
fi
exit $fail
