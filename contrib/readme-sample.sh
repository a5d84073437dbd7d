#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's sample output, from a real run: what `make demo` prints (matrices/quick.cfg into
# results/quick-<UTC time>, standard output; its warnings on standard error are left out), cut
# to its first three and last run lines and to each section's first line after the verdict;
# the "busy neighbours" note and the runs' lines about other processes' CPU (the machine's,
# not the tool's) are left out.
#   contrib/readme-sample.sh --update   rewrites README.md between its sample markers
#   contrib/readme-sample.sh --check    fails (exit 1, with a diff) when the README's sample no
#                                       longer reads as the tool prints, figures aside: every
#                                       number, timestamp, margin and verdict mark is masked
#   contrib/readme-sample.sh --print    prints a fresh sample
# --update and --check exit 3, changing nothing, when a run stalled or did too few I/Os for a p99
# (a busy machine): try again.
# IOMATRIX names the binary (default build/release/iomatrix); README_SAMPLE_SET, a list of
# KEY=VALUE, is passed as --set to the run (the test shortens the windows so).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${IOMATRIX:-$top/build/release/iomatrix}
mode=${1:---print}
case $mode in --update|--check|--print) ;; *) echo "usage: $0 --update|--check|--print" >&2; exit 2 ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/iomatrix-readme.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/matrices"
cp "$top/matrices/quick.cfg" "$work/matrices/"
set --
for kv in ${README_SAMPLE_SET:-}; do set -- "$@" --set "$kv"; done
(cd "$work" && "$bin" run matrices/quick.cfg "$@" >run.txt 2>/dev/null) || {
    echo "readme-sample: the demo run failed" >&2; exit 1; }
python3 - "$mode" "$work/run.txt" "$top/README.md" <<'PY'
import difflib, re, sys
mode, run, readme = sys.argv[1:4]
BEGIN, END = "<!-- sample: contrib/readme-sample.sh --update -->", "<!-- sample:end -->"

def sample(text):
    lines = text.rstrip("\n").split("\n")
    # the busy-neighbour note is the machine's, not the tool's words: left out with its blank
    keep, skip = [], False
    for l in lines:
        if re.match(r"^  run \d+: other processes took ", l):
            continue
        if l.startswith("busy neighbours: "):
            skip = True
            if keep and keep[-1] == "":
                keep.pop()
            continue
        if skip and l.startswith(" "):
            continue
        skip = False
        keep.append(l)
    lines = keep
    runs = [i for i, l in enumerate(lines) if re.match(r"^\S+Z run \d+/\d+ ", l)]
    out = ["$ make demo"]
    for i, l in enumerate(lines):
        if runs and runs[3:-1] and i in runs[3:-1]:
            if i == runs[3]:
                out.append("…")
            continue
        out.append(l)
    # after the verdict paragraph: each section's first line, its body elided
    res, in_sec = [], False
    verdict = next((i for i, l in enumerate(out) if l.startswith("verdict over ")), None)
    for i, l in enumerate(out):
        if verdict is not None and i > verdict and l and not l.startswith(" ") and \
                not re.match(r"^\S+: ", l) and not re.match(r"^\d+ runs? ok", l):
            res.append(l)
            res.append("  …")
            in_sec = True
            continue
        if in_sec and l.startswith(" "):
            continue
        in_sec = False
        res.append(l)
    return "\n".join(res)

MASK = {"same", "?", "undecided", "even", "better", "worse", "by", "higher", "lower", "single-run", "…"}

def shape(text):
    """The words of the sample up to its closing line, wrapping, figures and verdicts aside."""
    lines = text.split("\n")
    verdict = next((i for i, l in enumerate(lines) if l.startswith("verdict over ")), len(lines))
    keep = lines[:verdict + 1]
    i = verdict + 1
    while i < len(lines) and (re.match(r"^\S+: ", lines[i]) or lines[i].startswith("  ")):
        keep.append(lines[i]); i += 1
    keep += [l for l in lines if re.match(r"^\d+ runs? ok", l)]
    words = []
    for l in keep:
        for t in l.split():
            t = t.strip("~*")
            if not t or re.search(r"\d", t) or t.strip(";,:()") in MASK or "×" in t or \
                    not t.strip("-"):
                continue
            words.append(t)
    return words

fresh = sample(open(run).read())
if mode != "--print" and re.search(r"^  run \d+ stalled: | p99 n/a \(only \d+ I/Os\)", fresh, re.M):
    # a machine busy enough to stall a run, or to leave one too few I/Os for a p99, prints
    # more than the sample shows: not a sample
    print("readme-sample: a run stalled or did too few I/Os (a busy machine); run it again",
          file=sys.stderr)
    sys.exit(3)
if mode == "--print":
    print(fresh)
    sys.exit(0)
doc = open(readme).read()
if BEGIN not in doc or END not in doc:
    sys.exit("README.md has no sample markers")
head, rest = doc.split(BEGIN, 1)
old, tail = rest.split(END, 1)
if mode == "--update":
    open(readme, "w").write(head + BEGIN + "\n```\n" + fresh + "\n```\n" + END + tail)
    print("README.md: sample rewritten")
    sys.exit(0)
old = re.sub(r"^\n?```\n|```\n$", "", old.strip("\n") + "\n")
a, b = shape(old), shape(fresh)
if a != b:
    sys.stdout.writelines(difflib.unified_diff([w + "\n" for w in a], [w + "\n" for w in b],
                                               "README.md sample", "the tool now", n=3))
    sys.exit("README.md's sample no longer matches what the tool prints: contrib/readme-sample.sh --update")
print("README.md's sample matches the tool (%d words, figures aside)" % len(a))
PY
