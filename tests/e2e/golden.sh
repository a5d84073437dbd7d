#!/bin/sh
# SPDX-License-Identifier: MIT
# Output unchanged: `iomatrix plan` of a fixed matrix (tests/data/golden/plan.cfg) and
# `iomatrix report` of a fixed study in every format are compared byte for byte with the files
# under tests/data/golden/expected/. The study (tests/data/golden/study/) was made once by a real
# run of tests/data/golden/golden.cfg (two files on an ext4 on a loop device, write-through or
# not, so the disk's writes and flushes are in it) and its figures are fixed from then on; the
# two-directory report reads the synthetic controller studies of tests/fixtures/report/.
#
# What may vary is masked, each on its own line only: the version of the binary under test where
# the report names itself (the JSON's tool_version, fio's "fio version", DiskSpd's <Version>,
# the HTML footer; the study's recorded version stays) and the free space
# that `plan` reads from the filesystem of the current directory. Every other byte must match.
# A change that means to change the output regenerates the expected files with `make golden`
# (GOLDEN_UPDATE=1 runs this script to write them) and commits them with the change.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
data="$TOP/tests/data/golden"
expected="$data/expected"
update=${GOLDEN_UPDATE:-0}

# the inputs, under short relative names: the outputs name the directories as given
cp -r "$data/study" study || { die "cannot copy the fixture study"; exit 1; }
cp -r "$TOP/tests/fixtures/report/boot1" "$TOP/tests/fixtures/report/boot2" . ||
    { die "cannot copy the controller studies"; exit 1; }
cp "$data/plan.cfg" plan.cfg || { die "cannot copy plan.cfg"; exit 1; }
mkdir -p got
version=$("$IOMATRIX" --version | sed -n 's/^iomatrix //p')
[ -n "$version" ] || die "iomatrix --version printed no version"
# the version as a sed pattern: its dots literal
vre=$(printf '%s' "$version" | sed 's/[.[\*^$/]/\\&/g')

# mask FILE: the binary's version where the report names itself, and plan's free space
mask() {
    sed -e "s/^  \"tool_version\": \"$vre\",\$/  \"tool_version\": \"@VERSION@\",/" \
        -e "s/^  \"fio version\": \"iomatrix-$vre\",\$/  \"fio version\": \"iomatrix-@VERSION@\",/" \
        -e "s/^      <Version>iomatrix $vre<\/Version>\$/      <Version>iomatrix @VERSION@<\/Version>/" \
        -e "s/^<footer>made by iomatrix $vre from /<footer>made by iomatrix @VERSION@ from /" \
        -e "s/^free space: [0-9.]* [KMGTPE]\{0,1\}i\{0,1\}B where the results go /free space: @FREE@ where the results go /" \
        "$1"
}

# case NAME ARGS…: runs iomatrix ARGS (in a fixed environment), its standard output (or with
# -o, the file it names) masked into got/NAME, and compares it with expected/NAME
n=0
case_() {
    name=$1
    shift
    n=$((n + 1))
    env -u COLUMNS LC_ALL=C.UTF-8 TZ=UTC "$IOMATRIX" "$@" >raw.out 2>raw.err
    rc=$?
    [ "$rc" -eq 0 ] || { die "$name: iomatrix $* exited $rc: $(head -c 300 raw.err)"; return; }
    [ -s raw.err ] && die "$name: iomatrix $* wrote to stderr: $(head -c 300 raw.err)"
    src=raw.out
    for a in "$@"; do [ "${prev:-}" = -o ] && src=$a; prev=$a; done
    prev=
    mask "$src" >"got/$name"
    if [ "$update" = 1 ]; then
        mkdir -p "$expected" && cp "got/$name" "$expected/$name"
        return
    fi
    [ -f "$expected/$name" ] || { die "$name: no $expected/$name (make golden writes it)"; return; }
    cmp -s "got/$name" "$expected/$name" && return
    die "$name (iomatrix $*) differs from tests/data/golden/expected/$name; if the change is meant, \
run 'make golden' and commit the files; the diff's head:
$(diff -u "$expected/$name" "got/$name" | head -n 40)"
}

# the plan of a fixed matrix, in its three forms
case_ plan.txt plan plan.cfg
case_ plan.tsv plan plan.cfg --format tsv
case_ plan.json plan plan.cfg --format json
# the report of the study in every format --help lists, and -o
case_ report.txt report study
case_ report.md report study --format md
case_ report.csv report study --format csv
case_ report.json report study --format json
case_ report.html report study --format html
case_ report.fio.json report study --format fio-json
case_ report.fio+.json report study --format fio-jsonplus
case_ report.prom report study --format openmetrics
case_ report-o.csv report study --format csv -o out.csv
# one run: DiskSpd's text (a write-through run, so its write cache line) and its XML
case_ run7.txt report study --run 7
case_ run7.xml report study --run 7 --format diskspd-xml
case_ run1.txt report study --run 1
# the HTML's run of the time chart and cell of the percentile chart; another dimension compared
# with other thresholds, and a narrow text
case_ cell.html report study --format html --run 3 --cell 2
case_ by-write-through.txt report study --compare write_through --alpha 0.2 --min-effect 5 \
    --max-cv 50 --correction bh --width 80
case_ by-write-through.json report study --compare write_through --correction none --format json
# report.metrics: the study with three metrics chosen, the CPU's busy % among them
cp -r study metrics || die "cannot copy the study"
sed 's/^    "correction": "holm"$/    "correction": "holm",\n    "metrics": [ "iops", "cpu_us_per_io", "cpu_busy_pct" ]/' \
    study/study.json >metrics/study.json
grep -q '"cpu_busy_pct" ]$' metrics/study.json || die "the metrics study lacks its metrics"
case_ metrics.txt report metrics
case_ metrics.md report metrics --format md
case_ metrics.csv report metrics --format csv
case_ metrics.json report metrics --format json
case_ metrics.html report metrics --format html
# two directories: provenance compared, study against study, a baseline
case_ boots.txt report boot1 boot2
case_ boots.md report boot1 boot2 --format md
case_ boots.json report boot1 boot2 --format json
case_ boots.csv report boot1 boot2 --format csv
case_ boots-baseline.txt report boot1 boot2 --baseline boot2 --width 120
case_ boots-run.txt report boot1 boot2 --run boot1:11

# every expected file is a case (a case removed leaves no stale file behind)
if [ "$update" = 1 ]; then
    for f in "$expected"/*; do
        [ -f "got/$(basename "$f")" ] || rm -f "$f"
    done
    echo "wrote $n expected files to $expected"
else
    for f in "$expected"/*; do
        [ -f "got/$(basename "$f")" ] || die "tests/data/golden/expected/$(basename "$f") is no case of golden.sh"
    done
fi
# the fixture is read, never written: the report leaves the study as it was
diff -r "$data/study" study >/dev/null || die "the report changed the study it read"
exit $fail
