#!/bin/sh
# SPDX-License-Identifier: MIT
# Preflight: `check` names, on the target's line, what would make a sweep fail, and exits 2;
# `run` and `resume` refuse the same before they write anything (no "N runs into DIR" line, no
# results directory, no scratch file, the directory listing unchanged).
# Without root: a scratch file in a directory that does not exist; an existing file iomatrix did
# not create (its sha256 unchanged); one larger than the free
# space of /dev/shm; io_uring.iopoll on a filesystem without poll queues; a missing device path; a sweep that can run (exit 0); a resume whose
# scratch directory went away. With root (skipped with a note otherwise): a 10M scratch file
# on a 2M tmpfs, two that fit alone but not together, a read-only directory, the trace
# estimate against a small results filesystem (a warning, exit 0), and on a loop device
# read_pct = 67 without destructive = true, a region larger than the device, and a
# filesystem-dimension target, which is checked only for what exists before its mkfs.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
# snap: everything a write in the current directory would change (names, types, sizes, mtimes)
snap() { find . -path ./o -prune -o -printf '%p %y %s %T@\n' | sort; }
mkdir o # what the commands print goes here, outside what snap looks at
# refused CFG LINE PATTERN: check and run both refuse CFG with PATTERN on LINE, writing nothing
refused() {
    cfg=$1 line=$2 pattern=$3
    snap >o/snap.before
    "$IOMATRIX" check "$cfg" >o/out.txt 2>o/err.txt
    rc=$?
    [ "$rc" -eq 2 ] || die "check $cfg: exit $rc, want 2: $(cat o/err.txt)"
    grep -q "^$cfg:$line: $pattern" o/err.txt || die "check $cfg: no '$cfg:$line: $pattern' in: $(cat o/err.txt)"
    grep -q "valid, " o/out.txt && die "check $cfg says valid: $(cat o/out.txt)"
    "$IOMATRIX" run "$cfg" -o res --log run.log >o/out.txt 2>o/err.txt
    rc=$?
    [ "$rc" -eq 2 ] || die "run $cfg: exit $rc, want 2: $(cat o/err.txt)"
    grep -q "^$cfg:$line: $pattern" o/err.txt || die "run $cfg: no '$cfg:$line: $pattern' in: $(cat o/err.txt)"
    grep -q "nothing was written" o/err.txt || die "run $cfg: the refusal does not say nothing was written"
    grep -q "runs into" o/out.txt && die "run $cfg printed '$(cat o/out.txt)' before refusing"
    [ -e res ] && die "run $cfg made its results directory"
    [ -e run.log ] && die "run $cfg opened its log"
    snap >o/snap.after
    cmp -s o/snap.before o/snap.after || die "run or check of $cfg wrote: $(diff o/snap.before o/snap.after)"
}

# a scratch file in a directory that does not exist (line 5)
cat >nodir.cfg <<'CFG'
iomatrix = 1;
name = "nodir";
targets = (
  { label = "ok"; path = "ok.scratch"; size = "1M"; },
  { label = "lost"; path = "no/such/dir/x.scratch"; size = "1M"; }
);
workload = { engine = "null"; direct = false; read_pct = 100; };
timing = { warmup = "0s"; duration = "100ms"; };
CFG
refused nodir.cfg 5 "target 'lost': directory 'no/such/dir' does not exist"
[ -e ok.scratch ] && die "the good target's scratch file was made by a refused sweep"

