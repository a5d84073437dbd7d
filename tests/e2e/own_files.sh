#!/bin/sh
# SPDX-License-Identifier: MIT
# iomatrix's own files are never written through someone else's names (docs/hardening.md, "Its
# own files"). Each case plants what an attacker would in or beside a results directory and
# checks a victim file's sha256 before and after (a victim that must not appear: its absence):
#   1. resume of an interrupted run: traces/NNNNN.trace.gz and its hooks/ log links to the victim
#   2. journal a link to the victim
#   3. traces/ a link to another directory holding NAME.tmp.PID files
#   4. .lock a dangling link, on a resume of a finished study
#   5. a results directory others can write (mode 0777; as root also one owned by another
#      user), with summary.csv planted as a link while the sweep runs
#   6. report -o FILE with FILE.tmp.<pid> planted as a link
#  10. --metrics FILE, --live FILE and import -o FILE (and its FILE.tmp.<pid>) planted as links
#   9. runs/00002.json and study.json links to /dev/zero, the journal a FIFO, a 6 GiB sparse
#      run file: refused by name at once (no abort, no hang)
# Cases 7 (the MPI followers' scratch) and 8 (a bind mount) are own_files_mpi.sh and
# own_files_mount.sh.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "own";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = "4K"; queue_depth = [ 1, 2 ]; };
timing = { warmup = "0s"; duration = "20ms"; rest = "0s"; repeat = 1; };
trace = true;
hooks = { before_run = "true"; };
CFG
sed -e 's/duration = "20ms"/duration = "400ms"/' -e 's/repeat = 1/repeat = 3/' m.cfg >slow.cfg

# sum FILE: its sha256, or "absent"
sum() { if [ -e "$1" ] || [ -L "$1" ]; then sha256sum <"$1" | cut -d' ' -f1; else echo absent; fi; }
# victim NAME: makes the victim file NAME and prints its sum
victim() { printf 'precious %s\n' "$1" >"$1"; sum "$1"; }
# same NAME SUM WHAT: the victim NAME still has SUM
same() { [ "$(sum "$1")" = "$2" ] || die "$3: the victim $1 changed ($(head -c 60 "$1" 2>/dev/null))"; }
# iom RC|nz ARGS...: iomatrix with stdout/stderr in out.txt/err.txt, wanting exit RC (nz: any
# failure that is not a crash or a hang)
iom() {
	want=$1
	shift
	timeout 60 "$IOMATRIX" "$@" >out.txt 2>err.txt </dev/null
	rc=$?
	if grep -q -e "Sanitizer" -e "runtime error" err.txt; then
		die "iomatrix $*: sanitizer report: $(head -n 5 err.txt)"
	elif [ "$want" = nz ]; then
		[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] || die "iomatrix $*: exit $rc: $(head -n 3 err.txt)"
	elif [ "$rc" -ne "$want" ]; then
		die "iomatrix $*: exit $rc, want $want: $(head -n 3 err.txt)"
	fi
}
# says PATTERN WHAT: err.txt matches PATTERN
says() { grep -q -e "$1" err.txt || die "$2: no '$1' in: $(head -n 3 err.txt)"; }
# interrupted DIR: DIR as a study killed during its run 2 (run 2 started, not done)
interrupted() {
	cp -r done "$1"
	sed -i -e '/\trun-done\t2\t/d' -e '/\tstudy-end\t/d' "$1/journal"
	rm -f "$1/runs/00002.json" "$1/traces/00002.trace.gz"
}

iom 0 run m.cfg -o done --allow-hooks -q
[ -f done/traces/00002.trace.gz ] || die "the study wrote no trace of run 2"

# ---- 1: the interrupted run's trace and hook log --------------------------------------------
interrupted c1
v1=$(victim v1)
v1b=$(victim v1b)
ln -s "$PWD/v1" c1/traces/00002.trace.gz
ln -s "$PWD/v1b" c1/hooks/00002.before_run.resume1.log
iom 0 resume c1 --allow-hooks -q
same v1 "$v1" "case 1 (trace)"
same v1b "$v1b" "case 1 (hook log)"
[ -f c1/traces/00002.trace.gz ] && [ ! -L c1/traces/00002.trace.gz ] ||
	die "case 1: run 2's trace is not a file of its own"
iom 0 report c1

# ---- 2: the journal a link ------------------------------------------------------------------
interrupted c2
cp c2/journal v2
printf 'torn' >>v2
v2=$(sum v2)
rm c2/journal
ln -s "$PWD/v2" c2/journal
iom nz resume c2 --allow-hooks -q
says "c2/journal' is a symbolic link" "case 2"
same v2 "$v2" "case 2"

# ---- 3: traces/ a link to another directory -------------------------------------------------
interrupted c3
mkdir other
v3=$(victim other/keep.tmp.123)
rm -r c3/traces
ln -s "$PWD/other" c3/traces
iom nz resume c3 --allow-hooks -q
same other/keep.tmp.123 "$v3" "case 3"
grep -q "c3/traces' is a symbolic link" c3/journal err.txt c3/runs/00002.json 2>/dev/null ||
	die "case 3: the link is not named: $(head -n 3 err.txt)"

