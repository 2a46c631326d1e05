#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --format svg: well-formed (xmllint), the 60/30/10 truth of
# cpu_split in the frames' widths, icicle, the off-CPU and wall-clock
# graphs; where chromium is installed, a headless screenshot that is not
# blank and the script's zoom and search run in the browser.
. tests/integration/lib.sh
need_bpf
need_cmd xmllint
need_cmd python3

"$APERTURE" record -F 999 -e cpu,sched -o "$T/s.data" -- \
	"$WL/offcpu_sleep" 1 >"$T/wl.out" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
"$APERTURE" record -F 999 -o "$T/c.data" -- "$WL/cpu_split" 2 \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/c.data" --format svg >"$T/cpu.svg" ||
	fail "report --format svg"
"$APERTURE" report -i "$T/c.data" --format svg --icicle >"$T/ice.svg" ||
	fail "--icicle"
"$APERTURE" report -i "$T/s.data" --format svg --events sched >"$T/off.svg" ||
	fail "--events sched"
"$APERTURE" report -i "$T/s.data" --format svg --events cpu,sched \
	>"$T/wall.svg" || fail "--events cpu,sched"
for f in cpu ice off wall; do
	xmllint --noout "$T/$f.svg" || fail "$f.svg is not well-formed"
done

# widths: a frame's share is its width over the width of "all"
cat >"$T/w.py" <<'PY'
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
frames = {}
for g in root.iter(NS + "g"):
    if g.get("class") != "f":
        continue
    r = g.find(NS + "rect")
    frames.setdefault(g.get("data-n"), []).append(
        (float(r.get("width")), float(r.get("y")), g.find(NS + "title").text))
all_w, all_y, _ = frames["all"][0]
for name in sys.argv[2:]:
    w = sum(x[0] for x in frames.get(name, []))
    print("%s %.1f" % (name, 100 * w / all_w))
print("all_y %.0f max_y %.0f" % (all_y, max(x[1] for v in frames.values() for x in v)))
PY
python3 "$T/w.py" "$T/cpu.svg" burn_60 burn_30 burn_10 >"$T/w" || fail "parse"
cat "$T/w"
for f in "burn_60 54 66" "burn_30 24 36" "burn_10 5 15"; do
	set -- $f
	v=$(awk -v n="$1" '$1 == n { print $2 }' "$T/w")
	within "${v:-0}" "$2" "$3" || fail "$1 width $v%"
done
# flame: "all" at the bottom; icicle: at the top
python3 "$T/w.py" "$T/ice.svg" >"$T/wi"
awk '/^all_y/ { exit !($2 == $4) }' "$T/w" || fail "all is not at the bottom"
awk '/^all_y/ { exit !($2 < $4) }' "$T/wi" || fail "--icicle: all is not on top"
grep -q 'Reset Zoom' "$T/cpu.svg" && grep -q 'function search' "$T/cpu.svg" &&
	grep -q '<title>burn_60 \[cpu_split\] ([0-9]* samples, [0-9.]*%)</title>' \
	"$T/cpu.svg" || fail "no zoom, search or details"
# off-CPU: titled, in time, sleepy_wait is the blocked time
grep -q '>Off-CPU flame graph<' "$T/off.svg" || fail "off-cpu title"
python3 "$T/w.py" "$T/off.svg" sleepy_wait "[off-cpu]" >"$T/wo"
cat "$T/wo"
# the truth: offcpu_sleep blocks in sleepy_wait, nowhere else for long
awk '$1 == "sleepy_wait" { s = $2 } $1 == "[off-cpu]" { o = $2 }
	END { exit !(o > 0 && s / o >= 0.6) }' "$T/wo" ||
	fail "sleepy_wait is not most of the blocked time"
grep -q 'sleepy_wait \[offcpu_sleep\] ([0-9.]* [mu]*s, ' "$T/off.svg" ||
	fail "off-cpu frames not in time"
grep -q '>Wall-clock flame graph' "$T/wall.svg" || fail "wall-clock title"
# one view per graph when --events is not given
"$APERTURE" report -i "$T/s.data" --format svg 2>"$T/err" >/dev/null
grep -q 'left out sched' "$T/err" || fail "svg: no word of sched"
# several views: titled by every one, in time where all have it (CPU
# samples by the period); bytes beside samples: one line, exit 1
G=tests/golden
"$APERTURE" report -i $G/cpu-syscall-sched.data --no-debuginfod \
	--events cpu,syscall --format svg >"$T/cs.svg" 2>/dev/null ||
	fail "svg cpu,syscall"
grep -q '>CPU + syscall flame graph<' "$T/cs.svg" ||
	fail "cpu,syscall title: $(grep -o '<text id="title"[^<]*' "$T/cs.svg")"
grep -q '<title>all ([0-9.]* ms, 100.00%)</title>' "$T/cs.svg" ||
	fail "cpu,syscall not in time"
"$APERTURE" report -i $G/cpu-lock-io.data --no-debuginfod \
	--events cpu,io --format svg >"$T/ci.svg" 2>"$T/err" &&
	fail "svg cpu,io: samples and bytes in one graph"
[ "$(grep -c 'no common unit' "$T/err")" = 1 ] || fail "cpu,io: $(cat "$T/err")"

command -v chromium >/dev/null 2>&1 || {
	echo "chromium not installed: no rendering checks"
	exit 0
}
chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --user-data-dir="$T/chrome" "$@" 2>>"$T/chrome.err"
}
chrome --window-size=1200,500 --screenshot="$T/shot.png" "file://$T/cpu.svg" \
	>/dev/null || fail "chromium: $(tail -3 "$T/chrome.err")"
cat >"$T/png.py" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(d):
    n, t = struct.unpack(">I4s", d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    if t == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif t == b"IDAT":
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[ctype]
raw, stride, prev, colours = zlib.decompress(idat), w * bpp, None, set()
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    prev = prev or bytearray(stride)
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp * 4):
        colours.add(bytes(line[x:x + 3]))
    prev = line
print("colours", len(colours))
sys.exit(0 if len(colours) >= 8 else 1)
PY
python3 "$T/png.py" "$T/shot.png" || fail "the screenshot is blank"
# the script in the browser: zoom into burn_30, search ^burn_
sed 's|</svg>|<script type="text/ecmascript"><![CDATA[window.addEventListener("load", function () { var gs = document.getElementsByTagName("g"); for (var i = 0; i < gs.length; i++) if (gs[i].getAttribute("data-n") == "burn_30") zoom(gs[i]); search("^burn_"); });]]></script></svg>|' \
	"$T/cpu.svg" >"$T/t.svg"
chrome --dump-dom "file://$T/t.svg" >"$T/dom" || fail "chromium --dump-dom"
grep -q 'data-n="burn_30" style="opacity: 1;"><title>[^<]*</title><rect x="10" y="[0-9.]*" width="1180"' \
	"$T/dom" || fail "zoom did not widen burn_30"
grep -q 'data-n="burn_60" style="display: none;"' "$T/dom" ||
	fail "zoom did not hide burn_60"
m=$(sed -n 's/.*id="matched"[^>]*>Matched: \([0-9.]*\)%.*/\1/p' "$T/dom")
echo "search ^burn_: $m%"
within "${m:-0}" 90 100 || fail "search matched $m%"
exit 0
