#!/bin/sh
# SPDX-License-Identifier: MIT
# The HTML charts of a three-target study: the ATTO view drawn twice, MB/s and IO/s side by
# side (ATTO's layout), with a value beside (or, at the chart's edge, inside) every bar; the
# system CPU per I/O against queue depth; latency against achieved IOPS (queue depth the
# parameter) with each target once in its legend; a note where a chart leaves something out.
# Headless
# Chromium screenshots the page: the PNG exists and is not trivial. SHOT=FILE keeps a copy
# (docs/report-atto-screenshot.png), SHOT_LOAD=FILE one of the load view alone, the page's head
# and that section (docs/report-load-screenshot.png).
# A run marked failed: the ATTO chart says it left its bar out.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
browser=""
for b in chromium chromium-browser google-chrome; do
    command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
done
[ -n "$browser" ] || skip "no headless Chromium installed"

cat >atto.cfg <<'CFG'
iomatrix = 1;
name = "atto3";
targets = ( { label = "ext4"; path = "a.scratch"; size = "4M"; },
            { label = "xfs"; path = "b.scratch"; size = "4M"; },
            { label = "raw"; path = "c.scratch"; size = "4M"; } );
workload = { engine = "null"; direct = false; pattern = "sequential";
             block_size = [ "512", "1K", "2K", "4K", "64K", "1M" ]; read_pct = [ 0, 100 ];
             queue_depth = [ 1, 4 ]; };
timing = { warmup = "0s"; duration = "50ms"; rest = "0s"; repeat = 1; };
trace = false;
CFG
"$IOMATRIX" run atto.cfg -o r -q >run.txt 2>&1 || die "run failed: $(tail -n 5 run.txt)"
"$IOMATRIX" report r --format html -o r.html 2>err.txt || die "report html: $(cat err.txt)"
for want in 'ATTO view: MB/s and IO/s by transfer size' 'ATTO: write and read MB/s by transfer size' \
    'ATTO: write and read IO/s by transfer size' 'id="chart-atto-1"' 'id="chart-atto-iops-1"' \
    'System CPU per I/O vs queue depth' 'id="chart-qd-cpu-1"' \
    'Load view: latency against achieved IOPS' 'id="chart-load-1"'; do
    grep -q "$want" r.html || die "the page lacks '$want'"
done
# the three targets in each ATTO chart's legend, and a value label for every bar: every bar on
# the MB/s chart, and on the IO/s chart's log scale every one but those the MB/s chart shows at 0
# (a run that completed no I/O of its kind in its 50 ms, as a busy machine can starve one: 0 has
# no place on a log axis)
python3 - r.html <<'PY' || die "the ATTO charts' bars and labels"
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
mbs = re.search(r'<svg[^>]*id="chart-atto-1".*?</svg>', html, re.S)
assert mbs, "chart-atto-1"
zero = len(re.findall(r': 0 MB/s</title>', mbs.group(0)))
for cid in ("chart-atto-1", "chart-atto-iops-1"):
    m = re.search(r'<svg[^>]*id="%s".*?</svg>' % cid, html, re.S)
    assert m, cid
    svg = m.group(0)
    for t in ("ext4", "xfs", "raw"):
        assert ">%s</text>" % t in svg, (cid, t)
    bars = svg.count('class="bar"')
    labels = len(re.findall(r'font-size="10"[^>]*>[^<]+</text>', svg))
    want = 6 * 3 * 2                           # sizes × targets × (write, read)
    if cid == "chart-atto-iops-1" and "; log scale" in svg:
        want -= zero
    assert bars == want, (cid, bars, want, zero)
    assert labels >= bars, (cid, bars, labels)
print("ok")
PY
# the load view of a closed loop: each target once in the legend (its response time is its
# service time), the colour-blind-safe palette's first colour, no red-only mark
python3 - r.html <<'PY' || die "the load view's legend"
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
svg = re.search(r'<svg[^>]*id="chart-load-1".*?</svg>', html, re.S).group(0)
for t in ("ext4", "xfs", "raw"):
    assert svg.count(">%s</text>" % t) == 1, (t, svg.count(">%s</text>" % t))
assert "service</text>" not in svg and "red dots" not in svg
assert 'stroke="#0072b2"' in svg, "not the Okabe-Ito palette"
print("load view: one legend entry per target")
PY
# a chart says what it leaves out: one run marked failed leaves one bar out of two charts
cp -r r rf
python3 - <<'PY' || die "cannot mark a run failed"
import glob, json
for p in sorted(glob.glob("rf/runs/*.json")):
    r = json.load(open(p))
    cell = r["cell"]
    if cell.get("target") == "raw" and cell.get("block_size") in ("512", 512) and \
       str(cell.get("read_pct")) == "0" and str(cell.get("queue_depth")) == "1":
        r["status"] = "failed"; r["error"] = "marked failed by the test"
        json.dump(r, open(p, "w")); break
else:
    raise SystemExit("no such run: %s" % json.load(open(sorted(glob.glob("rf/runs/*.json"))[0]))["cell"])
PY
"$IOMATRIX" report rf --format html -o rf.html 2>err.txt || die "report html of rf: $(cat err.txt)"
grep -q "qd1: 1 bar left out: no finished run of that value there (failed, interrupted or stalled; see the notes)" rf.html ||
    die "the ATTO chart does not say what it left out"
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,2400 \
    --user-data-dir="$PWD/profile" --screenshot="$PWD/shot.png" "file://$PWD/r.html" >chrome.txt 2>&1
[ -s shot.png ] || die "no screenshot: $(tail -n 3 chrome.txt)"
size=$(wc -c <shot.png)
[ "$size" -gt 50000 ] || die "the screenshot is trivial ($size bytes)"
python3 -c 'import sys; d=open(sys.argv[1],"rb").read(24); sys.exit(d[:8] != b"\x89PNG\r\n\x1a\n")' shot.png ||
    die "the screenshot is not a PNG"
[ -n "${SHOT:-}" ] && cp shot.png "$SHOT"
if [ -n "${SHOT_LOAD:-}" ]; then
    python3 - r.html load.html <<'PY' || die "cannot cut the load view out of the page"
import sys
html = open(sys.argv[1], encoding="utf-8").read()
a = html.index("<h3>Load view")
b = html.index("<h3>", a + 1)
open(sys.argv[2], "w", encoding="utf-8").write(html[:html.index("<body>") + 6] + html[a:b] + "</body></html>\n")
PY
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,900 \
        --user-data-dir="$PWD/profile" --screenshot="$PWD/load.png" "file://$PWD/load.html" >chrome.txt 2>&1
    [ -s load.png ] && cp load.png "$SHOT_LOAD" || die "no screenshot of the load view: $(tail -n 3 chrome.txt)"
fi
exit $fail