# an existing file iomatrix did not create at a scratch path (line 4): refused at check, the
# file's sha256 unchanged; with overwrite = true it is taken over
echo "a file of the user's" >mine.dat
sum=$(sha256sum <mine.dat)
cat >mine.cfg <<'CFG'
iomatrix = 1;
name = "mine";
targets = (
  { label = "m"; path = "mine.dat"; size = "1M"; }
);
workload = { engine = "null"; direct = false; read_pct = 100; };
timing = { warmup = "0s"; duration = "100ms"; };
CFG
refused mine.cfg 4 "target 'm': 'mine.dat' exists and is not an iomatrix scratch file; set overwrite = true in target 'm' to use it"
[ "$(sha256sum <mine.dat)" = "$sum" ] || die "the refused sweep changed the user's file"
sed 's/size = "1M"; }/size = "1M"; overwrite = true; }/' mine.cfg >mine_ow.cfg
"$IOMATRIX" check mine_ow.cfg >o/out.txt 2>o/err.txt || die "check with overwrite = true: $(cat o/err.txt)"
rm -f mine.dat

# io_uring.iopoll where the scratch file's filesystem has no poll queues (this directory's:
# tmpfs, or a disk without poll queues): refused at check, not at the run (line 4)
cat >iopoll.cfg <<'CFG'
iomatrix = 1;
io_uring = { iopoll = true; };
targets = (
  { label = "p"; path = "p.scratch"; size = "1M"; }
);
workload = { engine = ["io_uring", "psync"]; direct = true; read_pct = 100; };
timing = { warmup = "0s"; duration = "100ms"; };
CFG
refused iopoll.cfg 4 "target 'p': io_uring.iopoll: "

# a scratch file larger than the free space of /dev/shm (line 4)
free_k=$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')
big=$(( free_k / 1024 / 1024 + 2 ))G
shm=/dev/shm/iom-preflight-$$.scratch
cat >nospace.cfg <<CFG
iomatrix = 1;
name = "nospace";
targets = (
  { label = "huge"; path = "$shm"; size = "$big"; }
);
workload = { engine = "null"; direct = false; read_pct = 100; };
timing = { warmup = "0s"; duration = "100ms"; };
CFG
refused nospace.cfg 4 "target 'huge': scratch file '$shm' needs [0-9.]* GiB more on its filesystem, which has [0-9.]* [KMG]iB free (at '/dev/shm')"
[ -e "$shm" ] && { rm -f "$shm"; die "a scratch file was made in /dev/shm"; }

# a missing device (line 4)
cat >nodev.cfg <<'CFG'
iomatrix = 1;
name = "nodev";
targets = (
  { label = "disk"; device = "/dev/iomatrix-no-such-disk"; }
);
workload = { engine = "null"; read_pct = 100; };
timing = { warmup = "0s"; duration = "100ms"; };
CFG
refused nodev.cfg 4 "target 'disk': device '/dev/iomatrix-no-such-disk' does not exist"
[ -e /dev/iomatrix-no-such-disk ] && die "a file was made at the device's path"

# what can run passes check, and runs
"$IOMATRIX" check --set 'targets=({ label = "ok"; path = "ok.scratch"; size = "1M"; })' nodir.cfg \
    >o/out.txt 2>o/err.txt || die "check of a runnable matrix: $(cat o/err.txt)"
grep -q "^nodir.cfg: valid, 1 run$" o/out.txt || die "check of a runnable matrix printed: $(cat o/out.txt)"
[ -s o/err.txt ] && die "check of a runnable matrix warned: $(cat o/err.txt)"
# --matrix-only checks the file alone
"$IOMATRIX" check --matrix-only nodir.cfg >o/out.txt 2>o/err.txt || die "check --matrix-only: $(cat o/err.txt)"
grep -q "^nodir.cfg: valid, 2 runs$" o/out.txt || die "check --matrix-only printed: $(cat o/out.txt)"

