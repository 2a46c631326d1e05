#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Source lines: report --sort srcline names the line the time was spent
# on (file:line, as perf's srcline key), the innermost inlined function's
# line where one is inlined; --folded-srcline adds "(file:line)" to folded
# frames; JSON rows and stack frames carry "file" and "line".  The lines
# come from markers in the workload's source.
. tests/integration/lib.sh
need_bpf

src=tests/workloads/srcline_hot.c
line_of() {
	grep -n "/\* $1 \*/" "$src" | cut -d: -f1
}
hot=$(line_of HOT)
inl=$(line_of INLINED_HOT)
call=$(line_of MIX_CALL)
main_call=$(line_of CALL_HOT)
nap=$(line_of NAP)
[ -n "$hot" ] && [ -n "$inl" ] && [ -n "$nap" ] || fail "markers missing in $src"

"$APERTURE" record -e cpu,sched -o "$T/s.data" -- "$WL/srcline_hot" \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"

"$APERTURE" report -i "$T/s.data" --events cpu --sort srcline --no-children \
	>"$T/table" 2>"$T/err" || fail "report --sort srcline: $(cat "$T/err")"
grep -q '^# *Self  *Source:Line' "$T/table" ||
	fail "no Source:Line column: $(head -12 "$T/table")"
first=$(grep -v '^#' "$T/table" | grep . | head -1)
echo "$first" | grep -q " srcline_hot\.c:$hot\$" ||
	fail "top row is not srcline_hot.c:$hot: $first"
self_of() {
	awk -v k="srcline_hot.c:$1" '$NF == k { sub("%", "", $1); print $1 }' \
		"$T/table"
}
h=$(self_of "$hot")
i=$(self_of "$inl")
c=$(self_of "$call")
within "$h" 50 100 || fail "srcline_hot.c:$hot has $h% self, not most"
within "$i" 5 50 || fail "inlined srcline_hot.c:$inl has ${i:-no}% self"
# the inlined loop's time is its own line's, not its call site's
within "${c:-0}" 0 "$i" || fail "call site $call ($c%) over inlined line $inl ($i%)"

# perf's --sort srcline,sym spelling: both keys in one row
"$APERTURE" report -i "$T/s.data" --events cpu --sort sym,srcline \
	--no-children >"$T/t2" || fail "report --sort sym,srcline"
grep -q "\[\.\] hot_loop  *srcline_hot\.c:$hot\$" "$T/t2" ||
	fail "no hot_loop row at srcline_hot.c:$hot: $(grep hot_loop "$T/t2")"

"$APERTURE" report -i "$T/s.data" --events cpu --format folded \
	--folded-srcline >"$T/folded" || fail "report --folded-srcline"
grep -q "^srcline_hot;.*main (srcline_hot\.c:$main_call);hot_loop (srcline_hot\.c:$hot) [0-9]*\$" \
	"$T/folded" || fail "no folded line main:$main_call;hot_loop:$hot: $(head -3 "$T/folded")"
"$APERTURE" report -i "$T/s.data" --events cpu --format folded >"$T/plain"
grep -q ' (srcline_hot\.c' "$T/plain" && fail "file:line without --folded-srcline"
"$APERTURE" report -i "$T/s.data" --format table --folded-srcline \
	>/dev/null 2>"$T/err" && fail "--folded-srcline accepted without folded"
grep -q 'needs --format folded' "$T/err" || fail "no reason: $(cat "$T/err")"

"$APERTURE" report -i "$T/s.data" --events cpu --format json \
	--sort sym,srcline >"$T/cpu.json" || fail "report json"
"$APERTURE" report -i "$T/s.data" --events sched --format json \
	>"$T/sched.json" || fail "report sched json"
python3 - "$T/cpu.json" "$T/sched.json" "$hot" "$nap" <<'PY' || fail "json lines"
import json, sys
cpu = json.load(open(sys.argv[1]))
rows = [r for r in cpu["cpu"]["rows"] if r.get("sym") == "hot_loop"]
assert rows, "no hot_loop row"
r = max(rows, key=lambda r: r["self_samples"])
assert r["srcline"] == "srcline_hot.c:" + sys.argv[3], r
assert r["file"].endswith("/srcline_hot.c") and r["line"] == int(sys.argv[3]), r
sched = json.load(open(sys.argv[2]))
frames = [f for s in sched["sched"]["stacks"] for f in s["frames"]
	  if f["sym"] == "nap"]
assert frames, "no nap frame in the sched stacks"
f = frames[0]
assert f.get("file", "").endswith("/srcline_hot.c"), f
assert f["line"] == int(sys.argv[4]), f
PY
exit 0
