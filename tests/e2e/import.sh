#!/bin/sh
# SPDX-License-Identifier: MIT
# `iomatrix import`: three fio job files (a random 60/40 mix after fio's examples/fio-rand-RW.fio,
# two jobs with bssplit that become an access dimension, a paced job with rate_iops whose two
# jobs become a queue_depth dimension), two DiskSpd XML profiles and an IOMeter .icf import,
# check, plan and run (tiny durations, scratch files in the cwd); `diskspd -X` runs a profile;
# the fio job of `diskspd --print-fio` imports to the plan hash of the DiskSpd command itself;
# unknown options are refused by name with their FILE:LINE, or kept as comments (--lenient);
# sync, dsync, dedupe_percentage, rwmixwrite, offset=0 and ramp_time reach the plan as they map.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"

FX=$TOP/tests/fixtures/import
IOM_SCRATCH=$PWD
export IOM_SCRATCH

imp() { # NAME FIXTURE [--set ...]: import, check, plan, run
    name=$1 fx=$2
    shift 2
    "$IOMATRIX" import "$FX/$fx" -o "$name.cfg" >out 2>err || { die "import $fx: $(cat err)"; return; }
    "$IOMATRIX" check "$name.cfg" "$@" >/dev/null 2>err || die "check $fx: $(cat err)"
    "$IOMATRIX" plan "$name.cfg" "$@" >"$name.plan" 2>err || die "plan $fx: $(cat err)"
    grep -q 'plan hash' "$name.plan" || die "plan $fx: no hash"
    "$IOMATRIX" run "$name.cfg" "$@" -o "res-$name" --quiet --no-trace >out 2>err ||
        die "run $fx: exit $?: $(cat err)"
    grep -q '0 failed' out || die "run $fx: $(cat out)"
}

imp randrw rand-rw.fio --set duration=300ms --set targets.fio-rand-RW.size=16M
for want in 'pattern = "random";' 'read_pct = 60;' 'queue_depth = 16;' 'threads = 4;' \
    'engine = "libaio";' 'direct = false;' 'duration = "15m";' "path = \"$PWD/fio-rand-RW\";"; do
    grep -qF -- "$want" randrw.cfg || die "rand-rw.fio: the matrix lacks $want"
done
imp bssplit bssplit.fio --set duration=300ms --set warmup=0s
grep -q 'access = ( "bssplit", "bssplit-2" );' bssplit.cfg || die "bssplit.fio: no access dimension"
grep -q 'share = 25; block_size = "8K"' bssplit.cfg || die "bssplit.fio: the blank share is not 25"
[ "$(ls res-bssplit/runs/*.json | wc -l)" = 2 ] || die "bssplit.fio: not two runs"
imp rate rate.fio --set duration=500ms
for want in 'queue_depth = ( 1, 4 );' 'rate_iops = 800;' 'arrivals = "poisson";' \
    'fsync_every = 32;' 'data = "compressible:50%";' 'distribution = "zipf:1.2";'; do
    grep -qF -- "$want" rate.cfg || die "rate.fio: the matrix lacks $want"
done
# the mappings nothing else would notice: sync=1 (O_SYNC) as write_through with a note,
# dedupe_percentage as data, rwmixwrite as the read share 100-N, offset=0 taken, ramp_time as
# the warm-up; the matrix reader and the plan see them so
printf '[global]\nfilename=%s/map.dat\nsize=8m\nruntime=300ms\ntime_based\nramp_time=200ms\nrw=randrw\nrwmixwrite=30\noffset=0\nsync=1\ndedupe_percentage=30\n[j]\n' "$PWD" >map.fio
"$IOMATRIX" import map.fio -o map.cfg >out 2>err || die "map.fio: $(cat err)"
"$IOMATRIX" check map.cfg >/dev/null 2>err || die "check map.cfg: $(cat err)"
"$IOMATRIX" plan map.cfg >map.plan 2>err || die "plan map.cfg: $(cat err)"
for want in 'read_pct=70 ' 'pattern=random ' 'write_through=true ' 'data=dedupe:30%' 'timing: warmup=200ms duration=300ms'; do
    grep -qF -- "$want" map.plan || die "map.fio: the plan lacks $want: $(cat map.plan)"
done
grep -q '^#   - sync=1: O_SYNC in fio, O_DSYNC in iomatrix' map.cfg || die "map.fio: no note on sync=1"
grep -q 'offset' map.cfg && die "map.fio: offset=0 set something: $(cat map.cfg)"
printf '[j]\nfilename=%s/map.dat\nsize=8m\nruntime=1\nrw=write\ndsync=1\n' "$PWD" >dsync.fio
"$IOMATRIX" import dsync.fio -o dsync.cfg >out 2>err || die "dsync.fio: $(cat err)"
grep -q '^  write_through = true; *# dsync=1$' dsync.cfg || die "dsync.fio: $(cat dsync.cfg)"
imp dsrandom diskspd-random.xml
grep -q 'read_pct = 70;' dsrandom.cfg && grep -q 'queue_depth = 8;' dsrandom.cfg &&
    grep -q 'write_through = true;' dsrandom.cfg || die "diskspd-random.xml: $(cat dsrandom.cfg)"
