#!/bin/sh
# SPDX-License-Identifier: MIT
# Results-directory integrity on a small real study (psync on a scratch file, 10 runs of 100 ms;
# no root needed), each scenario of docs/hardening.md's "Safety under change" cases 5 and 6:
#   - a matrix.cfg edited after the study began (repeat 5 → 7, study-end dropped): resume is
#     refused with exit 2, both plan hashes and how to start a new study, and study.json and the
#     journal stay byte-identical;
#   - a run file the journal counts done deleted: report names it and exits 1, resume redoes it;
#   - an empty or a binary journal beside the run files: resume refuses, nothing changes;
#   - run files truncated, with an index that disagrees with the name, block_size 0, threads 0,
#     a count above 2^64: report names each and why, shows the rest and exits 1 without renaming
#     anything; resume sets each aside (renamed runs/NNNNN.json.corrupt-<UTC>, content kept),
#     redoes each run exactly once, and the report is whole again;
#   - run files whose total IOPS are NaN and -1e308: the same, named 'total.iops'.
# Exit codes and messages are asserted exactly.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "integrity";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = [100, 0]; };
timing = { warmup = "0s"; duration = "100ms"; rest = "0s"; repeat = 5; };
trace = false;
CFG

# iom RC ARGS...: runs iomatrix with stdout in out.txt and stderr in err.txt, wants exit RC
iom() {
	want=$1
	shift
	"$IOMATRIX" "$@" >out.txt 2>err.txt </dev/null
	rc=$?
	if grep -q -e "Sanitizer" -e "runtime error" err.txt; then
		die "iomatrix $*: sanitizer report: $(head -n 5 err.txt)"
	elif [ "$rc" -ne "$want" ]; then
		die "iomatrix $*: exit $rc, want $want: $(head -n 3 err.txt)"
	fi
}
# has FILE LINE: FILE has exactly this line
has() { grep -Fxq -e "$2" "$1" || die "$1 lacks the line '$2': $(head -n 5 "$1")"; }
# tally FILE RUNS [DAMAGED]: the report's tally says RUNS runs, each ok or (a busy machine)
# stalled and left out, and DAMAGED more missing or damaged
tally() {
	_line=$(grep "^$2 runs: " "$1" | head -n 1)
	_ok=$(echo "$_line" | sed -n "s/^$2 runs: \([0-9]*\) ok.*/\1/p")
	_out=$(echo "$_line" | sed -n 's/.* ok, \([0-9]*\) left out (stalled).*/\1/p')
	_rest=""
	[ -n "${3:-}" ] && _rest="; $3 more missing or damaged (listed below)"
	[ -n "$_ok" ] && [ "$_line" = "$2 runs: $_ok ok${_out:+, $_out left out (stalled)}$_rest" ] &&
		[ $((_ok + ${_out:-0})) -eq "$2" ] ||
		die "$1: the tally is not $2 runs ok or stalled${3:+, $3 damaged}: $(head -n 3 "$1")"
}
# whole DIR: every run 1..10 has exactly one file runs/000NN.json and the report reads all of them
whole() {
	n=$(ls "$1/runs" | grep -c '^[0-9]*\.json$')
	[ "$n" -eq 10 ] || die "$1: $n run files, want 10"
	for i in 01 02 03 04 05 06 07 08 09 10; do
		[ -f "$1/runs/000$i.json" ] || die "$1: no runs/000$i.json"
	done
	iom 0 report "$1"
	tally out.txt 10
	rows=$(tail -n +2 "$1/summary.csv" | wc -l)
	[ "$rows" -eq 10 ] || die "$1/summary.csv: $rows rows, want 10"
}
# started_since_resume DIR: the run indices started after the journal's last resume, sorted
started_since_resume() {
	awk -F '\t' '$2 == "resume" { n = 0; delete s } $2 == "run-start" { s[n++] = $3 }
		END { for (i = 0; i < n; i++) print s[i] }' "$1/journal" | sort -n | tr '\n' ' '
}

iom 0 run m.cfg -o s1
whole s1

