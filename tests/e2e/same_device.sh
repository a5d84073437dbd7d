#!/bin/sh
# SPDX-License-Identifier: MIT
# One device under two names (a symbolic link, as /dev/disk/by-id/ names are): two targets on a
# loop device and a link to it are refused by check and run ("target 'b' ('…/disk-link') is the
# same device as target 'a' ('/dev/loopN')"), nothing written; with allow_same = true (an A/A
# test) the study runs and its report says "a and b are one device". The same for a scratch
# file reached through a linked directory ("one file").
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

# a scratch file under two names
ln -s . here
cat >file.cfg <<'CFG'
iomatrix = 1;
name = "same-file";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; },
            { label = "b"; path = "here/a.scratch"; size = "1M"; } );
workload = { engine = "null"; block_size = "4K"; };
timing = { warmup = "0s"; duration = "0.1s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
"$IOMATRIX" check file.cfg >check.txt 2>&1 && die "two names of one file passed check"
grep -q "^file.cfg:4: target 'b' ('here/a.scratch') is the same file as target 'a' ('a.scratch'): one file under two names; set allow_same = true" check.txt ||
    die "check's message: $(cat check.txt)"
sed 's|path = "here/a.scratch"; size = "1M"; }|path = "here/a.scratch"; size = "1M"; allow_same = true; }|' file.cfg >file2.cfg
"$IOMATRIX" run file2.cfg -o rf >run.txt 2>&1 || die "allow_same run: $(tail -n 3 run.txt)"
grep -qx "a and b are one file (allow_same: an A/A test, their differences are the noise floor)" run.txt ||
    die "the report does not say they are one file: $(cat run.txt)"

need_root "the device part needs root for a loop device"
need_cmd losetup
img=$(mktemp /dev/shm/iom-same.XXXXXX)
loop=""
cleanup() {
    [ -n "$loop" ] && losetup -d "$loop"
    rm -f "$img"
}
on_exit cleanup
truncate -s 16M "$img"
loop=$(losetup -f --show "$img" 2>err) || skip "no loop device: $(cat err)"
ln -s "$loop" disk-link
cat >dev.cfg <<CFG
iomatrix = 1;
name = "same-device";
targets = ( { label = "a"; path = "$loop"; size = "8M"; },
            { label = "b"; path = "$WORK/disk-link"; size = "8M"; } );
workload = { engine = "psync"; direct = true; block_size = "4K"; read_pct = 100; };
timing = { warmup = "0s"; duration = "0.2s"; rest = "0s"; repeat = 2; };
trace = false;
CFG
"$IOMATRIX" run dev.cfg -o rd >run.txt 2>&1 && die "two names of one device ran"
grep -q "^dev.cfg:4: target 'b' ('$WORK/disk-link') is the same device as target 'a' ('$loop'): one device under two names" run.txt ||
    die "run's message: $(cat run.txt)"
[ -e rd/journal ] && die "the refused run wrote a journal"
sed "s|size = \"8M\"; } );|size = \"8M\"; allow_same = true; } );|" dev.cfg >dev2.cfg
"$IOMATRIX" run dev2.cfg -o rd2 >run.txt 2>&1 || die "allow_same run: $(tail -n 3 run.txt)"
grep -qx "a and b are one device (allow_same: an A/A test, their differences are the noise floor)" run.txt ||
    die "the report does not say they are one device: $(cat run.txt)"
python3 - <<'PY' || die "study.json's same_as"
import json
t = json.load(open("rd2/study.json"))["targets"]
assert t[0]["same_as"] is None and t[1]["same_as"] == "a", t
PY
exit $fail
