#!/bin/sh
# SPDX-License-Identifier: MIT
# Shares follow their max (docs/load.md, docs/hardening.md): rate_iops = [ "max", "50%" ] runs
# the max, then a paced run at half its measured IOPS. The max run's file is damaged and the
# study resumed: resume measures the max again and, because the share was derived from the old
# one, sets the share's file aside (runs/00002.json.stale-<UTC>, kept as it was) and runs it
# again at half the new max. Asserted on the offered rate the run files record (derived, not
# measured: whatever the machine's load). A second resume has nothing more to do.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

cat >m.cfg <<'CFG'
iomatrix = 1;
name = "shares-resume";
targets = ( { label = "a"; path = "a.scratch"; size = "1M"; } );
workload = { engine = "null"; direct = false; block_size = "4K"; read_pct = 100;
             rate_iops = [ "max", "50%" ]; };
timing = { warmup = "0s"; duration = "300ms"; rest = "0s"; repeat = 1; };
trace = false;
CFG

# half DIR: the share run's offered rate is half its max run's measured IOPS (to the I/O)
half() {
    python3 - "$1" <<'PY'
import json, sys
d = sys.argv[1]
mx = json.load(open(d + "/runs/00001.json"))
sh = json.load(open(d + "/runs/00002.json"))
assert mx["status"] == "ok" and sh["status"] == "ok", (mx["status"], sh["status"])
want, got = 0.5 * mx["total"]["iops"], sh["load"]["offered_iops"]
assert abs(got - want) <= 1, (got, want)
print(int(round(mx["total"]["iops"])))
PY
}
# started DIR: the runs started since the last resume
started() { awk -F'\t' '$2 == "resume" { s = "" } $2 == "run-start" { s = s $3 " " } END { print s }' "$1/journal"; }

"$IOMATRIX" run m.cfg -o out -q >run.txt 2>&1 || die "run: $(cat run.txt)"
old=$(half out) || die "the share is not half the max after run"
cp out/runs/00002.json share.before
head -c 100 out/runs/00001.json >cut && mv cut out/runs/00001.json
"$IOMATRIX" resume out -q >resume.txt 2>err.txt || die "resume: $(cat err.txt)"
[ "$(started out)" = "1 2 " ] || die "resume ran '$(started out)', want the max and its share: 1 2"
grep -q "^iomatrix: warning: run 2: its rate is a share of run 1's max, which runs again; runs/00002.json set aside as runs/00002.json.stale-[0-9]\{8\}T[0-9]\{6\}Z, and the run runs again with the rate the new max gives$" err.txt ||
    die "resume did not say why run 2 runs again: $(cat err.txt)"
new=$(half out) || die "the share is not half the new max after resume"
aside=$(ls out/runs | grep '^00002\.json\.stale-')
[ -n "$aside" ] && cmp -s share.before "out/runs/$aside" || die "the old share's file was not kept as it was ('$aside')"
echo "max before: $old IOPS, measured again: $new IOPS"
# nothing more to do
"$IOMATRIX" resume out -q >resume2.txt 2>err2.txt || die "second resume: $(cat err2.txt)"
[ "$(ls out/runs | grep -c stale)" -eq 1 ] || die "a second resume set more aside"
exit $fail
