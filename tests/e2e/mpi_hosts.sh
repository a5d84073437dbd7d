#!/bin/sh
# SPDX-License-Identifier: MIT
# Many hosts under MPI (docs/hosts.md), on one machine: mpirun --oversubscribe -np 3.
#   - a plain iomatrix started by mpirun says it is the single-host build and exits 2;
#   - `plan` says where every rank's target lives;
#   - a 4-run study on 3 ranks, each on its own scratch file through ${rank}: the aggregate's
#     I/O count is the sum of the ranks' exactly, its IOPS the summed I/O over the agreed window
#     (first start to last end), its percentiles those of the union of the three ranks' traces
#     (traces/NNNNN.rR.trace.gz, decoded by `iomatrix trace`) within 1 %, and the ranks'
#     measured windows start together (from the recorded starts and clock offsets, and from
#     the first measured I/O of each rank in `trace --merge`'s time line): the recorded starts
#     (start_spread_ns; no rank's start_late_ns before the agreed instant) within 5 ms, and
#     with direct reads from the disk (workers that wait on the device, not on a core) the
#     ranks' first measured I/Os in the traces within 5 ms too;
#   - a target refused on rank 2 stops the sweep before any rank writes, naming rank 2: a
#     missing directory, and (root) a mounted loop device.
# Skips (77) when mpirun or iomatrix-mpi is missing.
. "$TOP/tests/e2e/lib.sh"
need_mpi

# 1. the single-host build under mpirun
cat >one.cfg <<CFG
iomatrix = 1;
targets = ( { label = "a"; path = "a.scratch"; size = "4M"; } );
CFG
mpi -np 2 "$IOMATRIX" check one.cfg >single.txt 2>&1
rc=$?
[ "$rc" -eq 2 ] || die "plain iomatrix under mpirun: exit $rc, not 2"
grep -q "single-host build" single.txt || die "plain iomatrix under mpirun does not say why: $(cat single.txt)"

# 2. a 4-run study on 3 ranks
cat >m.cfg <<CFG
iomatrix = 1;
name = "hosts";
targets = ( { label = "a"; path = "$WORK/s\${rank}.scratch"; size = "16M"; } );
workload = { engine = "io_uring"; direct = false; pattern = "random"; block_size = "4K";
             read_pct = [70, 100]; queue_depth = 4; threads = 1; };
timing = { warmup = "100ms"; duration = "250ms"; rest = "0s"; repeat = 2; };
trace = true;
CFG
# plan under MPI: where every target lives, rank by rank
mpi -np 3 "$MPI_BIN" plan m.cfg >plan.txt 2>&1 || die "mpirun plan: $(cat plan.txt)"
for r in 0 1 2; do
    grep -q "^  rank $r (host [^)]*): a $WORK/s$r.scratch\$" plan.txt || die "plan does not say where rank $r's target lives: $(cat plan.txt)"
done
[ "$(grep -c '^plan hash:' plan.txt)" -eq 1 ] || die "plan printed by more than rank 0"
mpi -np 3 "$MPI_BIN" run m.cfg -o out -q >run.txt 2>&1 || die "mpirun run: $(tail -n 20 run.txt)"
for r in 0 1 2; do [ -f "s$r.scratch" ] || die "rank $r did not prepare its own s$r.scratch"; done
for i in 00001 00002 00003 00004; do
    for r in 0 1 2; do
        tr=out/traces/$i.r$r.trace.gz
        [ -s "$tr" ] || { die "no $tr"; continue; }
        "$IOMATRIX" trace "$tr" --measured-only -o "$i.r$r.csv" 2>err || die "trace $tr: $(cat err)"
    done
    # every rank's measured I/O in one time line, by the recorded clock offsets
    "$IOMATRIX" trace "out/traces/$i.r1.trace.gz" --merge --measured-only -o "$i.merged.csv" 2>err ||
        die "trace --merge run $i: $(cat err)"
done
python3 - out <<'PY'
import csv, json, math, os, sys
missed = []
def figure(ok, what):  # a figure that needs a quiet machine: noted, judged by the shell
    if not ok:
        print("figure missed:", what)
        missed.append(what)
