#!/bin/sh
# SPDX-License-Identifier: MIT
# A study is created so that a kill at any step leaves a directory `run` takes again or
# `resume` carries on (docs/hardening.md, "A study is created atomically"). Each state a kill
# can leave (the order is the lock, runs/, matrix.cfg, then the journal with its study-start;
# an older iomatrix made the journal before matrix.cfg) is built by hand, then `run` or
# `resume` must finish the study: every run once in the journal, a study-end. A directory that
# iomatrix did not make (no lock) or that holds anything else is still refused. With strace,
# the order itself: matrix.cfg is in place before the journal is created.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "create";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = [ "4K", "8K" ]; };
timing = { warmup = "0s"; duration = "100ms"; rest = "0s"; repeat = 1; };
trace = false;
CFG

# finished DIR: the study in DIR has both runs once and its study-end
finished() {
    python3 - "$1" <<'PY'
import sys
ends = [l.split("\t")[2] for l in open(sys.argv[1] + "/journal") if l.split("\t")[1] == "run-done"]
assert sorted(ends) == ["1", "2"], ends
assert any(l.split("\t")[1] == "study-end" for l in open(sys.argv[1] + "/journal"))
PY
}

# state NAME: builds DIR NAME as a kill at that step leaves it
state() {
    rm -rf "$1"
    mkdir "$1"
    case $1 in
    empty) ;;
    lock) : >"$1/.lock" ;;
    runs) : >"$1/.lock"; mkdir "$1/runs" ;;
    matrix) : >"$1/.lock"; mkdir "$1/runs"; cp m.cfg "$1/matrix.cfg"; echo x >"$1/matrix.cfg.tmp.77" ;;
    journal) : >"$1/.lock"; mkdir "$1/runs"; cp m.cfg "$1/matrix.cfg"; : >"$1/journal" ;;
    old) : >"$1/.lock"; mkdir "$1/runs"; : >"$1/journal" ;; # an older iomatrix's window
    esac
}

for s in empty lock runs matrix journal old; do
    state "$s"
    "$IOMATRIX" run m.cfg -o "$s" -q >"run-$s.txt" 2>&1 || die "run over state '$s': $(cat "run-$s.txt")"
    finished "$s" || die "run over state '$s' did not finish the study"
done
# resume carries on where a matrix.cfg is there
for s in matrix journal; do
    state "$s"
    "$IOMATRIX" resume "$s" -q >"resume-$s.txt" 2>&1 || die "resume of state '$s': $(cat "resume-$s.txt")"
    finished "$s" || die "resume of state '$s' did not finish the study"
done
# … and says what to do where none is
state old
"$IOMATRIX" resume old >resume-old.txt 2>&1 && die "resume of a creation without matrix.cfg exited 0"
grep -q "creation was interrupted.*iomatrix run MATRIX -o old" resume-old.txt ||
    die "resume without matrix.cfg does not say how to start it: $(cat resume-old.txt)"

# not iomatrix's: refused, and left as it was
mkdir mine && cp m.cfg mine/matrix.cfg
sum=$(sha256sum mine/matrix.cfg)
"$IOMATRIX" run m.cfg -o mine -q >mine.txt 2>&1 && die "run into a directory with the user's matrix.cfg (no lock) exited 0"
grep -q "is not empty" mine.txt || die "run into the user's directory: $(cat mine.txt)"
state runs && echo data >runs/notes.txt
"$IOMATRIX" run m.cfg -o runs -q >notes.txt 2>&1 && die "run over a directory holding another file exited 0"
[ "$(sha256sum mine/matrix.cfg)" = "$sum" ] || die "the user's matrix.cfg was changed"
[ -f runs/notes.txt ] || die "the other file is gone"

# the order: matrix.cfg renamed into place before the journal is opened
if command -v strace >/dev/null 2>&1; then
    # (LeakSanitizer cannot run under a tracer: an ASan build is traced without it)
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq \
        -e trace=openat,rename,renameat,renameat2 -o trace.txt "$IOMATRIX" run m.cfg -o traced -q \
        >/dev/null 2>&1 ||
        die "run under strace failed"
    python3 - trace.txt <<'PY' || die "matrix.cfg is not in place before the journal is created: $(grep -E 'matrix.cfg|journal' trace.txt)"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
# by name or relative to the directory's descriptor
cfg = next(i for i, l in enumerate(lines) if re.search(r'rename.*"(traced/)?matrix\.cfg"\)', l))
jr = next(i for i, l in enumerate(lines) if re.search(r'openat\(.*"(traced/)?journal", [^)]*O_CREAT', l))
assert cfg < jr, (cfg, jr)
PY
else
    echo "strace is not installed: the order itself not traced"
fi
exit $fail