imp dsseq diskspd-sequential.xml
grep -q 'paths = \[ "seq-a.dat", "seq-b.dat" \]' dsseq.cfg && grep -q 'rate_iops = 1000;' dsseq.cfg &&
    grep -q 'data = "zeros";' dsseq.cfg || die "diskspd-sequential.xml: $(cat dsseq.cfg)"
imp icf iometer-oltp.icf --set duration=300ms
grep -q 'queue_depth = \[ 1, 2, 4 \];' icf.cfg && grep -q 'OLTP-8K-70-Read = ( { share = 90;' icf.cfg ||
    die "iometer-oltp.icf: $(cat icf.cfg)"
[ "$(ls res-icf/runs/*.json | wc -l)" = 6 ] || die "iometer-oltp.icf: not 2 specs x 3 queue depths"

# diskspd -X runs the profile
"$IOMATRIX" diskspd "-X$FX/diskspd-random.xml" --output res-x --quiet --no-trace >out 2>err ||
    die "diskspd -X: exit $?: $(cat err)"
grep -q 'block size: 8192' out || die "diskspd -X: $(head -30 out)"
"$IOMATRIX" diskspd "-X$FX/diskspd-random.xml" -b4K --matrix >out 2>err && die "-X with -b accepted"
grep -q 'takes a profile alone' err || die "-X with -b: $(cat err)"

# the profile is the command line it stands for: the same plan hash
"$IOMATRIX" diskspd "-X$FX/diskspd-random.xml" --matrix >x.cfg 2>err || die "-X --matrix: $(cat err)"
"$IOMATRIX" diskspd -b8K -r -w30 -t2 -o8 -Sh -d1 -W0 -z42 -c16M random.dat --matrix >f.cfg 2>err ||
    die "flags --matrix: $(cat err)"
a=$("$IOMATRIX" plan x.cfg | grep 'plan hash')
b=$("$IOMATRIX" plan f.cfg | grep 'plan hash')
[ -n "$a" ] && [ "$a" = "$b" ] || die "diskspd-random.xml plans '$a', its command line '$b'"

# the round trip: diskspd --print-fio, imported, plans as the DiskSpd command
for args in "-b16K -d1 -W0 -Sh -o4 -t2 -r -w30 -z7 -c16M rt.dat" "-b64K -d2 -o2 -w0 -c8M rt.dat" \
    "-b4K -rs50 -w100 -g200i -Z -c8M rt.dat"; do
    # shellcheck disable=SC2086
    "$IOMATRIX" diskspd $args --print-fio >rt.fio 2>err || { die "--print-fio $args: $(cat err)"; continue; }
    rm -f rt.cfg
    "$IOMATRIX" import rt.fio -o rt.cfg >/dev/null 2>err || { die "import of --print-fio $args: $(cat err)"; continue; }
    # shellcheck disable=SC2086
    "$IOMATRIX" diskspd $args --matrix >ds.cfg 2>err || die "--matrix $args"
    a=$("$IOMATRIX" plan rt.cfg | grep 'plan hash')
    b=$("$IOMATRIX" plan ds.cfg | grep 'plan hash')
    [ -n "$a" ] && [ "$a" = "$b" ] || die "round trip of $args: '$a' against '$b'"
done

# unknown options, refused by name and line; --lenient keeps them as comments
printf '[global]\nrw=randread\nverify=md5\nsize=8m\n[j]\nfilename=bad.dat\nexitall_on_error\nbs=4k,8k\n' >bad.fio
"$IOMATRIX" import bad.fio >out 2>err && die "bad.fio imported"
grep -q "^bad.fio:3: fio option 'verify' has no iomatrix equivalent" err || die "bad.fio: $(cat err)"
grep -q "^bad.fio:7: fio option 'exitall_on_error'" err || die "bad.fio line 7: $(cat err)"
grep -q "^bad.fio:8: bs=4k,8k: separate block sizes" err || die "bad.fio line 8: $(cat err)"
"$IOMATRIX" import --lenient bad.fio -o lenient.cfg >out 2>err || die "--lenient: $(cat err)"
grep -q "^#   bad.fio:3: fio option 'verify'" lenient.cfg || die "--lenient: no comment"
"$IOMATRIX" check --matrix-only lenient.cfg >/dev/null 2>err || die "--lenient matrix: $(cat err)"
printf '<Profile><TimeSpans><TimeSpan>\n<Duration>1</Duration>\n<ETWx>1</ETWx>\n<Targets><Target><Path>x.dat</Path>\n<ParallelAsyncIO>true</ParallelAsyncIO>\n</Target></Targets></TimeSpan></TimeSpans></Profile>\n' >bad.xml
"$IOMATRIX" import bad.xml >out 2>err && die "bad.xml imported"
grep -q '^bad.xml:3: <ETWx> in <TimeSpan> has no iomatrix equivalent' err &&
    grep -q '^bad.xml:5: <ParallelAsyncIO>' err || die "bad.xml: $(cat err)"
printf '<Profile><TimeSpans>\n' >broken.xml
"$IOMATRIX" import broken.xml >out 2>err && die "broken XML imported"
grep -q 'not well-formed XML' err || die "broken.xml: $(cat err)"
"$IOMATRIX" import /dev/null >out 2>err && die "/dev/null imported"
grep -q 'not a regular file' err || die "/dev/null: $(cat err)"
exit "$fail"
