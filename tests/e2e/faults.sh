#!/bin/sh
# SPDX-License-Identifier: MIT
# Faults injected under a running sweep. Each must give a clear message, mark the run failed,
# let the sweep go on with what it can, and lose nothing already written (every runs/*.json
# present stays valid JSON, the sweep ends with its summary).
#
# Without root:
#   - io_uring setup refused (a seccomp filter installed by python3 returns EPERM for
#     io_uring_setup): the io_uring runs fail naming the cause and psync; the psync runs pass;
#   - a target truncated mid-run: "short read at offset N … (past the end of the target?)";
#   - a target deleted mid-run: the run in progress goes on with the open file, the next one
#     fails or recreates the scratch file — either way clearly, never a crash;
#   - an unwritable results directory (a file in the way, a path under /proc): a clear error
#     before anything runs.
# With root (each skipped with a note when its tool is missing):
#   - EIO: a device-mapper device whose second half is the `error` target, over a loop device;
#   - a device removed mid-run (dmsetup remove --force swaps in an error table);
#   - ENOSPC on the target: a scratch file that does not fit its 2 MiB tmpfs is refused before the
#     sweep starts (preflight), nothing written;
#   - ENOSPC in the results directory: a 96 KiB tmpfs fills up during the sweep;
#   - an I/O error mid-run without device-mapper: the loop device under a write run is made
#     read-only (blockdev --setro), so its writes fail with EPERM.
# e2e: parallel slow
. "$TOP/tests/e2e/lib.sh"
note() { echo "note: $*"; }

