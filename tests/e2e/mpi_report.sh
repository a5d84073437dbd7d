#!/bin/sh
# SPDX-License-Identifier: MIT
# The report of a study on many hosts (docs/hosts.md, "Reports"): a 2-run study on 3 ranks
# where rank 2 is a straggler by construction — ranks 0 and 1 read 4K direct from a scratch
# file in /dev/shm (tmpfs: memory), rank 2 from one on the machine's disk (30x slower here) —
# then `iomatrix report` in text, Markdown, HTML and JSON:
#   - each run's aggregate line and one line per rank, rank 2's flagged "straggler", the
#     others not; the text within --width 100 (and 80);
#   - the provenance per host: a line per rank with its kernel, CPU and device, and the device
#     listed as differing ("device of target 'a' differs: r0, r1: no block device; r2: …");
#   - study.json keeps each rank's facts ("hosts": kernel, CPU, and per target its device,
#     driver and scheduler);
#   - `report A B` against a second study whose rank 2 also reads from tmpfs says rank 2's
#     device, driver and scheduler differ between the two, and nothing of ranks 0 and 1.
# Skips (77) when mpirun or iomatrix-mpi is missing.
. "$TOP/tests/e2e/lib.sh"
need_mpi
need_cmd python3
shm=/dev/shm/iom-mpi-report.$$
cleanup() { rm -rf "$shm"; }
on_exit cleanup
mkdir -p "$shm/d0" "$shm/d1" "$shm/d2" d2 && ln -s "$shm/d0" d0 && ln -s "$shm/d1" d1 &&
    mkdir e && ln -s "$shm/d0" e/d0 && ln -s "$shm/d1" e/d1 && ln -s "$shm/d2" e/d2 ||
    die "scratch directories"
# tmpfs takes O_DIRECT since Linux 6.6
dd if=/dev/zero of="$shm/d0/probe" bs=4096 count=1 oflag=direct 2>/dev/null ||
    skip "tmpfs refuses O_DIRECT on this kernel (before 6.6): no fast ranks to compare with"
rm -f "$shm/d0/probe"

cat >s.cfg <<CFG
iomatrix = 1;
name = "hosts-report";
targets = ( { label = "a"; path = "$WORK/d\${rank}/s.scratch"; size = "16M"; } );
workload = { engine = "psync"; direct = true; pattern = "random"; block_size = "4K";
             read_pct = 100; queue_depth = 1; threads = 1; };
timing = { warmup = "100ms"; duration = "300ms"; rest = "0s"; repeat = 2; };
trace = false;
CFG
mpi -np 3 "$MPI_BIN" run s.cfg -o out -q \
    >run.txt 2>&1 || { die "mpirun run: $(tail -n 20 run.txt)"; exit $fail; }
# the layout at a fixed width (100, 80); the provenance's content at a width where no line wraps
# (a long kernel string wrapped the per-rank line at 100 columns)
"$IOMATRIX" report out --width 100 >r.txt 2>err || die "report: $(cat err)"
"$IOMATRIX" report out --width 80 >r80.txt 2>err || die "report at 80 columns: $(cat err)"
"$IOMATRIX" report out --width 1000 >rw.txt 2>err || die "report at 1000 columns: $(cat err)"
"$IOMATRIX" report out --format md >r.md 2>err || die "report --format md: $(cat err)"
"$IOMATRIX" report out --format html -o r.html 2>err || die "report --format html: $(cat err)"
"$IOMATRIX" report out --format json >r.json 2>err || die "report --format json: $(cat err)"
python3 - <<'PY' || die "the per-host rows are not in the reports: $(cat r.txt)"
import json, re
t = open("r.txt", encoding="utf-8").read()
lines = t.split("\n")
for f, w in (("r.txt", 100), ("r80.txt", 80)):
    widest = max(len(l) for l in open(f, encoding="utf-8").read().split("\n"))
    assert widest <= w, (f, widest)
