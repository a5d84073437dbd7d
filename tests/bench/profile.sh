#!/bin/bash
# SPDX-License-Identifier: MIT
# profile.sh — where the CPU time of 4K random reads at QD32 goes, system-wide, for iomatrix and
# fio side by side (docs/performance.md, "Where the time goes").
#
# Each tool runs the same workload on a loop device over a /dev/shm file filled with random data
# (PROFILE_TARGET=loop) or on a 1 GiB file on the disk under PROFILE_DIR (PROFILE_TARGET=disk),
# pinned to one CPU as make bench pins it; `perf record -a` samples every CPU (cpu-clock, 4999 Hz)
# for PROFILE_SECS in the middle of the run. A halted virtual CPU takes no samples; a busy one and
# the idle loop's polling do. The script prints, per CPU and per task, the sampled time divided by
# the I/Os done in that time (ns per I/O), and the share of all samples spent waking a thread
# that waits for io_uring completions (try_to_wake_up called from __io_req_task_work_add).
#
# Environment: IOMATRIX (the binary), PROFILE_TARGET (loop or disk, default loop),
# PROFILE_ROUNDS (1; the tools' order rotates each round),
# PROFILE_SECS (2), PROFILE_PIN (the CPU the tools run on, default the last), PROFILE_VARIANT
# (top-level matrix keys: an extra iomatrix run with them, e.g. 'reap_wait = "1/2";'),
# PROFILE_KEEP=1 keeps the perf data in PROFILE_DIR (default a directory under /var/tmp).
# Needs root (losetup, perf -a), perf and fio.
set -u

IOMATRIX=${IOMATRIX:-build/release/iomatrix}
ROUNDS=${PROFILE_ROUNDS:-1}
SECS=${PROFILE_SECS:-2}
PIN=${PROFILE_PIN-$(( $(nproc) - 1 ))}
VARIANT=${PROFILE_VARIANT:-}
TARGET=${PROFILE_TARGET:-loop}
RUN=$(( SECS + 4 ))  # measured seconds of each run: the profile sits in its middle

die() { echo "profile: $*" >&2; exit 1; }
[ -x "$IOMATRIX" ] || die "no iomatrix binary at '$IOMATRIX' (set IOMATRIX)"
case $TARGET in loop|disk) ;; *) die "PROFILE_TARGET is loop or disk, not '$TARGET'" ;; esac
[ "$(id -u)" -eq 0 ] || { echo "profile: needs root (a loop device, perf -a); skipped" >&2; exit 0; }
command -v perf >/dev/null || die "perf is not installed (apt-get install linux-perf)"
command -v fio >/dev/null || die "fio is not installed (apt-get install fio)"
command -v python3 >/dev/null || die "python3 is not installed"

WORK=$(mktemp -d "${PROFILE_DIR:-/var/tmp}/iomatrix-profile.XXXXXX") || die "no scratch directory"
# iomatrix's results (with their growing traces) go to tmpfs, never to the disk under test
OUTD=$(mktemp -d /dev/shm/iomatrix-profile-out.XXXXXX) || die "no directory in /dev/shm"
BACK=
LOOP=
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ -n "$BACK" ] && rm -f "$BACK"
	rm -rf "$OUTD"
	if [ "${PROFILE_KEEP:-0}" = 1 ]; then
		echo "profile: perf data kept in $WORK" >&2
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ "$TARGET" = loop ]; then
	BACK=$(mktemp /dev/shm/iomatrix-profile.XXXXXX) || die "no file in /dev/shm"
	dd if=/dev/urandom of="$BACK" bs=1M count=1024 status=none || die "cannot fill $BACK"
	LOOP=$(losetup -f --show "$BACK") || die "cannot attach a loop device"
	T=$LOOP TKEYS=
	WHAT="a loop device over /dev/shm"