# resume refuses when a target's directory went away before its runs were done, and writes
# nothing (the journal, the run files and the listing are the same)
mkdir sub
cat >res.cfg <<'CFG'
iomatrix = 1;
name = "res";
targets = (
  { label = "a"; path = "sub/a.scratch"; size = "1M"; }
);
workload = { engine = "null"; direct = false; read_pct = 100; block_size = [ "4K", "8K" ]; };
timing = { warmup = "0s"; duration = "50ms"; };
trace = false;
CFG
"$IOMATRIX" run res.cfg -o study -q >o/out.txt 2>o/err.txt || die "the study to resume: $(cat o/err.txt)"
# as if killed during run 2: no run-done of it, no study-end, no run file
grep -v "	study-end	" study/journal | grep -v "	run-done	2	" >j && mv j study/journal
rm -f study/runs/00002.json
rm -rf sub
snap >o/snap.before
"$IOMATRIX" resume study >o/out.txt 2>o/err.txt
rc=$?
[ "$rc" -eq 2 ] || die "resume without the scratch directory: exit $rc, want 2: $(cat o/err.txt)"
grep -q "^study/matrix.cfg:4: target 'a': directory 'sub' does not exist" o/err.txt ||
    die "resume without the scratch directory: $(cat o/err.txt)"
grep -q "runs into" o/out.txt && die "resume printed '$(cat o/out.txt)' before refusing"
snap >o/snap.after
cmp -s o/snap.before o/snap.after || die "the refused resume wrote: $(diff o/snap.before o/snap.after)"
mkdir sub
"$IOMATRIX" resume study -q >o/out.txt 2>o/err.txt || die "resume once the directory is back: $(cat o/err.txt)"
[ -f study/runs/00002.json ] || die "the resumed run was not redone"

# ---- root only -----------------------------------------------------------------------------
root_or_finish
loop="" img=""
cleanup() {
    for m in small ro results; do mountpoint -q "$m" 2>/dev/null && umount "$m"; done
    [ -n "$loop" ] && losetup -d "$loop"
    [ -n "$img" ] && rm -f "$img"
    rm -f "$shm"
}
on_exit cleanup
mkdir small ro results
mount -t tmpfs -o size=2M iom-preflight small || { echo "cannot mount a tmpfs"; exit 77; }
mount -t tmpfs -o ro,size=1M iom-preflight-ro ro || die "cannot mount a read-only tmpfs"

# a 10M scratch file on a 2M filesystem (line 4); two of 1.5M that do not fit together (line 5)
cat >small.cfg <<'CFG'
iomatrix = 1;
name = "small";
targets = (
  { label = "ten"; path = "small/ten.scratch"; size = "10M"; }
);
workload = { engine = "null"; direct = false; read_pct = 100; };
timing = { warmup = "0s"; duration = "100ms"; };
CFG
refused small.cfg 4 "target 'ten': scratch file 'small/ten.scratch' needs 10.0 MiB more on its filesystem, which has 2.0 MiB free (at 'small')"
cat >two.cfg <<'CFG'
iomatrix = 1;
name = "two";
targets = (
  { label = "x"; path = "small/x.scratch"; size = "1536K"; },
  { label = "y"; path = "small/y.scratch"; size = "1536K"; }
);
workload = { engine = "null"; direct = false; read_pct = 100; };
timing = { warmup = "0s"; duration = "100ms"; };
CFG
refused two.cfg 5 "target 'y': scratch file 'small/y.scratch' does not fit: the scratch files of targets 'x' (1.5 MiB), 'y' (1.5 MiB) on one filesystem need 3.0 MiB in all, and it has 2.0 MiB free"
[ -z "$(ls -A small)" ] || die "the tmpfs is not empty: $(ls -A small)"

# a read-only directory (line 4)
sed 's|small/ten.scratch"; size = "10M"|ro/a.scratch"; size = "64K"|' small.cfg >ro.cfg
refused ro.cfg 4 "target 'ten': directory 'ro' is not writable (Read-only file system)"