assert "per host (2 runs of many hosts):" in t, t
head = [i for i, l in enumerate(lines) if re.match(r"^run +cell +rank +host +IOPS +MB/s +lat avg +lat p99 +CPU s +flags$", l)]
assert len(head) == 1, head
rows = lines[head[0] + 1:head[0] + 9]
for k in (0, 4):  # each run: its aggregate, then ranks 0, 1, 2
    assert re.match(r"^[12] +a +all +3 hosts ", rows[k]), rows[k]
    for r in (0, 1, 2):
        row = rows[k + 1 + r]
        assert re.match(r"^ +%d +\S+ +[0-9.]+[KM]? " % r, row), row
        assert row.endswith("straggler") == (r == 2), row
# provenance per host: a line per rank, the device listed as differing
t = open("rw.txt", encoding="utf-8").read()
for r in (0, 1, 2):
    assert re.search(r"^  rank %d \(\S+\): kernel \S+.*; CPU .*; target 'a':" % r, t, re.M), r
assert re.search(r"^  rank 0 .*target 'a': no block\s+device$", t, re.M), t
assert "device of target 'a' differs: r0, r1: no block device; r2: " in t, t
md = open("r.md", encoding="utf-8").read()
assert "## Per host" in md and md.count("| **straggler** |") == 2, md
assert "- **device of target 'a' differs: r0, r1: no block device; r2: " in md, md
html = open("r.html", encoding="utf-8").read()
assert '<h2 id="hosts">Per host</h2>' in html and html.count('class="diff straggler"') == 2
assert "device of target &#39;a&#39; differs" in html or "device of target 'a' differs" in html
j = json.load(open("r.json"))
assert [h["run"] for h in j["host_runs"]] == [1, 2], j["host_runs"]
for h in j["host_runs"]:
    assert [x["straggler"] for x in h["hosts"]] == [False, False, True], h
    assert h["hosts"][2]["iops"] < 0.9 * h["hosts"][0]["iops"], h
d = j["host_provenance"][0]["differences"]
assert len(d) == 1 and d[0].startswith("device of target 'a' differs"), d
print("rank 2 against rank 0, IOPS:", [round(h["hosts"][2]["iops"] / h["hosts"][0]["iops"], 3) for h in j["host_runs"]])
st = json.load(open("out/study.json"))["hosts"]
assert [h["rank"] for h in st] == [0, 1, 2], st
for h in st:
    assert h["kernel"] and h["cpu_model"] and "a" in h["targets"], h
assert st[0]["targets"]["a"]["device"] == "" and st[2]["targets"]["a"]["device"], st
assert st[2]["targets"]["a"]["driver"] and st[2]["targets"]["a"]["scheduler"], st
PY

# a second study: every rank from tmpfs; report A B names rank 2's facts, and only its
sed "s|$WORK/d|$WORK/e/d|" s.cfg >e.cfg
mpi -np 3 "$MPI_BIN" run e.cfg -o out-e -q >rune.txt 2>&1 || die "mpirun run e.cfg: $(tail -n 20 rune.txt)"
"$IOMATRIX" report out out-e --width 1000 >ab.txt 2>err || die "report A B: $(cat err)"
python3 - <<'PY' || die "report A B does not say rank 2's device differs, rank by rank: $(grep -A4 'rank by rank' ab.txt)"
import re
t = open("ab.txt", encoding="utf-8").read()
at = t.index("hosts across the directories, rank by rank:\n")
block = t[at:].split("\n")[1:]
block = [l for l in block[:block.index("")] if l.startswith("  ")] if "" in block else block
print("\n".join(block))
assert len(block) == 1 and block[0].startswith("  rank 2: "), block
assert re.search(r"device of target 'a' differs: out: \S+.*; out-e: no block device", block[0]), block
assert "scheduler of target 'a' differs: out: " in block[0] and "; out-e: none" in block[0], block
PY
exit $fail
