#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Python frames in the outputs beyond report's: top -b -p on a running
# py_shares has work's row marked [py] with py_shares.py for its module;
# script prints a Python frame as its function and its file's path with
# the line (burn_a at its call's line, main's frame right above); diff
# of two py_shares recordings has work's row marked [py] ("python": true
# in json) and folded lines through burn_a to work.  Then py_hostile's
# functions, named with a byte not UTF-8 (a lone surrogate), terminal
# escapes, a line break, ';', XML's and JSON's specials, control bytes,
# Latin-1, astral characters and 3000 characters, in a file named as
# badly: table, folded and script escape them (\xNN, ';' as ':' in
# folded lines) and hold no control byte, all UTF-8; speedscope and
# trace are JSON with the names (U+FFFD for the byte); pprof decodes
# with protoc and reads with go tool pprof, its strings the names; the
# svg parses (xmllint, and Python's XML parser finds the names, '?' for
# a control character); no name is longer than 255 bytes.  On
# /usr/bin/python3.11.
. tests/integration/lib.sh
need_bpf
need_cmd protoc
need_cmd xmllint
need_cmd go

py=/usr/bin/python3.11
[ -x "$py" ] || skip_tool "no $py"
SH=$(pwd)/tests/workloads/py_shares.py
HO=$(pwd)/tests/workloads/py_hostile.py

# top, on a py_shares that runs until killed
"$py" "$SH" 600 >/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$T"' EXIT INT TERM
timeout 30 "$APERTURE" top -b -n 2 -d 1 -p "$pid" >"$T/top" 2>"$T/top.err" ||
	fail "top -b: $(cat "$T/top.err")"
kill $pid
grep -Eq '^ +[0-9.]+% +[0-9]+ +python3.11 +py_shares.py +\[py\] work$' \
	"$T/top" || fail "top has no [py] work row: $(cat "$T/top")"

for n in 1 2; do
	"$APERTURE" record -e cpu -F 999 -o "$T/s$n.data" -- "$py" "$SH" 1 \
		>"$T/s$n.out" 2>"$T/s$n.err" ||
		fail "record py_shares: $(cat "$T/s$n.err")"
