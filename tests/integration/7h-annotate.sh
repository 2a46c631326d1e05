#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# annotate: a function's samples per instruction, as perf annotate
# --stdio.  Ground truth: the instructions (addresses and mnemonics) are
# objdump -d's of the same function, their shares sum to 100, each source
# line's share is what report's srcline key counts in that function, the
# hottest line is the workload's marked one (perf annotate's too), an
# inlined function's line is shown and marked; all from the recording and
# the build-id cache, the binary at the recorded path rebuilt since.
. tests/integration/lib.sh
need_bpf
need_cmd objdump
need_cmd readelf
need_cmd python3

src=tests/workloads/srcline_hot.c
line_of() {
	grep -n "/\* $1 \*/" "$src" | cut -d: -f1
}
hot=$(line_of HOT)
inl=$(line_of INLINED_HOT)
[ -n "$hot" ] && [ -n "$inl" ] || fail "markers missing in $src"

export APERTURE_BUILDID_DIR="$T/cache"
cp "$WL/srcline_hot" "$T/srcline_hot"
"$APERTURE" record -e cpu -o "$T/s.data" -- "$T/srcline_hot" \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
# record keeps only what report cannot reach at its path; a rebuild
# afterwards (another build-id there) leaves the copy in the cache, as
# perf's cache keeps it
bid=$(readelf -n "$WL/srcline_hot" | awk '/Build ID:/ { print $3 }')
[ -n "$bid" ] || fail "no build-id in srcline_hot"
mkdir -p "$T/cache/$(echo "$bid" | cut -c1-2)"
cp "$WL/srcline_hot" "$T/cache/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-)"
cp "$WL/cpu_split" "$T/srcline_hot"

for fn in hot_loop cold_loop; do
	"$APERTURE" annotate -i "$T/s.data" --stdio -s "$fn" >"$T/$fn" \
		2>"$T/err" || fail "annotate -s $fn: $(cat "$T/err")"
	grep -q "^ Percent |	Source code & Disassembly of srcline_hot for cpu-clock ([0-9]* samples, percent: local period)\$" \
		"$T/$fn" || fail "$fn: no header: $(head -12 "$T/$fn")"
	grep -q "^ *: *[0-9a-f]* <$fn>:\$" "$T/$fn" || fail "$fn: no <$fn>: label"
	# the function's own bytes, [start, start + size), from its symbol
	nm -S "$WL/srcline_hot" | awk -v f="$fn" '$4 == f { print $1, $2 }' \
		>"$T/$fn.sym"
	read -r start size <"$T/$fn.sym" || fail "nm: no $fn"
	objdump -d --no-show-raw-insn --disassemble="$fn" "$WL/srcline_hot" |
		awk -v s=$((0x$start)) -v n=$((0x$size)) '
		/^ *[0-9a-f]+:\t/ {
			a = $1; sub(":", "", a)
			v = 0
			for (i = 1; i <= length(a); i++)
				v = v * 16 + index("0123456789abcdef", substr(a, i, 1)) - 1
			if (v >= s && v < s + n) print a, $2
		}' >"$T/$fn.objdump"
	[ -s "$T/$fn.objdump" ] || fail "objdump printed no $fn"
	awk '/^ *[0-9.]+ : +[0-9a-f]+:   / { a = $3; sub(":", "", a); print a, $4 }' \
		"$T/$fn" >"$T/$fn.ours"
	cmp -s "$T/$fn.objdump" "$T/$fn.ours" ||
		fail "$fn: not objdump's instructions: $(diff "$T/$fn.objdump" "$T/$fn.ours" | head -10)"
	sum=$(awk '/^ *[0-9.]+ : +[0-9a-f]+:   / { s += $1 } END { print s }' "$T/$fn")
	within "$sum" 99.5 100.5 || fail "$fn: instructions sum to $sum%"
done

# the hottest lines: the marked ones; the inlined one's source shown
# under its function, marked
top_line() {
	awk '/^Sorted summary/ { on = 1; next } on && /^ *[0-9.]+ / { print $2; exit }' "$1"
}
[ "$(top_line "$T/hot_loop")" = "srcline_hot.c:$hot" ] ||
	fail "hot_loop's hottest line is not $hot: $(head -8 "$T/hot_loop")"