d = sys.argv[1]
spreads, compared, trace_spreads = [], 0, []
for i in range(1, 5):
    r = json.load(open("%s/runs/%05d.json" % (d, i)))
    assert r["status"] == "ok", r["error"]
    hosts = r["hosts"]
    assert [h["rank"] for h in hosts] == [0, 1, 2], hosts
    assert all(h["kernel"] and h["host"] for h in hosts), hosts  # provenance per host
    tot = r["total"]
    assert tot["ios"] == sum(h["ios"] for h in hosts), (i, tot["ios"], [h["ios"] for h in hosts])
    assert tot["bytes"] == sum(h["bytes"] for h in hosts)
    first = min(h["window_start_ns"] for h in hosts)
    last = max(h["window_end_ns"] for h in hosts)
    window = (last - first) / 1e9
    assert abs(r["elapsed_s"] - window) <= 1e-6, (r["elapsed_s"], window)
    assert abs(tot["iops"] - tot["ios"] / window) <= 1e-6 * tot["iops"] + 1e-3, (tot["iops"], tot["ios"] / window)
    spread = max(h["window_start_ns"] for h in hosts) - first
    assert r["start_spread_ns"] == spread, (r["start_spread_ns"], spread)  # recorded as such
    # no window before the agreed instant (all of them late alike, when the VM itself is
    # paused, leaves the spread as it was)
    assert all(h["start_late_ns"] >= 0 for h in hosts), [h["start_late_ns"] for h in hosts]
    spreads.append(spread / 1e6)
    # percentiles of the union of the three traces' measured I/O
    lat = []
    for h in hosts:
        rd = csv.reader(open("%05d.r%d.csv" % (i, h["rank"])))
        col = next(rd).index("latency_ns")
        rows = [int(x[col]) for x in rd]
        if len(rows) != h["ios"]:
            lat = None  # a rank's trace dropped records: nothing to compare exactly
            break
        lat += rows
    if lat is None:
        continue
    # the merged time line: every rank's records, in time order; the first measured I/O of
    # each rank (trace times and offsets) starts with the others
    rd = csv.reader(open("%05d.merged.csv" % i))
    head = next(rd)
    tcol, rcol = head.index("time_ns"), head.index("rank")
    merged = [(int(x[tcol]), x[rcol]) for x in rd]
    assert len(merged) == tot["ios"], (len(merged), tot["ios"])
    times = [t for t, _ in merged]
    assert times == sorted(times)
    firsts = {}
    for t, rank in merged:
        firsts.setdefault(rank, t)
    assert sorted(firsts) == ["0", "1", "2"], firsts
    trace_spreads.append((max(firsts.values()) - min(firsts.values())) / 1e6)
    lat.sort()
    for p, want in tot["lat_ns"]["percentiles"].items():
        got = lat[max(1, math.ceil(float(p) / 100 * len(lat) - 1e-9)) - 1]
        assert abs(got - want) <= 0.01 * got + 1, (i, p, got, want)
    compared += 1
spreads.sort()
print("window start spread per run (ms):", spreads)
assert compared >= 1, "every run's traces dropped records"
# The windows start at an instant agreed on rank 0's clock, each rank waiting for it in its own
# (asleep, then spinning the last 200 µs, as SCHED_FIFO when root): within 5 ms in every run,
# on this shared 2-core machine too (0.13 to 0.15 ms at load average 7; docs/hosts.md).
figure(spreads[-1] < 5, "start spreads %s ms" % spreads)
trace_spreads.sort()
print("first measured I/O spread per run, from the traces (ms):", trace_spreads)
# a rank's first measured I/O also waits for its worker thread to get a core (three ranks'
# workers on two cores, other jobs beside them: several time slices): a median of 25 ms here
figure(trace_spreads[len(trace_spreads) // 2] <= 25 and trace_spreads[-1] <= 100,
       "first measured I/O spreads %s ms" % trace_spreads)
sys.exit(3 if missed else 0)
PY
case $? in
0) ;;
3) figure_or_die "the ranks' start spreads (above)" ;;
*) die "the aggregate is not the sum of the ranks" ;;
esac

# 2b. the same start from the traces alone, where nothing but the start holds a worker back:
# direct 4K reads at queue depth 1 from a file on the disk (the workers wait on the device, so
# three of them on two cores each get a core the moment the window opens). In each rank's
# trace (`trace --merge`: trace times and recorded clock offsets) its window began after its
# last warm-up I/O completed and before its first measured one did; starts within 5 ms of each
# other must fit those brackets — the latest warm-up completion of any rank no more than 5 ms
# after the earliest first measured completion — in every run (a slow I/O widens its rank's
# bracket, never the bound)
disk=$(mktemp -d /var/tmp/iomatrix-e2e.XXXXXX)
on_exit 'rm -rf "$disk"'
if [ "$(stat -f -c %T "$disk")" = tmpfs ]; then
    echo "2b: /var/tmp is tmpfs here: no disk to wait on, the trace start not checked"
else
    cat >d.cfg <<CFG
iomatrix = 1;
name = "hosts-disk";
targets = ( { label = "a"; path = "$disk/s\${rank}.scratch"; size = "16M"; } );
workload = { engine = "psync"; direct = true; pattern = "random"; block_size = "4K";
             read_pct = 100; queue_depth = 1; threads = 1; };
timing = { warmup = "100ms"; duration = "200ms"; rest = "0s"; repeat = 3; };
trace = true;
CFG
    mpi -np 3 "$MPI_BIN" run d.cfg -o outd -q >rund.txt 2>&1 || die "mpirun run (disk): $(tail -n 20 rund.txt)"
    for i in 00001 00002 00003; do
        "$IOMATRIX" trace "outd/traces/$i.r1.trace.gz" --merge --measured-only -o "d$i.csv" 2>err &&
            "$IOMATRIX" trace "outd/traces/$i.r1.trace.gz" --merge -o "a$i.csv" 2>err ||
            die "trace --merge disk run $i: $(cat err)"
    done
    python3 - <<'PY'