# the traces might not fit where the results go: a warning on the timing line (7), exit 0
cat >traces.cfg <<CFG
iomatrix = 1;
name = "traces";
targets = (
  { label = "a"; path = "$PWD/ok.scratch"; size = "1M"; }
);
workload = { engine = "null"; direct = false; read_pct = 100; };
timing = { warmup = "0s"; duration = "10s"; };
CFG
(cd small && "$IOMATRIX" check ../traces.cfg) >o/out.txt 2>o/err.txt || die "check with the trace warning: $(cat o/err.txt)"
grep -q "^\.\./traces\.cfg: valid, 1 run$" o/out.txt || die "check with the trace warning printed: $(cat o/out.txt)"
grep -q "^\.\./traces\.cfg:7: warning: the traces of the 1 run to do may need about 7.6 MiB (an estimate: 8 bytes per I/O at an assumed 100000 I/O per second" o/err.txt ||
    die "no trace warning on line 7: $(cat o/err.txt)"
[ -z "$(ls -A small)" ] || die "check wrote in the current directory: $(ls -A small)"
"$IOMATRIX" check --set trace=false traces.cfg >o/out.txt 2>o/err.txt || die "check with trace = false: $(cat o/err.txt)"
[ -s o/err.txt ] && die "trace = false still warns: $(cat o/err.txt)"

# a loop device
img=$(mktemp /dev/shm/iom-preflight.XXXXXX)
truncate -s 64M "$img"
loop=$(losetup -f --show "$img" 2>o/err.txt) || { loop=; echo "no loop device: $(cat o/err.txt)"; exit $fail; }
sum_before=$(md5sum <"$img")

# read_pct = 67 without destructive = true (line 4)
cat >rw.cfg <<CFG
iomatrix = 1;
name = "rw";
targets = (
  { label = "loop"; path = "$loop"; }
);
workload = { engine = "psync"; read_pct = 67; };
timing = { warmup = "0s"; duration = "100ms"; };
CFG
refused rw.cfg 4 "target 'loop' has cells that write to block device '$loop' (read_pct 67) but not destructive = true"
# reads alone need no destructive = true
"$IOMATRIX" check --set read_pct=100 rw.cfg >o/out.txt 2>o/err.txt || die "reading a device: $(cat o/err.txt)"

# a region larger than the device (line 4)
cat >region.cfg <<CFG
iomatrix = 1;
name = "region";
targets = (
  { label = "loop"; path = "$loop"; size = "128M"; }
);
workload = { engine = "psync"; read_pct = 100; };
timing = { warmup = "0s"; duration = "100ms"; };
CFG
refused region.cfg 4 "target 'loop': size 128.0 MiB (134217728 bytes) is larger than block device '$loop' (64.0 MiB, 67108864 bytes)"

# a filesystem target: a blank device passes (the filesystem and its free space come later)...
cat >fs.cfg <<CFG
iomatrix = 1;
name = "fs";
targets = (
  { label = "d"; device = "$loop"; destructive = true; size = "SIZE"; filesystems = [ "ext4", "raw" ]; }
);
workload = { engine = "psync"; read_pct = 0; };
timing = { warmup = "0s"; duration = "100ms"; };
CFG
sed 's/SIZE/16M/' fs.cfg >fs16.cfg
"$IOMATRIX" check fs16.cfg >o/out.txt 2>o/err.txt || die "check of a filesystem target on a blank device: $(cat o/err.txt)"
grep -q "^fs16.cfg: valid, 2 runs$" o/out.txt || die "check fs16.cfg printed: $(cat o/out.txt)"
# ... but not a scratch file larger than the device, once per filesystem target (line 4)
sed 's/SIZE/100M/' fs.cfg >fs100.cfg
refused fs100.cfg 4 "target 'd-ext4': size 100.0 MiB (104857600 bytes), the scratch file on the new filesystem, is larger than block device '$loop'"
grep -q "^fs100.cfg:4: target 'd-raw': size 100.0 MiB" o/err.txt || die "no refusal of d-raw: $(cat o/err.txt)"
[ "$(md5sum <"$img")" = "$sum_before" ] || die "the device was written"
exit $fail
