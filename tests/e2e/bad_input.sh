#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input everywhere it enters, other than matrix files (tests/e2e/bad_matrices.sh):
#   - command lines: unknown commands and options, missing arguments and operands, --set with
#     unknown keys, bad values or no '=' — exit 2 with a message naming what is wrong;
#   - results directories handed to `report` and `resume`: missing, empty, runs/ files
#     truncated, garbage, binary, of a newer schema or with wrong types, a truncated or newer
#     study.json, a corrupt journal, a missing matrix.cfg — a clear "iomatrix: …" error, never a
#     crash; a damaged run file is named with why by a report of the rest (exit 1), and resume
#     sets it aside and redoes its run (tests/e2e/resume_integrity.sh has the details);
#   - traces handed to `trace`: empty, not a trace, not gzip, truncated, bytes flipped, a newer
#     version — a clear error, never a crash.
# "Never a crash": exit status below 128 (no signal), stderr free of sanitizer reports.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"

# expect RC PATTERN CMD...: runs CMD, wants exit RC ("nz" = any failure below 128) and PATTERN
# in its stderr.
expect() {
	want=$1 pat=$2
	shift 2
	"$IOMATRIX" "$@" >out.txt 2>err.txt </dev/null
	rc=$?
	if grep -q -e "Sanitizer" -e "runtime error" err.txt; then
		die "iomatrix $*: sanitizer report: $(head -n 5 err.txt)"
	elif [ "$rc" -ge 128 ]; then
		die "iomatrix $*: crashed (exit $rc): $(tail -n 3 err.txt)"
	elif [ "$want" = nz ] && [ "$rc" -eq 0 ]; then
		die "iomatrix $*: exit 0, want a failure"
	elif [ "$want" != nz ] && [ "$rc" -ne "$want" ]; then
		die "iomatrix $*: exit $rc, want $want: $(head -n 3 err.txt)"
	elif ! grep -q -e "$pat" err.txt; then
		die "iomatrix $*: stderr lacks '$pat': $(head -n 3 err.txt)"
	fi
}

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "bad-input";
targets = ( { label = "a"; path = "a.scratch"; size = "4M"; } );
workload = { engine = "psync"; direct = false; block_size = "4K"; read_pct = [100, 0]; };
timing = { warmup = "0s"; duration = "100ms"; repeat = 1; };
trace = true;
CFG

# ---- command lines -------------------------------------------------------------------------
expect 2 "unknown command 'frobnicate'" frobnicate
expect 2 "unknown option '--bogus'" run --bogus m.cfg
expect 2 "unknown option" plan m.cfg -Z
expect 2 "iomatrix" run
expect 2 "iomatrix" plan
expect 2 "iomatrix" report
expect 2 "iomatrix" resume
expect 2 "iomatrix" trace
expect 2 "iomatrix" run m.cfg -o
expect 2 "iomatrix" plan m.cfg --set
expect 2 "iomatrix" plan m.cfg --format
expect 2 "bogus" plan m.cfg --format bogus
expect 2 "nosuchkey" plan m.cfg --set nosuchkey=1
expect 2 "block_size" plan m.cfg --set block_size=banana
expect 2 "block_size" plan m.cfg --set block_size=10G
expect 2 "queue_depth" plan m.cfg --set workload.queue_depth=0
expect 2 "read_pct" plan m.cfg --set read_pct=101
expect 2 "pattern" plan m.cfg --set pattern=rand
expect 2 "verify" plan m.cfg --set verify=maybe
expect 2 "=" plan m.cfg --set block_size
expect 2 "timing" plan m.cfg --set timing.nosuch=1s
expect 2 "iomatrix" plan m.cfg --set '=4K'
expect 2 "not a value" plan m.cfg --set 'block_size=[4K,'
expect 2 "iomatrix" help nosuchcommand
expect 2 "iomatrix" check

# ---- results directories -------------------------------------------------------------------
"$IOMATRIX" run m.cfg -o good >run.txt 2>&1 || { echo "FAIL: the good sweep: $(tail -n 5 run.txt)"; exit 1; }
[ -f good/runs/00001.json ] && [ -f good/study.json ] || { echo "FAIL: no results"; exit 1; }
"$IOMATRIX" report good >/dev/null 2>err.txt || die "report of the good directory: $(cat err.txt)"

expect nz "nosuchdir" report nosuchdir
mkdir empty
expect nz "empty" report empty
expect nz "iomatrix" resume empty

# copy DIR: a copy of the good results directory to spoil
copy() { rm -rf "$1"; cp -r good "$1"; }
run1=runs/00001.json