# ---- 4: .lock a dangling link, resuming a finished study ------------------------------------
cp -r done c4
rm -f c4/.lock
ln -s "$PWD/v4" c4/.lock
iom nz resume c4 --allow-hooks -q
says "c4/.lock' is a symbolic link" "case 4"
same v4 absent "case 4"

# ---- 5: a results directory others can write ------------------------------------------------
v5=$(victim v5)
mkdir c5
chmod 0777 c5
( for _ in $(seq 100); do [ -e c5/journal ] && break; sleep 0.05; done
  ln -s "$PWD/v5" c5/summary.csv 2>/dev/null ) &
iom 2 run slow.cfg -o c5 --allow-hooks -q
wait
says "c5' is writable by others (mode 0777)" "case 5"
says "chmod go-w" "case 5"
same v5 "$v5" "case 5"
[ ! -e c5/journal ] || die "case 5: iomatrix wrote in a directory others can write"
if [ "$(id -u)" -eq 0 ]; then
	mkdir c5u
	chown nobody c5u
	iom 2 run m.cfg -o c5u --allow-hooks -q
	says "c5u' is owned by uid" "case 5 (owner)"
	[ -z "$(ls -A c5u)" ] || die "case 5: iomatrix wrote in another user's directory"
fi

# ---- 6: report -o FILE with FILE.tmp.<pid> planted ------------------------------------------
v6=$(victim v6)
sh -c 'ln -s "$1" out.html.tmp.$$ && exec "$2" report done -o out.html --format html' \
	sh "$PWD/v6" "$IOMATRIX" >out.txt 2>err.txt || die "case 6: report -o failed: $(head -n 3 err.txt)"
same v6 "$v6" "case 6"
grep -q "<html" out.html || die "case 6: out.html is not the report"

# ---- 9: unbounded and blocking files --------------------------------------------------------
cp -r done c9
ln -sf /dev/zero c9/runs/00002.json
iom 1 report c9
says "00002.json' is a character device\|00002.json' is a symbolic link" "case 9 (report)"
cp -r done c9b
rm c9b/study.json
ln -s /dev/zero c9b/study.json
iom nz report c9b
says "study.json' is a symbolic link" "case 9 (study.json)"
interrupted c9c
rm c9c/journal
mkfifo c9c/journal
iom nz resume c9c --allow-hooks -q
says "journal' is a FIFO" "case 9 (FIFO)"
cp -r done c9d
truncate -s 6G c9d/runs/00002.json
v9=$(sum c9d/runs/00001.json)
iom 1 report c9d
says "00002.json' is larger than 256 MiB" "case 9 (6 GiB)"
interrupted c9e
truncate -s 6G c9e/journal
iom nz resume c9e --allow-hooks -q
says "journal' is larger than" "case 9 (6 GiB journal)"
same c9d/runs/00001.json "$v9" "case 9"

# ---- 10: --metrics FILE, --live FILE and import -o FILE planted as links --------------------
# --metrics refuses the link by name (its temporaries are random names made O_EXCL|O_NOFOLLOW,
# as in case 3); --live unlinks the link, never following it, and writes a file of its own
# there; import -o refuses the link and a link at its temporary (FILE.tmp.<pid>), saying it
# never overwrites
sed -e 's/trace = true;//' -e 's/hooks = .*//' m.cfg >plain.cfg
v10=$(victim v10)
ln -s "$PWD/v10" m10.prom
iom nz run plain.cfg -o c10 --metrics m10.prom -q
says "m10.prom' is a symbolic link" "case 10 (--metrics)"
same v10 "$v10" "case 10 (--metrics)"
ln -s "$PWD/v10" l10.jsonl
iom 0 run plain.cfg -o c10b --live l10.jsonl -q
same v10 "$v10" "case 10 (--live)"
[ -f l10.jsonl ] && [ ! -L l10.jsonl ] && grep -q '"interval"' l10.jsonl ||
	die "case 10: --live wrote no intervals of its own at l10.jsonl"
fx=$TOP/tests/fixtures/import/rand-rw.fio
ln -s "$PWD/v10" i10.cfg
iom 2 import "$fx" -o i10.cfg
says "i10.cfg' exists, and 'iomatrix import' never overwrites" "case 10 (import -o)"
same v10 "$v10" "case 10 (import -o)"
sh -c 'ln -s "$1" i10b.cfg.tmp.$$ && exec "$2" import "$3" -o i10b.cfg' \
	sh "$PWD/v10" "$IOMATRIX" "$fx" >out.txt 2>err.txt && die "case 10: import -o wrote through its planted temporary"
says "i10b.cfg.tmp.[0-9]*' is a symbolic link" "case 10 (import -o's temporary)"
same v10 "$v10" "case 10 (import -o's temporary)"
[ ! -e i10b.cfg ] || die "case 10: import -o left i10b.cfg"
iom 0 import "$fx" -o i10c.cfg
iom 2 import "$fx" -o i10c.cfg
says "i10c.cfg' exists, and 'iomatrix import' never overwrites" "case 10 (import -o on a file)"

exit $fail
