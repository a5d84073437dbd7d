#!/bin/sh
# SPDX-License-Identifier: MIT
# `iomatrix diskspd`: the two command lines published in controller comparisons become the
# expected matrices (--matrix); a short real run (-d1 on a 16 MiB scratch file in the cwd)
# prints DiskSpd's report sections and leaves an ordinary results directory that `report`
# reads; unknown and unsupported flags are refused with exit 2 and a message naming the flag.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"

# the published commands (Linux paths), as matrices
"$IOMATRIX" diskspd -b16K -d1800 -h -L -o2 -t4 -r -w50 -c10G /mnt/lsi/io.dat --matrix >m1.cfg 2>err ||
    die "published command 1: $(cat err)"
for want in 'block_size = "16K";' 'pattern = "random";' 'read_pct = 50;' 'queue_depth = 2;' \
    'threads = 4;' 'direct = true;' 'warmup = "5s";' 'duration = "1800s";' 'size = "10G";' \
    'path = "/mnt/lsi/io.dat";' '-h is DiskSpd'; do
    grep -qF -- "$want" m1.cfg || die "command 1 matrix lacks $want"
done
"$IOMATRIX" check --matrix-only m1.cfg >/dev/null 2>err || die "command 1 matrix does not check: $(cat err)"
"$IOMATRIX" diskspd -t2 -o32 -b4K -r4K -d120 -Sh -D -L -W -w30 -c5G io.dat --matrix >m2.cfg 2>err ||
    die "published command 2: $(cat err)"
for want in 'block_size = "4K";' 'read_pct = 70;' 'queue_depth = 32;' 'threads = 2;' \
    'warmup = "0s";' 'duration = "120s";' 'size = "5G";' '-W without seconds'; do
    grep -qF -- "$want" m2.cfg || die "command 2 matrix lacks $want"
done
[ -e io.dat ] && die "--matrix created the target file"

# a path's messages say what it really is: a character device; a missing file in a directory
"$IOMATRIX" diskspd -c1M /dev/null --matrix >m3.cfg 2>err && die "-c1M /dev/null was accepted"
grep -qF "'/dev/null' is a character device, neither a file nor a block device" err ||
    die "-c1M /dev/null: $(cat err)"
shm=/dev/shm/iomatrix-e2e-no-such-$$.dat
"$IOMATRIX" diskspd -d1 "$shm" --matrix >m4.cfg 2>err && die "a missing $shm was accepted"
grep -qF "'$shm' does not exist: give -c<size> to create it" err || die "missing $shm: $(cat err)"
"$IOMATRIX" diskspd -d1 -c1M "$shm" --matrix >m5.cfg 2>err || die "-c1M $shm: $(cat err)"
grep -qF "path = \"$shm\";" m5.cfg || die "-c1M $shm: not a scratch file: $(cat m5.cfg)"
[ -e "$shm" ] && { rm -f "$shm"; die "--matrix created $shm"; }

# a short real run
"$IOMATRIX" diskspd -b4K -d1 -W0 -o4 -t2 -r -w30 -Sh -L -c16M ds.dat --output res >out 2>err ||
    die "diskspd run: exit $?: $(cat err)"
for want in 'Command Line: iomatrix diskspd -b4K -d1 -W0 -o4 -t2 -r -w30 -Sh -L -c16M ds.dat' \
    'Input parameters:' 'duration: 1s' 'block size: 4096' 'using random I/O (alignment: 4096)' \
    'number of outstanding I/O operations: 4' 'threads per file: 2' \
    'performing mix test (read/write ratio: 70/30)' 'Results for run 1:' 'CPU |  Usage' \
    'Total IO' 'Read IO' 'Write IO' '%-ile |  Read (ms) | Write (ms) | Total (ms)' \
    'results in res'; do
    grep -qF -- "$want" out || die "diskspd report lacks '$want'"
done
grep -q '^total: *[0-9][0-9]* |' out || die "no total line with bytes"
grep -q 'run 1/1' err || die "no progress line on stderr: $(cat err)"
[ -f res/study.json ] && [ -f res/summary.csv ] && [ -f res/matrix.cfg ] ||
    die "res is not a results directory: $(ls res)"
grep -qF 'name = "diskspd";' res/matrix.cfg || die "the matrix as run is not the diskspd one"
"$IOMATRIX" report res --run 1 >again 2>err || die "report --run 1: $(cat err)"
grep -q 'Results for run 1:' again || die "report --run 1 of the diskspd study"
# --quiet: no progress, same report
"$IOMATRIX" diskspd -b4K -d1 -W0 -Sh -c16M ds.dat --output res2 --quiet --no-trace >out2 2>err2 ||
    die "diskspd --quiet: $(cat err2)"
[ -s err2 ] && die "--quiet printed: $(cat err2)"
grep -q 'Total IO' out2 || die "--quiet lost the report"
[ -d res2/traces ] && [ -n "$(ls res2/traces)" ] && die "--no-trace recorded a trace"
# the same directory again is refused, as for run
"$IOMATRIX" diskspd -d1 -Sh -c16M ds.dat --output res >/dev/null 2>err && die "reused results dir"

# refused flags and targets: exit 2 with the flag named
expect2() {
    msg=$1; shift
    "$IOMATRIX" diskspd "$@" >out 2>err
    rc=$?
    [ "$rc" -eq 2 ] || die "diskspd $*: exit $rc, want 2"
    grep -qF -- "$msg" err || die "diskspd $*: message $(cat err), want $msg"
}
expect2 "unknown DiskSpd option '-q'" -q -c1M x.dat
expect2 "DiskSpd option '-F4' (total threads) is not supported" -F4 -c1M x.dat
expect2 "-si and -r" -si -r -c1M x.dat
# -si, -T, -r<align> and -rs land as workload keys (where each I/O goes), and the matrix checks
"$IOMATRIX" diskspd -b8K -t4 -si -c16M x.dat --matrix >si.cfg 2>err || die "diskspd -si: $(cat err)"
grep -q '^  shared_sequential = true;' si.cfg || die "-si: no shared_sequential in $(cat si.cfg)"
"$IOMATRIX" diskspd -b8K -t4 -T1M -c16M x.dat --matrix >T.cfg 2>err || die "diskspd -T: $(cat err)"
grep -q '^  thread_stride = "1M";' T.cfg || die "-T: no thread_stride in $(cat T.cfg)"
"$IOMATRIX" diskspd -b4K -r512 -rs50 -c16M x.dat --matrix >r.cfg 2>err || die "diskspd -r512: $(cat err)"
grep -q '^  align = "512";' r.cfg && grep -q '^  random_pct = 50;' r.cfg || die "-r512 -rs50: $(cat r.cfg)"
for f in si T r; do
    "$IOMATRIX" check $f.cfg >/dev/null 2>err || die "check $f.cfg: $(cat err)"
done
expect2 "'-w101'" -w101 -c1M x.dat
expect2 "Windows target" -c1M 'C:\io.dat'
expect2 "needs a target" -b4K
expect2 "does not exist: give -c<size>" nosuch.dat
[ -e x.dat ] && die "a refused command created its file"

"$IOMATRIX" diskspd --help >help 2>&1 || die "diskspd --help"
grep -q '^usage: iomatrix diskspd' help || die "diskspd --help text"
"$IOMATRIX" help diskspd | grep -q -- '-Sh, -Su, -S' || die "help diskspd"
rm -f ds.dat .ds.dat.iomatrix
exit "$fail"