# ---- case 5: resume refuses a changed plan --------------------------------------------------
cp -r s1 plan
cp plan/study.json study.before
sed -i 's/repeat = 5/repeat = 7/' plan/matrix.cfg
sed -i '/\tstudy-end\t/d' plan/journal
cp plan/journal journal.before
old=$(sed -n 's/.*"plan_hash": *"\([0-9a-f]*\)".*/\1/p' plan/study.json)
"$IOMATRIX" plan plan/matrix.cfg >plan.txt 2>&1 || die "plan of the edited matrix: $(cat plan.txt)"
new=$(sed -n 's/^plan hash: //p' plan.txt)
[ -n "$old" ] && [ -n "$new" ] && [ "$old" != "$new" ] || die "hashes '$old' and '$new'"
iom 2 resume plan
has err.txt "iomatrix: 'plan/matrix.cfg' now gives plan $new (14 runs), not the plan this study began with: study.json and the journal record plan $old (10 runs). Resume carries on only that plan; nothing was changed. To run the edited matrix, start a new study: iomatrix run plan/matrix.cfg -o NEWDIR"
[ "$(wc -l <err.txt)" -eq 1 ] || die "more than the refusal on stderr: $(cat err.txt)"
cmp -s study.before plan/study.json || die "the refused resume changed study.json"
cmp -s journal.before plan/journal || die "the refused resume changed the journal"
[ "$(ls plan/runs | wc -l)" -eq 10 ] || die "the refused resume changed runs/"
# as the message says: a new study from the edited file runs its 14 runs
iom 0 run plan/matrix.cfg -o plan-new
[ "$(ls plan-new/runs | wc -l)" -eq 14 ] || die "the new study has $(ls plan-new/runs | wc -l) runs"
# and the matrix the study began with still resumes (to nothing: every run is there)
sed -i 's/repeat = 7/repeat = 5/' plan/matrix.cfg
iom 0 resume plan
[ "$(started_since_resume plan)" = "" ] || die "resume of the unchanged plan ran: $(started_since_resume plan)"
whole plan

# ---- case 6a: a run the journal calls done, its file deleted ----------------------------------
cp -r s1 missing
rm missing/runs/00005.json
iom 1 report missing
tally out.txt 9 1
has out.txt "  run 5: result file missing; \`iomatrix resume missing\` redoes it"
has err.txt "iomatrix: run 5: result file missing; \`iomatrix resume missing\` redoes it"
iom 0 resume missing
has err.txt "iomatrix: warning: run 5: the journal counts it finished but runs/00005.json is missing: it runs again"
[ "$(started_since_resume missing)" = "5 " ] || die "resume ran '$(started_since_resume missing)', want run 5 alone"
whole missing

# ---- case 6b: an empty or unreadable journal beside run files ---------------------------------
cp -r s1 nojournal
(cd nojournal/runs && md5sum *) >runs.before
: >nojournal/journal
iom 1 resume nojournal
has err.txt "iomatrix: cannot resume 'nojournal': its journal is empty, but 'nojournal/runs' holds 10 run files; resuming would run the study again over them, so nothing was changed. Move the run files elsewhere to run it afresh, or start a new study: iomatrix run nojournal/matrix.cfg -o NEWDIR"
[ -s nojournal/journal ] && die "the refused resume wrote to the empty journal"
# binary, without tabs: a line of no fields (random bytes could hold tabs and read as fields)
head -c 3000 /dev/urandom | tr -d '\t\n' >nojournal/journal
printf '\n\001binary\n' >>nojournal/journal
cp nojournal/journal journal.before
iom 1 resume nojournal
grep -q "^iomatrix: cannot resume 'nojournal': nojournal/journal:1: malformed journal line; the journal says which runs finished, so nothing was changed (the 10 run files in 'nojournal/runs' are kept)$" err.txt ||
	die "resume of a binary journal: $(cat err.txt)"
cmp -s journal.before nojournal/journal || die "the refused resume changed the binary journal"
(cd nojournal/runs && md5sum -c --quiet ../../runs.before) || die "a refused resume changed run files"
[ "$(ls nojournal/runs | wc -l)" -eq 10 ] || die "a refused resume added run files"

# ---- case 6c/6d: inconsistent and corrupt run files --------------------------------------------
cp -r s1 bad
head -c 200 s1/runs/00003.json >bad/runs/00003.json
sed 's/"index": 4,/"index": 6,/' s1/runs/00004.json >bad/runs/00004.json
sed 's/"block_size": 4096/"block_size": 0/' s1/runs/00006.json >bad/runs/00006.json
sed 's/"threads": 1,/"threads": 0,/' s1/runs/00007.json >bad/runs/00007.json
awk '/"total": \{/ { t = 1 } t && /"ios": / { sub(/"ios": [0-9]+/, "\"ios\": 18446744073709551616"); t = 0 } { print }' \
	s1/runs/00008.json >bad/runs/00008.json
