#!/bin/sh
# SPDX-License-Identifier: MIT
# The layout shows the architecture and stays that way: no file in src/ over 1,500 lines, no
# function over 150 (a table is an initializer, not a function, and is not counted), no comment
# in src/ or tests/ that names an issue number where it should name the concept, and no circle
# between rooms — a room is a folder of src/ (src/engine/, src/report/ …) or a core file of
# src/ with its header — by their includes (docs/architecture.md draws them). Skips (77)
# without python3.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3

(cd "$TOP" && python3 - ) >layout.txt 2>&1 <<'EOF' || die "$(cat layout.txt)"
import glob, os, re, sys

FILE_MAX, FUNC_MAX = 1500, 150
bad = []
files = sorted(glob.glob("src/*.[ch]") + glob.glob("src/*/*.[ch]"))
if len(files) < 50:
    sys.exit("layout: only %d files under src/" % len(files))

for f in files:
    lines = open(f, encoding="utf-8").read().split("\n")
    if len(lines) - 1 > FILE_MAX:
        bad.append("%s: %d lines (at most %d)" % (f, len(lines) - 1, FILE_MAX))
    # a function: its body's '{' and '}' alone at the line's start (the house style), its
    # signature the lines above the '{' back to a blank line, a comment or a directive
    start = None
    for i, line in enumerate(lines):
        if line == "{":
            j = i
            while j > 0 and lines[j - 1].strip() and \
                    not lines[j - 1].startswith(("}", "/*", " *", "#")) and \
                    not lines[j - 1].rstrip().endswith((";", "*/")):
                j -= 1
            start = j
        elif line.startswith("}") and start is not None:
            n = i - start + 1
            if n > FUNC_MAX:
                bad.append("%s:%d: %s… is %d lines (at most %d)" %
                           (f, start + 1, lines[start][:60], n, FUNC_MAX))
            start = None

# comments name the concept, not an issue number
def tree(top):
    for d, subs, names in os.walk(top):  # links are not followed: tests/ plants loops
        subs[:] = sorted(s for s in subs if os.path.join(d, s) != "tests/fixtures")
        for n in sorted(names):
            f = os.path.join(d, n)
            if os.path.isfile(f) and not os.path.islink(f):
                yield f

for f in list(tree("src")) + list(tree("tests")):
    try:
        text = open(f, encoding="utf-8").read()
    except UnicodeDecodeError:
        continue
    for k, line in enumerate(text.split("\n"), 1):
        if re.search(r"[Ii]ssue [0-9]", line):
            bad.append("%s:%d: names an issue number: %s" % (f, k, line.strip()[:80]))

# rooms and their includes: no circle
def room(p):
    parts = p.split("/")
    return parts[1] + "/" if len(parts) > 2 else os.path.splitext(parts[1])[0]

edges = {}
for f in files:
    here = os.path.dirname(f)
    for m in re.finditer(r'^#include "([^"]+)"', open(f, encoding="utf-8").read(), re.M):
        t = os.path.join(here, m.group(1))
        if not os.path.exists(t):
            t = os.path.join("src", m.group(1))
        if os.path.exists(t) and room(f) != room(t):
            edges.setdefault(room(f), {}).setdefault(room(t), "%s includes %s" % (f, t))
state, stack = {}, []

def visit(u):
    state[u] = 1
    stack.append(u)
    for v in sorted(edges.get(u, {})):
        if state.get(v) == 1:
            ring = stack[stack.index(v):] + [v]
            bad.append("a circle of rooms: " + " -> ".join(ring) + " (" +
                       "; ".join(edges[a][b] for a, b in zip(ring, ring[1:])) + ")")
        elif v not in state:
            visit(v)
    stack.pop()
    state[u] = 2

for u in sorted(edges):
    if u not in state:
        visit(u)
if len(edges) < 20:
    bad.append("only %d rooms include another: the include scan is broken" % len(edges))
print("\n".join(bad) if bad else "%d files, %d rooms with includes" % (len(files), len(edges)))
sys.exit(1 if bad else 0)
EOF
grep -q 'files, .* rooms with includes' layout.txt || die "no summary: $(cat layout.txt)"

# the check itself finds what it guards: a planted long function and a planted circle
mkdir -p plant/src/a plant/src/b plant/tests
{
    echo 'int f(void)'
    echo '{'
    i=0
    while [ $i -lt 160 ]; do echo '	(void)0;'; i=$((i + 1)); done
    echo '}'
} >plant/src/long.c
echo '#include "b/b.h"' >plant/src/a/a.h
echo '#include "a/a.h"' >plant/src/b/b.h
i=0
while [ $i -lt 60 ]; do : >"plant/src/f$i.c"; i=$((i + 1)); done
seq 1501 | sed 's/.*/;/' >plant/src/big.c
echo '/* the fix of issue 9 */' >plant/tests/t.c
sed -n '/^import glob/,/^sys.exit(1 if bad/p' "$0" >check.py
(cd plant && python3 ../check.py) >plant.txt 2>&1 && die "the planted tree passed: $(cat plant.txt)"
grep -q 'src/long.c:1: int f(void)… is 163 lines' plant.txt || die "long function not found: $(cat plant.txt)"
grep -q 'a circle of rooms: a/ -> b/ -> a/' plant.txt || die "circle not found: $(cat plant.txt)"
grep -q 'src/big.c: 1501 lines (at most 1500)' plant.txt || die "long file not found: $(cat plant.txt)"
grep -q 'tests/t.c:1: names an issue number' plant.txt || die "issue number not found: $(cat plant.txt)"
exit 0
