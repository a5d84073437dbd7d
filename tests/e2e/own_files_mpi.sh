#!/bin/sh
# SPDX-License-Identifier: MIT
# The MPI followers' scratch (docs/hardening.md, "Its own files", case 7): each follower makes
# a fresh directory of its own with mkdtemp in $TMPDIR and removes it without a shell. Planted
# $TMPDIR/iomatrix-rank1-<pid>/traces/00001.trace.gz links to a victim (for the pids the
# follower may get) are never written through, and a TMPDIR with a quote in its name runs no
# command. Rank 0 receives the followers' traces through its pinned results directory: a
# traces/ that a before_run hook swaps for a link to another directory mid-study gets nothing
# there (run 1's traces kept, runs 2 and 3 failed by name). Skips (77) when mpirun or
# iomatrix-mpi is missing.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_mpi

printf 'precious\n' >victim
before=$(sha256sum <victim)
# a TMPDIR whose name would end a single-quoted shell word
q="$WORK/q';touch PWNED;'q"
mkdir "$q"
export TMPDIR="$q"
cat >k.cfg <<CFG
iomatrix = 1;
name = "scratch";
targets = ( { label = "a"; path = "$WORK/s\${rank}.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = "4K"; };
timing = { warmup = "0s"; duration = "50ms"; rest = "0s"; repeat = 1; };
trace = true;
CFG
# what another user would plant: the directories of the next pids, each with a link
python3 - "$q" "$WORK/victim" <<'PY' || die "cannot plant the directories"
import os, sys
d, victim = sys.argv[1], sys.argv[2]
last = int(open("/proc/sys/kernel/ns_last_pid").read())
for pid in range(last + 1, last + 3000):
    t = os.path.join(d, "iomatrix-rank1-%d" % pid, "traces")
    os.makedirs(t)
    os.symlink(victim, os.path.join(t, "00001.trace.gz"))
PY
mpi -np 2 "$MPI_BIN" run "$WORK/k.cfg" -o out -q >run.txt 2>&1 || die "the study failed: $(tail -n 5 run.txt)"
[ "$(sha256sum <victim)" = "$before" ] || die "a follower wrote through a planted link"
[ ! -e PWNED ] && [ ! -e "$q/PWNED" ] || die "a follower ran a command from TMPDIR's name"
[ -f out/traces/00001.r1.trace.gz ] || die "rank 1's trace did not reach rank 0"
left=$(find "$q" -maxdepth 1 -name 'iomatrix-rank1-*-*' | wc -l)
[ "$left" -eq 0 ] || die "the follower left its scratch directory behind"

# rank 0's traces/ swapped for a link to another directory before run 2
mkdir vd
cat >swap.cfg <<CFG
iomatrix = 1;
name = "pinned";
targets = ( { label = "a"; path = "$WORK/p\${rank}.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = "4K"; };
timing = { warmup = "0s"; duration = "50ms"; rest = "0s"; repeat = 3; };
trace = true;
hooks = { before_run = "if [ \${run.index} -eq 2 ]; then mv \${study.dir}/traces \${study.dir}/traces.old && ln -s $WORK/vd \${study.dir}/traces; fi"; };
CFG
mpi -np 2 "$MPI_BIN" run "$WORK/swap.cfg" -o swap --allow-hooks -q >swap.txt 2>&1 &&
    die "the study passed with its traces/ swapped for a link"
[ -z "$(ls vd)" ] || die "rank 0 wrote a follower's trace through the link: $(ls vd)"
[ -f swap/traces.old/00001.r1.trace.gz ] || die "run 1's trace of rank 1 is missing"
grep -q "run 2/3 .*failed: .*'swap/traces' is a symbolic link" swap.txt ||
    die "run 2 did not fail naming the link: $(grep 'run 2/3' swap.txt)"
exit $fail