for i in 3 4 6 7 8; do cmp -s "s1/runs/0000$i.json" "bad/runs/0000$i.json" && die "run $i not spoiled"; done
mkdir damaged && cp bad/runs/* damaged/
iom 1 report bad
tally out.txt 5 5
has out.txt "  run 3: bad/runs/00003.json: truncated JSON (the file ends after 200 bytes); \`iomatrix resume bad\` sets the file aside and redoes the run"
has out.txt "  run 4: bad/runs/00004.json: 'index' is 6, but the file is named for run 4; \`iomatrix resume bad\` sets the file aside and redoes the run"
has out.txt "  run 6: bad/runs/00006.json: 'cell.block_size' is 0, not a positive integer; \`iomatrix resume bad\` sets the file aside and redoes the run"
has out.txt "  run 7: bad/runs/00007.json: 'cell.threads' is 0, not a positive integer; \`iomatrix resume bad\` sets the file aside and redoes the run"
has out.txt "  run 8: bad/runs/00008.json: 'total.ios' is out of range (2^64 or more); \`iomatrix resume bad\` sets the file aside and redoes the run"
has err.txt "iomatrix: 5 runs are missing or damaged, the first: run 3: bad/runs/00003.json: truncated JSON (the file ends after 200 bytes); \`iomatrix resume bad\` sets the file aside and redoes the run"
[ "$(ls bad/runs | wc -l)" -eq 10 ] || die "report renamed or removed run files"
iom 1 report bad --format json
has err.txt "iomatrix: 5 runs are missing or damaged, the first: run 3: bad/runs/00003.json: truncated JSON (the file ends after 200 bytes); \`iomatrix resume bad\` sets the file aside and redoes the run"
iom 0 resume bad
for i in 3 4 6 7 8; do
	grep -q "^iomatrix: warning: run $i: runs/0000$i.json is damaged (bad/runs/0000$i.json: .*); set aside as runs/0000$i.json.corrupt-[0-9]\{8\}T[0-9]\{6\}Z, and the run runs again$" err.txt ||
		die "resume did not say it set run $i aside: $(cat err.txt)"
	aside=$(ls bad/runs | grep "^0000$i\.json\.corrupt-")
	[ "$(echo "$aside" | wc -l)" -eq 1 ] && [ -n "$aside" ] || die "run $i set aside as '$aside'"
	cmp -s "damaged/0000$i.json" "bad/runs/$aside" || die "run $i's damaged file was not kept as it was"
	grep -q "	note	0	run $i: runs/0000$i.json is damaged" bad/journal || die "no journal note for run $i"
done
[ "$(started_since_resume bad)" = "3 4 6 7 8 " ] || die "resume ran '$(started_since_resume bad)', want 3 4 6 7 8"
whole bad
# a second resume has nothing to do and sets nothing more aside
iom 0 resume bad
[ "$(ls bad/runs | grep -c corrupt)" -eq 5 ] || die "a second resume set more aside"
has out.txt "the study in 'bad' is complete: nothing to resume"

# ---- crafted numbers: NaN and -1e308 where a run's IOPS stand ----------------------------------
# (accepted before: NaN turned a verdict around, -1e308 printed as a 47-digit rate)
cp -r s1 nums
for x in "2 NaN" "9 -1e308"; do
	i=${x%% *} v=${x#* }
	awk -v v="$v" '/"total": \{/ { t = 1 } t && /"iops": / { sub(/"iops": [-0-9.e+]+/, "\"iops\": " v); t = 0 } { print }' \
		"s1/runs/0000$i.json" >"nums/runs/0000$i.json"
	grep -q "\"iops\": $v" "nums/runs/0000$i.json" || die "run $i's IOPS not set to $v"
done
iom 1 report nums
tally out.txt 8 2
has out.txt "  run 2: nums/runs/00002.json: 'total.iops' is nan, not a figure iomatrix writes (0 to 1e+15); \`iomatrix resume nums\` sets the file aside and redoes the run"
has out.txt "  run 9: nums/runs/00009.json: 'total.iops' is -1e+308, not a figure iomatrix writes (0 to 1e+15); \`iomatrix resume nums\` sets the file aside and redoes the run"
grep -q '[0-9]\{20\}' out.txt && die "the report prints a crafted figure: $(grep '[0-9]\{20\}' out.txt)"
iom 0 resume nums
[ "$(started_since_resume nums)" = "2 9 " ] || die "resume ran '$(started_since_resume nums)', want 2 9"
[ "$(ls nums/runs | grep -c corrupt)" -eq 2 ] || die "resume did not set the 2 crafted files aside"
whole nums

exit $fail