copy trunc
head -c 200 good/$run1 >trunc/$run1
expect_report() { # DIR PATTERN: the report of the rest names the bad run 1 and why, exit 1;
	# resume sets the file aside and redoes the run; never a crash
	"$IOMATRIX" report "$1" >out.txt 2>err.txt
	rc=$?
	if grep -q -e "Sanitizer" -e "runtime error" err.txt; then
		die "report $1: sanitizer report: $(head -n 5 err.txt)"
	elif [ "$rc" -ge 128 ]; then
		die "report $1: crashed (exit $rc)"
	elif [ "$rc" -ne 1 ]; then
		die "report $1: exit $rc, want 1: $(head -n 3 err.txt)"
	elif ! grep -q -e "^  run 1: $1/$run1: .*$2" out.txt; then
		die "report $1: run 1 and '$2' not named in the report: $(tail -n 3 out.txt)"
	elif ! grep -q -e "^iomatrix: run 1: $1/$run1: .*$2" err.txt; then
		die "report $1: run 1 and '$2' not named on stderr: $(head -n 3 err.txt)"
	fi
	"$IOMATRIX" resume "$1" >out.txt 2>err.txt </dev/null
	rc=$?
	if [ "$rc" -ne 0 ] || grep -q -e "Sanitizer" -e "runtime error" err.txt; then
		die "resume $1: exit $rc: $(head -n 3 err.txt)"
	elif ! ls "$1"/runs/00001.json.corrupt-* >/dev/null 2>&1; then
		die "resume $1: the damaged run file was not set aside"
	elif ! "$IOMATRIX" report "$1" >/dev/null 2>err.txt; then
		die "report $1 after resume: $(head -n 3 err.txt)"
	fi
}
expect_report trunc "truncated JSON"
copy garbage
echo 'this is not json {' >garbage/$run1
expect_report garbage "invalid JSON"
copy binary
head -c 4096 /dev/urandom >binary/$run1
expect_report binary "JSON"
copy emptyrun
: >emptyrun/$run1
expect_report emptyrun "truncated JSON"
copy newer
sed 's/"schema": *[0-9]*/"schema": 99/' good/$run1 >newer/$run1
expect_report newer "schema 99 is newer"
copy wrongtype
sed 's/"iops": *[0-9.e+]*/"iops": "fast"/' good/$run1 >wrongtype/$run1
expect_report wrongtype "'.*iops' is not a number"
copy studytrunc
head -c 100 good/study.json >studytrunc/study.json
expect nz "study.json" report studytrunc
copy studynewer
sed 's/"schema": *[0-9]*/"schema": 99/' good/study.json >studynewer/study.json
expect nz "schema" report studynewer
copy nostudy
rm nostudy/study.json
expect nz "study.json" report nostudy

# resume: a finished sweep has nothing to do; spoiled journals and matrices are refused clearly
"$IOMATRIX" resume good >out.txt 2>err.txt
rc=$?
[ "$rc" -lt 128 ] || die "resume of a finished sweep crashed (exit $rc)"
copy badjournal
for j in badjournal/journal*; do head -c 4096 /dev/urandom >"$j"; done
expect nz "iomatrix" resume badjournal
copy nomatrix
rm nomatrix/matrix.cfg
expect nz "matrix.cfg" resume nomatrix
copy badmatrix
echo 'iomatrix = 1; targets = (' >badmatrix/matrix.cfg
expect nz "matrix.cfg" resume badmatrix

# ---- traces --------------------------------------------------------------------------------
tr=$(ls good/traces/*.trace.gz 2>/dev/null | head -n 1)
if [ -z "$tr" ]; then
	die "the good sweep wrote no trace"
else
	"$IOMATRIX" trace "$tr" >out.txt 2>err.txt || die "trace of a good trace: $(cat err.txt)"
	expect nz "nosuch" trace nosuch.trace.gz
	: >empty.trace.gz
	expect nz "empty.trace.gz" trace empty.trace.gz
	echo "plain text" >plain.trace.gz
	expect nz "plain.trace.gz" trace plain.trace.gz
	echo "hello" | gzip >foreign.trace.gz
	expect nz "foreign.trace.gz" trace foreign.trace.gz
	size=$(wc -c <"$tr")
	head -c $((size / 2)) "$tr" >half.trace.gz
	expect nz "half.trace.gz" trace half.trace.gz
	head -c $((size - 4)) "$tr" >short.trace.gz
	expect nz "short.trace.gz" trace short.trace.gz
	cp "$tr" flipped.trace.gz
	printf '\377\377\377\377\377\377\377\377' |
		dd of=flipped.trace.gz bs=1 seek=$((size / 2)) conv=notrunc status=none
	expect nz "flipped.trace.gz" trace flipped.trace.gz
	expect nz "v3.trace.gz" trace "$TOP/tests/fixtures/trace/v3.trace.gz"
fi
exit $fail
