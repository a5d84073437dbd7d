#!/bin/sh
# SPDX-License-Identifier: MIT
# The HTML report of the two-boot controller study (tests/fixtures/report/boot1 and boot2)
# is one self-contained page with the charts as inline SVG, and renders in headless Chromium
# to a screenshot that is not blank: many non-white pixels, and the colours of the two
# compared values' bars and lines. Skips (77) when the report command cannot write HTML yet or
# Chromium is missing. SAVE_SCREENSHOT=PATH keeps the screenshot (docs/report-screenshot.png
# is made that way).
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"

fix="$TOP/tests/fixtures/report"
help=$("$IOMATRIX" report --help 2>&1) || {
    echo "'iomatrix report --help' fails: the report command is not wired yet"
    exit 77
}
case $help in
*html*) ;;
*) echo "'iomatrix report' has no --format html yet"; exit 77 ;;
esac

# under their own names, so the page (and its screenshot in docs/) says "from boot1 …"
cp -r "$fix/boot1" "$fix/boot2" . || die "cannot copy the fixtures"
"$IOMATRIX" report boot1 boot2 --format html -o report.html >out 2>err ||
    die "report --format html: $(cat err)"
[ -s out ] && die "report -o wrote to standard output: $(head -c 200 out)"
[ -s report.html ] || { echo "FAIL: no report.html"; exit 1; }

# Self-contained: inline SVG charts, no script, nothing fetched.
for want in '<svg ' 'id="chart-atto-1"' 'id="chart-qd-iops-1"' 'id="chart-qd-lat-1"' \
    'id="chart-percentiles"' 'id="chart-time"' '<table class="heat">' \
    'ATTO: write and read MB/s by transfer size' 'kernel differs: 6.1.0-18-amd64'; do
    grep -qF "$want" report.html || die "report.html lacks $want"
done
grep -q '<script' report.html && die "report.html has a script"
grep -Eq '(src|href)="?https?:' report.html && die "report.html fetches something"
[ "$(grep -o '<svg ' report.html | wc -l)" -eq "$(grep -o '</svg>' report.html | wc -l)" ] ||
    die "unbalanced <svg> elements"

chrome=
for c in chromium chromium-browser google-chrome; do
    command -v "$c" >/dev/null 2>&1 && { chrome=$c; break; }
done
[ -n "$chrome" ] || { echo "chromium is not installed (apt-get install -y chromium)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed to read the screenshot"; exit 77; }

profile=$(mktemp -d)
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$profile" --screenshot="$PWD/shot.png" --window-size=1200,2000 \
    "file://$PWD/report.html" >chrome.log 2>&1
rm -rf "$profile"
[ -s shot.png ] || { echo "FAIL: no screenshot"; tail -n 5 chrome.log; exit 1; }
size=$(wc -c <shot.png)
[ "$size" -gt 50000 ] || die "screenshot is only $size bytes"

# Decode the PNG (zlib + struct only) and count what was drawn.
python3 - shot.png <<'EOF' >pixels.txt || die "cannot read the screenshot"
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    pos += 12 + n
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
assert depth == 8 and ctype in (2, 6), 'unexpected PNG type %d/%d' % (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, i = bytearray(stride), 0
inked = blue = orange = 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    if f == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif f:
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, stride, bpp * 2):
        r, g, b = line[x], line[x + 1], line[x + 2]
        if r < 235 or g < 235 or b < 235:
            inked += 1
        if abs(r - 0x00) < 12 and abs(g - 0x72) < 12 and abs(b - 0xb2) < 12:
            blue += 1
        if abs(r - 0xe6) < 12 and abs(g - 0x9f) < 12 and abs(b - 0x00) < 12:
            orange += 1
print(w, h, inked, blue, orange)
EOF
read -r w h inked blue orange <pixels.txt || die "no pixel counts"
echo "screenshot ${w}x${h}, $size bytes: $inked inked samples, $blue blue, $orange orange"
[ "${w:-0}" -eq 1200 ] && [ "${h:-0}" -eq 2000 ] || die "screenshot is ${w}x${h}"
# Half the pixels are sampled: 1.2 M; text, tables and charts ink well over 5 % of them.
[ "${inked:-0}" -gt 60000 ] || die "screenshot looks blank ($inked inked samples)"
[ "${blue:-0}" -gt 500 ] || die "no lsi-sas (blue) bars or lines drawn"
[ "${orange:-0}" -gt 500 ] || die "no pvscsi (orange) bars or lines drawn"

[ -n "${SAVE_SCREENSHOT:-}" ] && cp shot.png "$SAVE_SCREENSHOT"
exit $fail