else
	T=$WORK/disk.scratch TKEYS='size = "1G"; overwrite = true;'
	WHAT="a file on the disk ($(df --output=source "$WORK" | tail -1))"
fi

matrix() { # FILE KEYS [SECS]
	cat > "$1" <<EOM
iomatrix = 1;
name = "profile";
$2
targets = ( { label = "t"; path = "$T"; $TKEYS } );
workload = { engine = "io_uring"; block_size = "4K"; queue_depth = 32; threads = 1;
             read_pct = 100; pattern = "random"; direct = true; };
timing = { warmup = "1s"; duration = "${3:-$RUN}s"; };
EOM
}
if [ "$TARGET" = disk ]; then # iomatrix creates and fills the file (and marks it as its own)
	matrix "$WORK/mk.cfg" "trace = false;" 0.1
	"$IOMATRIX" run "$WORK/mk.cfg" -o "$OUTD/mk.d" --quiet > "$WORK/mk.log" 2>&1 ||
		{ cat "$WORK/mk.log" >&2; die "cannot prepare $T"; }
fi

FIO=(fio --name=profile --ioengine=io_uring --direct=1 --filename="$T" --size=1G --bs=4k
     --iodepth=32 --rw=randread --norandommap --randrepeat=0 --time_based --runtime="$RUN"
     --ramp_time=1 --output-format=json)
TUNED=(--fixedbufs=1 --registerfiles=1 --iodepth_batch_submit=16 --iodepth_batch_complete_max=32)

# profile_one NAME ROUND: runs the tool NAME in the background, samples the system for SECS in
# the middle of its measured window, and leaves NAME-ROUND.perf and NAME-ROUND.iops
profile_one() {
	local name=$1 r=$2 out=$WORK/$1-$2 pid
	case $name in
	iomatrix|variant)
		matrix "$out.cfg" "$( [ "$name" = variant ] && echo "$VARIANT" )"
		taskset -c "$PIN" "$IOMATRIX" run "$out.cfg" -o "$OUTD/$1-$2.d" --quiet > "$out.log" 2>&1 &
		;;
	fio-users) taskset -c "$PIN" "${FIO[@]}" > "$out.json" 2> "$out.log" & ;;
	fio-tuned) taskset -c "$PIN" "${FIO[@]}" "${TUNED[@]}" > "$out.json" 2> "$out.log" & ;;
	esac
	pid=$!
	sleep $(( 1 + (RUN - SECS) / 2 ))
	perf record -a -g -F 4999 -o "$out.perf" -- sleep "$SECS" > /dev/null 2>&1
	wait "$pid" || { cat "$out.log" >&2; die "$name failed"; }
	python3 - "$out" "$name" "$OUTD/$1-$2.d" > "$out.iops" <<'EOP' || die "no IOPS from $name"
import json, sys
out, name, res = sys.argv[1], sys.argv[2], sys.argv[3]
if name.startswith("fio"):
    print(json.load(open(out + ".json"))["jobs"][0]["read"]["iops"])
else:
    print(json.load(open(res + "/runs/00001.json"))["total"]["iops"])
EOP
	rm -rf "$OUTD/$1-$2.d"
}

TOOLS=(iomatrix fio-tuned fio-users)
[ -n "$VARIANT" ] && TOOLS+=(variant)
N=${#TOOLS[@]}
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $(( N - 1 ))); do
		profile_one "${TOOLS[$(( (k + r - 1) % N ))]}" "$r"
	done
done

echo "iomatrix profile — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "command: PROFILE_TARGET=$TARGET PROFILE_ROUNDS=$ROUNDS PROFILE_SECS=$SECS PROFILE_PIN='$PIN'" \
	"PROFILE_VARIANT='$VARIANT' tests/bench/profile.sh"