import csv, sys
def rows(path):
    rd = csv.reader(open(path))
    head = next(rd)
    t, l, r, o = (head.index(k) for k in ("time_ns", "latency_ns", "rank", "offset"))
    return [(int(x[t]), int(x[l]), x[r], x[o]) for x in rd]
gaps = []
for i in (1, 2, 3):
    measured, every = rows("d%05d.csv" % i), rows("a%05d.csv" % i)
    first = {}
    for rec in measured:
        first.setdefault(rec[2], rec)
    assert sorted(first) == ["0", "1", "2"], first
    last_warm, first_done = {}, {}
    for rank, rec in first.items():
        mine = [x for x in every if x[2] == rank]
        k = mine.index(rec)
        assert k > 0, "rank %s: no warm-up I/O before its first measured one" % rank
        last_warm[rank] = mine[k - 1][0] + mine[k - 1][1]   # completion = submission + latency
        first_done[rank] = rec[0] + rec[1]
    gaps.append((max(last_warm.values()) - min(first_done.values())) / 1e6)
print("disk: latest warm-up completion after the earliest first measured one, per run (ms):", gaps)
sys.exit(0 if max(gaps) < 5 else 3)
PY
case $? in
0) ;;
3) figure_or_die "the ranks' windows (disk) within 5 ms (above)" ;;
*) die "the ranks' windows (disk) by their traces" ;;
esac
fi
rm -rf "$disk"

# 3. a target refused on rank 2: nothing written on any rank
mkdir r0 r1
cat >bad.cfg <<CFG
iomatrix = 1;
targets = ( { label = "a"; path = "$WORK/r\${rank}/s.scratch"; size = "4M"; } );
timing = { duration = "200ms"; repeat = 1; };
CFG
mpi -np 3 "$MPI_BIN" run bad.cfg -o out-bad >bad.txt 2>&1
rc=$?
[ "$rc" -eq 2 ] || die "a refusal on rank 2: exit $rc, not 2"
grep -q "rank 2 (host [^)]*) refused" bad.txt || die "the refusal does not name rank 2 and its host: $(cat bad.txt)"
grep -q "nothing was written" bad.txt || die "the refusal does not say nothing was written"
[ ! -e out-bad ] || die "a results directory was made despite the refusal"
[ ! -e r0/s.scratch ] && [ ! -e r1/s.scratch ] || die "rank 0 or 1 wrote its target despite rank 2's refusal"

# 4. (root) rank 2's device is a mounted loop device: refused before any rank writes a device
root_or_finish
need_cmd losetup mkfs.ext4 md5sum
imgs="" loops="" mnt=""
cleanup() {
    rm -rf "$disk"
    [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
    for l in $loops; do losetup -d "$l" 2>/dev/null; done
    for i in $imgs; do rm -f "$i"; done
}
on_exit cleanup
for r in 0 1 2; do
    img=$(mktemp /dev/shm/iom-mpi-hosts.XXXXXX)
    imgs="$imgs $img"
    truncate -s 32M "$img"
    l=$(losetup -f --show "$img" 2>err) || skip "no loop device: $(cat err)"
    loops="$loops $l"
    ln -s "$l" "dev$r"
done
mkfs.ext4 -q -F "$WORK/dev2" >/dev/null 2>&1 || die "mkfs.ext4 on rank 2's loop device"
mkdir mnt && mount "$WORK/dev2" mnt && mnt=$WORK/mnt || die "mount of rank 2's loop device"
set -- $imgs
sum0=$(md5sum <"$1") sum1=$(md5sum <"$2")
cat >dev.cfg <<CFG
iomatrix = 1;
targets = ( { label = "d"; path = "$WORK/dev\${rank}"; destructive = true; size = "16M"; } );
workload = { engine = "psync"; read_pct = 0; };
timing = { warmup = "0s"; duration = "200ms"; repeat = 1; };
CFG
mpi -np 3 "$MPI_BIN" run dev.cfg -o out-dev >dev.txt 2>&1
rc=$?
[ "$rc" -eq 2 ] || die "a mounted device on rank 2: exit $rc, not 2: $(cat dev.txt)"
grep -q "rank 2 (host [^)]*) refused: .*mounted" dev.txt || die "the refusal does not name rank 2's mounted device: $(cat dev.txt)"
[ ! -e out-dev ] || die "a results directory was made despite rank 2's mounted device"
[ "$(md5sum <"$1")" = "$sum0" ] && [ "$(md5sum <"$2")" = "$sum1" ] ||
    die "rank 0 or 1 wrote its device despite rank 2's refusal"
exit $fail
