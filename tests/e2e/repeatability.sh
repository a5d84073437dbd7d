#!/bin/sh
# SPDX-License-Identifier: MIT
# What makes a study repeatable is in study.json's "machine": the matrix's git commit and
# whether it was modified since, RAM, the distribution, liburing and the kernel's io_uring
# features, the CPU governor, the hypervisor, the kernel command line — each as this machine
# says it; `report A B` lists those that differ ("matrix commit differs: … (modified since)",
# "kernel command line differs: …").
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3 git
mkdir m && cd m || exit 1
git init -q . || skip "git init failed"
cat >m.cfg <<'CFG'
iomatrix = 1;
name = "again";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "null"; block_size = "4K"; };
timing = { warmup = "0s"; duration = "0.1s"; rest = "0s"; repeat = 1; };
trace = false;
CFG
git add m.cfg && git -c user.email=t@example.org -c user.name=t commit -qm m || die "git commit"
"$IOMATRIX" run m.cfg -o r1 -q >run.txt 2>&1 || die "run 1: $(cat run.txt)"
echo "# edited" >>m.cfg
"$IOMATRIX" run m.cfg -o r2 -q >run.txt 2>&1 || die "run 2: $(cat run.txt)"
git rev-parse HEAD >head.txt
python3 - <<'PY' || die "study.json's machine facts"
import json, os
head = open("head.txt").read().strip()
a = json.load(open("r1/study.json"))["machine"]
b = json.load(open("r2/study.json"))["machine"]
assert a["matrix_commit"] == head and a["matrix_modified"] is False, a
assert b["matrix_commit"] == head and b["matrix_modified"] is True, b
assert a["ram_bytes"] == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), a["ram_bytes"]
pretty = [l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release") if l.startswith("PRETTY_NAME=")]
assert a["distro"] == pretty[0], (a["distro"], pretty)
assert a["kernel_cmdline"] == open("/proc/cmdline").read().strip(), a["kernel_cmdline"]
assert a["liburing"] and a["liburing"][0].isdigit(), a["liburing"]
assert a["io_uring"] is None or a["io_uring"].startswith("features 0x"), a["io_uring"]
assert a["hypervisor"], a
gov = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
assert a["cpu_governor"] == (open(gov).read().strip() if os.path.exists(gov) else None), a
# another boot's command line, for the report to tell
s = json.load(open("r2/study.json"))
s["machine"]["kernel_cmdline"] = "quiet mitigations=off"
json.dump(s, open("r2/study.json", "w"))
PY
"$IOMATRIX" report r1 r2 >rep.txt 2>&1 || die "report r1 r2: $(cat rep.txt)"
grep -Eq "^  matrix commit differs: [0-9a-f]{12} \(r1\) vs [0-9a-f]{12} \(modified since\) \(r2\)$" rep.txt ||
    die "report A B does not list the matrix's change: $(sed -n '/differences/,$p' rep.txt | head -n 5)"
tr '\n' ' ' <rep.txt | tr -s ' ' | grep -q " kernel command line differs: .* (r1) vs quiet mitigations=off (r2)" ||
    die "report A B does not list the kernel command line: $(sed -n '/differences/,$p' rep.txt | head -n 5)"
grep -q "RAM differs\|distribution differs" rep.txt && die "same-machine facts listed as differing"
exit $fail