# valid_runs DIR: every runs/*.json of DIR parses
valid_runs() {
	python3 - "$1" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/runs/*.json"):
    json.load(open(f))
PY
}

# status DIR INDEX: the status of run INDEX; error DIR INDEX: its error
status() { python3 -c "import json,sys; print(json.load(open('$1/runs/%05d.json' % $2))['status'])"; }
error() { python3 -c "import json,sys; print(json.load(open('$1/runs/%05d.json' % $2)).get('error') or '')"; }

no_crash() { # RC WHAT
	[ "$1" -lt 128 ] || die "$2: crashed (exit $1)"
}

# ---- io_uring refused ----------------------------------------------------------------------
if [ "$(uname -m)" = x86_64 ] && command -v python3 >/dev/null; then
	cat >nouring.py <<'EOF'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
# seccomp BPF: A = syscall nr; io_uring_setup (425 on x86_64) → ERRNO(EPERM); else ALLOW
prog = b"".join(struct.pack("HBBI", *i) for i in [
    (0x20, 0, 0, 0), (0x15, 0, 1, 425), (0x06, 0, 0, 0x00050000 | 1), (0x06, 0, 0, 0x7fff0000)])
buf = ctypes.create_string_buffer(prog)
class fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
fp = fprog(4, ctypes.cast(buf, ctypes.c_void_p))
if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fp), 0, 0) != 0:
    sys.exit(77)
os.execv(sys.argv[1], sys.argv[1:])
EOF
	cat >uring.cfg <<'CFG'
iomatrix = 1;
name = "nouring";
targets = ( { label = "f"; path = "u.scratch"; size = "4M"; } );
workload = { engine = ["io_uring", "psync"]; direct = false; block_size = "4K"; read_pct = 100; };
timing = { warmup = "0s"; duration = "200ms"; repeat = 1; };
CFG
	python3 nouring.py "$IOMATRIX" run uring.cfg -o uring --no-trace >out.txt 2>&1
	rc=$?
	if [ "$rc" -eq 77 ]; then
		note "cannot install a seccomp filter here"
	else
		no_crash "$rc" "io_uring refused"
		[ "$rc" -eq 1 ] || die "io_uring refused: exit $rc, want 1"
		[ "$(status uring 1)" = failed ] && error uring 1 | grep -q "cannot set up io_uring.*psync" ||
			die "io_uring refused: run 1: $(status uring 1) $(error uring 1)"
		[ "$(status uring 2)" = ok ] || die "io_uring refused: the psync run: $(error uring 2)"
		grep -q "1 run ok, 1 failed" out.txt || die "io_uring refused: $(tail -n 2 out.txt)"
	fi
else
	note "io_uring refusal needs python3 on x86_64"
fi

# ---- a target truncated, then one deleted, mid-run -----------------------------------------
cat >mid.cfg <<'CFG'
iomatrix = 1;
name = "midrun";
targets = ( { label = "t"; path = "t.scratch"; size = "8M"; },
            { label = "g"; path = "g.scratch"; size = "4M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = 100; };
timing = { warmup = "0s"; duration = "1000ms"; repeat = 2; };
order = [ "target" ];
CFG
"$IOMATRIX" run mid.cfg -o trunc --no-trace >out.txt 2>&1 &
pid=$!
sleep 0.5
truncate -s 0 t.scratch
wait $pid
rc=$?
no_crash "$rc" "truncated target"
[ "$rc" -eq 1 ] || die "truncated target: exit $rc, want 1: $(tail -n 3 out.txt)"
error trunc 1 | grep -q "short read at offset [0-9]*: 0 of 4096 bytes (past the end of the target?)" ||
	die "truncated target: run 1: $(error trunc 1)"
[ "$(status trunc 3)" = ok ] && [ "$(status trunc 4)" = ok ] ||
	die "truncated target: the other target's runs: $(error trunc 3) $(error trunc 4)"
valid_runs trunc || die "truncated target: a run file is not valid JSON"

rm -f t.scratch
"$IOMATRIX" run mid.cfg -o deleted --no-trace >out.txt 2>&1 &
pid=$!
sleep 0.5
rm -f t.scratch
wait $pid
rc=$?
no_crash "$rc" "deleted target"
[ -f deleted/runs/00004.json ] || die "deleted target: the sweep did not go on: $(ls deleted/runs)"
for i in 1 2; do
	s=$(status deleted $i)
	[ "$s" = ok ] || [ -n "$(error deleted $i)" ] || die "deleted target: run $i $s without a reason"
done
[ "$(status deleted 3)" = ok ] || die "deleted target: the other target: $(error deleted 3)"
valid_runs deleted || die "deleted target: a run file is not valid JSON"

# ---- unwritable results directory ----------------------------------------------------------
: >afile
"$IOMATRIX" run mid.cfg -o afile/out --no-trace >out.txt 2>err.txt
rc=$?
no_crash "$rc" "results under a file"
[ "$rc" -ne 0 ] && grep -q "afile" err.txt || die "results under a file: exit $rc: $(cat err.txt)"
"$IOMATRIX" run mid.cfg -o /proc/iomatrix-results --no-trace >out.txt 2>err.txt
rc=$?
no_crash "$rc" "results under /proc"
[ "$rc" -ne 0 ] && grep -q "/proc/iomatrix-results" err.txt ||
	die "results under /proc: exit $rc: $(cat err.txt)"

# ---- root only -----------------------------------------------------------------------------
root_or_finish

img=/dev/shm/iom-faults-$$.img
loop= dm= mnt1= mnt2=
cleanup() {
	[ -n "$dm" ] && dmsetup remove --force "$dm" 2>/dev/null
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	[ -n "$mnt1" ] && umount "$mnt1" 2>/dev/null
	[ -n "$mnt2" ] && umount "$mnt2" 2>/dev/null
	rm -f "$img"
}
on_exit cleanup

# ENOSPC on the target, and in the results directory (tmpfs mounts)
mkdir -p small results
if mount -t tmpfs -o size=2M iom-faults small 2>/dev/null; then
	mnt1=$PWD/small
	cat >nospc.cfg <<'CFG'
iomatrix = 1;
name = "nospc";
targets = ( { label = "full"; path = "small/big.scratch"; size = "8M"; },
            { label = "g"; path = "g.scratch"; size = "4M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = 100; };
timing = { warmup = "0s"; duration = "100ms"; repeat = 1; };
CFG
	# knowable before the sweep (preflight): refused, on the target's line, nothing written
	g_before=$(ls -l --full-time g.scratch 2>&1)
	"$IOMATRIX" run nospc.cfg -o nospc --no-trace >out.txt 2>err.txt
	rc=$?
	no_crash "$rc" "ENOSPC on the target"
	[ "$rc" -eq 2 ] || die "ENOSPC on the target: exit $rc, want 2 (refused before it starts)"
	grep -q "^nospc.cfg:3: target 'full': scratch file 'small/big.scratch' needs 8.0 MiB more on its filesystem, which has 2.0 MiB free" err.txt ||
		die "ENOSPC on the target: message: $(cat err.txt)"
	[ ! -e nospc ] || die "ENOSPC on the target: the refused sweep made its results directory"
	[ ! -e small/big.scratch ] && [ "$(ls -l --full-time g.scratch 2>&1)" = "$g_before" ] ||
		die "ENOSPC on the target: the refused sweep wrote a scratch file: $(ls -l small g.scratch)"
else
	note "cannot mount a tmpfs: ENOSPC parts skipped"
fi
if mount -t tmpfs -o size=96K iom-faults-results results 2>/dev/null; then
	mnt2=$PWD/results
	cat >many.cfg <<'CFG'
iomatrix = 1;
name = "many";
targets = ( { label = "g"; path = "g.scratch"; size = "4M"; } );
workload = { engine = "null"; block_size = ["4K", "8K", "16K", "32K"]; read_pct = [100, 0]; };
timing = { warmup = "0s"; duration = "100ms"; repeat = 4; };
CFG
	"$IOMATRIX" run many.cfg -o results/out --no-trace >out.txt 2>err.txt
	rc=$?
	no_crash "$rc" "ENOSPC in the results directory"
	[ "$rc" -ne 0 ] || die "ENOSPC in the results directory: exit 0 ($(ls results/out/runs | wc -l) runs)"
	grep -q "results directory 'results/out' is full" err.txt out.txt ||
		die "ENOSPC in the results directory: message: $(cat err.txt)"
	valid_runs results/out || die "ENOSPC in the results directory: a run file is not valid JSON"
	ls results/out/runs/*.tmp* >/dev/null 2>&1 && die "temporary files were left in runs/"
	[ "$(ls results/out/runs | wc -l)" -ge 1 ] || die "ENOSPC in the results directory: no run kept"
fi

# ENOSPC that preflight cannot know: the free space of a filesystem the sweep makes itself (an
# ext4 of 32 MiB cannot hold a 30 MiB scratch file): that target's run fails saying so, the raw
# one on the same device passes
if command -v mkfs.ext4 >/dev/null 2>&1; then
	rm -f "$img"
	truncate -s 32M "$img"
	loop=$(losetup -f --show "$img" 2>/dev/null) || loop=
	if [ -n "$loop" ]; then
		cat >fsfull.cfg <<CFG
iomatrix = 1;
name = "fsfull";
targets = ( { label = "d"; device = "$loop"; destructive = true; size = "30M";
              filesystems = [ "ext4", "raw" ]; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = 100; };
timing = { warmup = "0s"; duration = "100ms"; repeat = 1; };
trace = false;
CFG
		"$IOMATRIX" run fsfull.cfg -o fsfull >out.txt 2>err.txt
		rc=$?
		no_crash "$rc" "ENOSPC on a filesystem the sweep made"
		[ "$rc" -eq 1 ] || die "ENOSPC on a filesystem the sweep made: exit $rc, want 1: $(cat err.txt)"
		error fsfull 1 | grep -q "no space left for scratch file" ||
			die "ENOSPC on a filesystem the sweep made: run 1: $(error fsfull 1)"
		[ "$(status fsfull 2)" = ok ] ||
			die "ENOSPC on a filesystem the sweep made: the raw run: $(error fsfull 2)"
		grep -q "$loop" /proc/mounts && die "ENOSPC on a filesystem the sweep made: left mounted"
		losetup -d "$loop"
		loop=
	else
		note "no loop device: ENOSPC on a filesystem the sweep made skipped"
	fi
else
	note "mkfs.ext4 is not installed: ENOSPC on a filesystem the sweep made skipped"
fi

# An I/O error mid-run without device-mapper: the loop device is made read-only while a write
# run is on it, so the next writes fail (EPERM from the block layer) — the same path as EIO.
dd if=/dev/zero of="$img" bs=1M count=16 status=none
loop=$(losetup -f --show "$img" 2>/dev/null) || loop=
if [ -n "$loop" ]; then
	cat >ro.cfg <<CFG
iomatrix = 1;
name = "readonly";
targets = ( { label = "ro"; path = "$loop"; destructive = true; },
            { label = "g"; path = "g.scratch"; size = "4M"; } );
workload = { engine = "io_uring"; direct = true; block_size = "4K"; read_pct = 0; };
timing = { warmup = "0s"; duration = "1000ms"; repeat = 2; };
order = [ "target" ];
CFG
	"$IOMATRIX" run ro.cfg -o ro --no-trace >out.txt 2>err.txt &
	pid=$!
	sleep 0.5
	blockdev --setro "$loop"
	wait $pid
	rc=$?
	blockdev --setrw "$loop"
	no_crash "$rc" "device made read-only"
	[ "$rc" -eq 1 ] || die "device made read-only: exit $rc"
	error ro 1 | grep -q "write at offset [0-9]* failed: Operation not permitted" ||
		die "device made read-only: run 1: $(error ro 1)"
	[ -n "$(error ro 2)" ] || die "device made read-only: run 2 has no reason"
	[ "$(status ro 3)" = ok ] || die "device made read-only: the other target: $(error ro 3)"
	valid_runs ro || die "device made read-only: a run file is not valid JSON"
	losetup -d "$loop"
	loop=
else
	note "no loop device: the read-only part is skipped"
fi

# EIO: device-mapper error target over a loop device; then the device removed mid-run
if ! command -v dmsetup >/dev/null || ! dmsetup version >/dev/null 2>&1; then
	echo "EIO parts skipped: no device-mapper (apt-get install dmsetup; the kernel needs dm_mod)"
	exit $fail
fi
loop=$(losetup -f --show "$img" 2>/dev/null) || { loop=; echo "EIO parts skipped: no loop device"; exit $fail; }
dm=iom-faults-$$
printf '0 16384 linear %s 0\n16384 16384 error\n' "$loop" | dmsetup create "$dm" ||
	{ dm=; echo "EIO parts skipped: dmsetup create failed"; exit $fail; }
cat >eio.cfg <<CFG
iomatrix = 1;
name = "eio";
targets = ( { label = "bad"; path = "/dev/mapper/$dm"; },
            { label = "g"; path = "g.scratch"; size = "4M"; } );
workload = { engine = ["io_uring", "psync"]; direct = true; block_size = "4K"; read_pct = 100; };
timing = { warmup = "0s"; duration = "300ms"; repeat = 1; };
order = [ "target", "engine" ];
CFG
"$IOMATRIX" run eio.cfg -o eio --no-trace >out.txt 2>err.txt
rc=$?
no_crash "$rc" "EIO"
[ "$rc" -eq 1 ] || die "EIO: exit $rc: $(cat err.txt)"
for i in 1 2; do
	e=$(error eio $i)
	echo "$e" | grep -q "read at offset [0-9]* failed: Input/output error" || die "EIO: run $i: $e"
	off=$(echo "$e" | sed -n 's/.*read at offset \([0-9]*\) failed.*/\1/p')
	[ -n "$off" ] && [ "$off" -ge 8388608 ] || die "EIO: run $i: offset $off is not in the error half"
done
[ "$(status eio 3)" = ok ] && [ "$(status eio 4)" = ok ] || die "EIO: the other target failed"
valid_runs eio || die "EIO: a run file is not valid JSON"

# the device removed mid-run: dmsetup remove --force swaps in an error table under the open fd
dmsetup reload "$dm" --table "0 32768 linear $loop 0" && dmsetup resume "$dm" ||
	die "cannot reload $dm"
cat >gone.cfg <<CFG
iomatrix = 1;
name = "gone";
targets = ( { label = "gone"; path = "/dev/mapper/$dm"; },
            { label = "g"; path = "g.scratch"; size = "4M"; } );
workload = { engine = "io_uring"; direct = true; block_size = "4K"; read_pct = 100; };
timing = { warmup = "0s"; duration = "1000ms"; repeat = 2; };
order = [ "target" ];
CFG
"$IOMATRIX" run gone.cfg -o gone --no-trace >out.txt 2>err.txt &
pid=$!
sleep 0.5
dmsetup remove --force "$dm" && dm=
wait $pid
rc=$?
no_crash "$rc" "device removed"
[ "$rc" -eq 1 ] || die "device removed: exit $rc"
error gone 1 | grep -q "Input/output error" || die "device removed: run 1: $(error gone 1)"
[ -n "$(error gone 2)" ] || die "device removed: run 2 has no reason"
[ "$(status gone 3)" = ok ] || die "device removed: the other target: $(error gone 3)"
valid_runs gone || die "device removed: a run file is not valid JSON"
exit $fail