[ "$(top_line "$T/cold_loop")" = "srcline_hot.c:$inl" ] ||
	fail "cold_loop's hottest line is not the inlined $inl: $(head -8 "$T/cold_loop")"
grep -q "^ *: *mix() \[inlined\]:\$" "$T/cold_loop" ||
	fail "no inlined mix() row: $(grep -v '^ *[0-9.]* :   ' "$T/cold_loop" | head -20)"
grep -q "^ *: $hot  *.*/\* HOT \*/\$" "$T/hot_loop" ||
	fail "no source text of line $hot (from DWARF's comp_dir)"
grep -q "^ *: $inl  *.*/\* INLINED_HOT \*/\$" "$T/cold_loop" ||
	fail "no source text of the inlined line $inl"

# each line's share, in samples, is report's count of (function, line)
"$APERTURE" report -i "$T/s.data" --events cpu --format json \
	--sort sym,srcline --no-children >"$T/r.json" ||
	fail "report --sort sym,srcline"
python3 - "$T/r.json" "$T/hot_loop" "$T/cold_loop" <<'PY' || fail "per-line shares differ from report's"
import json, re, sys
rows = json.load(open(sys.argv[1]))["cpu"]["rows"]
for path in sys.argv[2:]:
    text = open(path).read()
    fn = re.search(r"<(\w+)>:", text).group(1)
    n = int(re.search(r"cpu-clock \((\d+) samples", text).group(1))
    summary = text.split("Sorted summary", 1)[1].split(" Percent |", 1)[0]
    ours = {m.group(2): float(m.group(1)) * n / 100
            for m in re.finditer(r"^ +([0-9.]+) (\S+:\d+)$", summary, re.M)}
    theirs = {r["srcline"]: r["self_samples"] for r in rows
              if r.get("sym") == fn and r["self_samples"] > 0 and
              not r["srcline"].startswith("??")}
    assert set(ours) == set(theirs), (fn, ours, theirs)
    for k in ours:
        assert abs(ours[k] - theirs[k]) <= 0.01 * n / 100 + 0.5, (fn, k, ours[k], theirs[k])
    assert abs(sum(theirs.values()) - n) <= 0.5 + n * 0.01, (fn, n, theirs)
PY

# --no-source: the same instructions, nothing else
"$APERTURE" annotate -i "$T/s.data" -s hot_loop --no-source >"$T/nosrc" ||
	fail "--no-source"
grep -q "Sorted summary\|/\* HOT \*/\|hot_loop():" "$T/nosrc" &&
	fail "--no-source printed source: $(head -12 "$T/nosrc")"
awk '/^ *[0-9.]+ : +[0-9a-f]+:   / { a = $3; sub(":", "", a); print a, $4 }' \
	"$T/nosrc" | cmp -s - "$T/hot_loop.ours" || fail "--no-source: other instructions"

# no symbol: the hottest ones, --limit of them; perf's positional SYMBOL
"$APERTURE" annotate -i "$T/s.data" --limit 2 >"$T/top2" || fail "annotate --limit 2"
n=$(grep -c "^ Percent |\|^Cannot annotate" "$T/top2")
[ "$n" -eq 2 ] || fail "--limit 2 annotated $n functions"
"$APERTURE" annotate -i "$T/s.data" hot_loop >"$T/pos" || fail "annotate SYMBOL"
cmp -s "$T/pos" "$T/hot_loop" || fail "annotate SYMBOL differs from -s SYMBOL"
"$APERTURE" annotate -i "$T/s.data" -s no_such_function >/dev/null 2>"$T/err" &&
	fail "a function without samples annotated"
grep -q "no CPU samples in a function named 'no_such_function'" "$T/err" ||
	fail "no reason: $(cat "$T/err")"

# perf annotate of a perf recording of the same workload: the same
# hottest line (loosely: another run, another sampler)
if command -v perf >/dev/null 2>&1 &&
   perf record --buildid-mmap -o "$T/p.data" -- "$WL/srcline_hot" \
	>/dev/null 2>&1; then
	perf annotate -i "$T/p.data" --stdio -l -s hot_loop >"$T/perf" 2>/dev/null
	pl=$(top_line "$T/perf")
	[ "$pl" = "srcline_hot.c:$hot" ] ||
		fail "perf annotate's hottest line is $pl, ours srcline_hot.c:$hot"
else
	echo "note: perf record failed; not compared with perf annotate"
fi
exit 0