done
line=$(sed -n 's/^line burn_a //p' "$T/s1.out")
"$APERTURE" script -i "$T/s1.data" >"$T/s1.script" || fail "script"
n=$(awk -v f=" burn_a ($SH:$line)" -v up=" main ($SH:" '
	/^\t/ { if (hit && index($0, up)) n++; hit = index($0, f) > 0; next }
	{ hit = 0 } END { print n + 0 }' "$T/s1.script")
echo "script: $n frames of burn_a at $SH:$line under main"
[ "$n" -ge 20 ] || fail "script: $n burn_a frames at line $line: $(grep \
	-m3 burn_a "$T/s1.script")"
"$APERTURE" diff "$T/s1.data" "$T/s2.data" >"$T/diff" || fail "diff"
grep -Eq '^ +[0-9.]+% +[0-9.]+% +[-+][0-9.]+% +py_shares.py +\[py\] work$' \
	"$T/diff" || fail "diff has no [py] work row: $(head -12 "$T/diff")"
"$APERTURE" diff --format json "$T/s1.data" "$T/s2.data" >"$T/diff.json" ||
	fail "diff --format json"
"$py" -c 'import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
sys.exit(not any(r["sym"] == "work" and r["python"] and not r["kernel"]
		 for r in rows))' "$T/diff.json" || fail "diff json: no Python work"
"$APERTURE" diff --format folded "$T/s1.data" "$T/s2.data" \
	>"$T/diff.folded" || fail "diff --format folded"
grep -q ";burn_a (py_shares.py:$line);work (py_shares.py:[0-9]*) [0-9]* \
[0-9]*$" "$T/diff.folded" || fail "diff folded: no burn_a;work line"

# the hostile names
"$APERTURE" record -e cpu -F 999 -o "$T/h.data" -- "$py" "$HO" 1 \
	>"$T/names.json" 2>"$T/h.err" || fail "record py_hostile: $(cat "$T/h.err")"
"$APERTURE" report -i "$T/h.data" --sort sym >"$T/table" || fail "report"
"$APERTURE" report -i "$T/h.data" --format folded >"$T/folded" ||
	fail "folded"
"$APERTURE" script -i "$T/h.data" >"$T/script" || fail "script"
for f in speedscope trace svg pprof; do
	"$APERTURE" report -i "$T/h.data" --format $f >"$T/h.$f" ||
		fail "report --format $f"
done
xmllint --noout "$T/h.svg" 2>"$T/xml.err" ||
	fail "xmllint refuses the svg: $(head -3 "$T/xml.err")"
gzip -dc "$T/h.pprof" | protoc --decode=perftools.profiles.Profile -Iproto \
	proto/profile.proto >"$T/pprof.txt" 2>"$T/protoc.err" ||
	fail "protoc refuses the pprof: $(cat "$T/protoc.err")"
go tool pprof -raw "$T/h.pprof" >"$T/pprof.raw" 2>"$T/go.err" ||
	fail "go tool pprof: $(cat "$T/go.err")"
"$py" - "$T" <<'PY' || fail "hostile names"
import json, os, re, sys
import xml.etree.ElementTree as ET
t = sys.argv[1]
d = json.load(open(t + "/names.json"))

def clean(s):
    # what a target's string becomes: UTF-8, U+FFFD for a surrogate,
    # cut to 255 bytes at a character
    s = "".join("\ufffd" if 0xd800 <= ord(c) < 0xe000 else c for c in s)
    b = s.encode()[:255]
    return b.decode("utf-8", "ignore")

def esc(s, folded=False):
    s = "".join("\\x%02x" % ord(c) if ord(c) < 0x20 or c == "\x7f" else c
                for c in s)
    return s.replace(";", ":") if folded else s

names = [clean(n) for n in d["names"]]
path = clean(d["file"])
bad = []
for out in ("table", "folded", "script"):
    text = open(os.path.join(t, out), "rb").read().decode("utf-8")
    ctl = [c for c in text if (ord(c) < 0x20 and c not in "\t\n") or
           c == "\x7f"]
    if ctl:
        bad.append("%s: raw control characters %r" % (out, ctl[:5]))
    lines = text.split("\n")
    for n in names:
        if out == "table":
            ok = any(l.endswith("[py] " + esc(n)) for l in lines)
        elif out == "folded":
            want = ";%s (%s:" % (esc(n, True),
                                 esc(os.path.basename(path), True))
            ok = any(want in l and re.search(r" [0-9]+$", l) for l in lines)
        else:
            want = " %s (%s:" % (esc(n), esc(path))
            ok = any(l.startswith("\t") and want in l for l in lines)
        if not ok:
            bad.append("%s: no frame %r" % (out, esc(n)))
ss = json.load(open(t + "/h.speedscope"))
got = {(f["name"], f.get("file")) for f in ss["shared"]["frames"]}
def strings(v):
    if isinstance(v, dict):
        v = list(v.values())
    if isinstance(v, list):
        return "\x1f".join(strings(x) for x in v)
    return v if isinstance(v, str) else ""

tr = strings(json.load(open(t + "/h.trace")))
svg = "".join(ET.parse(t + "/h.svg").getroot().itertext())
raw = open(t + "/pprof.raw", "rb").read().decode("utf-8", "replace")
strs = set()
for s in re.findall(r'^string_table: "(.*)"$',
                    open(t + "/pprof.txt").read(), re.M):
    strs.add(s.encode("latin-1", "backslashreplace").decode(
        "unicode_escape").encode("latin-1").decode("utf-8"))
for n in names:
    if (n, path) not in got:
        bad.append("speedscope: no frame %r in %r" % (n, path))
    if n not in tr:
        bad.append("trace: no %r" % n)
    # XML 1.0 has no control characters: '?' in their place
    if "".join("?" if ord(c) < 0x20 else c for c in n[:40]) not in svg:
        bad.append("svg: no %r" % n[:40])
    if n not in strs:
        bad.append("pprof: no string %r" % n)
    if n[:40] not in raw:
        bad.append("go tool pprof: no %r" % n[:40])
if path not in strs:
    bad.append("pprof: no file name %r" % path)
long = [f for f, _ in got if f.startswith("long")]
if not long or max(len(f.encode()) for f in long) > 255:
    bad.append("the long name: %r" % [len(f.encode()) for f in long])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
echo "top, script, diff and the hostile names checked"