echo "$("$IOMATRIX" --version 2>/dev/null | head -1), $(fio --version), kernel $(uname -r), $(nproc) CPUs"
echo "4K random read QD32 on $WHAT, the tools on CPU $PIN; perf record -a"
echo "cpu-clock at 4999 Hz for $SECS s in the middle of a $RUN s run. ns per I/O = sampled time / I/Os done."
[ -n "$VARIANT" ] && echo "variant: iomatrix with $VARIANT"
echo
for t in "${TOOLS[@]}"; do
	for r in $(seq 1 "$ROUNDS"); do
		perf script -i "$WORK/$t-$r.perf" -F comm,cpu,ip,sym 2>/dev/null > "$WORK/$t-$r.script" ||
			die "perf script failed on $t-$r.perf"
	done
done
python3 - "$WORK" "$ROUNDS" "$SECS" "${TOOLS[@]}" <<'EOP'
import re, statistics, sys
work, rounds, secs, tools = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
HZ = 4999.0

def role(comm, stack):
    if "loop_process_work" in stack:
        return "loop worker (copy out of tmpfs)"
    if comm.startswith(("iom-w", "fio")):
        return "the tool's I/O thread"
    if comm.startswith("iom-trace"):
        return "iomatrix trace writer"
    if "handle_softirqs" in stack or "blk_done_softirq" in stack or comm.startswith("ksoftirqd"):
        return "softirq (completions)"
    if "handle_irq_event" in stack or "vring_interrupt" in stack:
        return "interrupts (completions)"
    if comm.startswith("perf"):
        return "perf itself"
    if comm == "swapper":
        return "idle"
    if comm.startswith("kworker/"):
        return "other kworkers"
    return "other"

def parse(out):
    """ns per I/O by (cpu, role); ns per I/O waking the tool's waiting thread (any CPU)"""
    iops = float(open(out + ".iops").read())
    count, wake, head, stack = {}, 0, None, []
    def flush():
        nonlocal wake
        if head is None:
            return
        comm, cpu = head
        k = (cpu, role(comm, stack))
        count[k] = count.get(k, 0) + 1
        if "try_to_wake_up" in stack and "__io_req_task_work_add" in stack:
            wake += 1
    for line in open(out + ".script"):
        if not line.strip():
            continue
        if not line.startswith("\t"):  # a sample's head: "comm [cpu]"; its stack is indented
            flush()
            m = re.match(r"\s*(.*?)\s+\[(\d+)\]", line)
            head, stack = (m.group(1), int(m.group(2))) if m else None, []
        else:
            f = line.split()
            if f:
                stack.append(f[-1])
    flush()
    scale = 1e9 / HZ / (iops * secs)
    return iops, {k: v * scale for k, v in count.items()}, wake * scale

def med(xs):
    return statistics.median(xs) if xs else 0.0

res = {t: [parse("%s/%s-%d" % (work, t, r)) for r in range(1, rounds + 1)] for t in tools}
w = 13
print("%-38s" % ("ns per I/O (median of %d)" % rounds) + "".join("%*s" % (w, t) for t in tools))
print("%-38s" % "IOPS" + "".join("%*s" % (w, "%.0fK" % (med([r[0] for r in res[t]]) / 1e3))
                                  for t in tools))
keys = {k for t in tools for r in res[t] for k in r[1]}
for cpu in sorted({k[0] for k in keys}):
    tot = [med([sum(v for k, v in r[1].items() if k[0] == cpu) for r in res[t]]) for t in tools]
    print("%-38s" % ("CPU %d, sampled" % cpu) + "".join("%*.0f" % (w, x) for x in tot))
    for name in sorted({k[1] for k in keys if k[0] == cpu}):
        vals = [med([r[1].get((cpu, name), 0) for r in res[t]]) for t in tools]
        if max(vals) >= 20:
            print("%-38s" % ("  " + name) + "".join("%*.0f" % (w, x) for x in vals))
print("%-38s" % "waking the tool's thread (all CPUs)" +
      "".join("%*.0f" % (w, med([r[2] for r in res[t]])) for t in tools))
EOP
