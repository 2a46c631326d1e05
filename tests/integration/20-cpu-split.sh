#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -- CMD on a workload that splits its CPU time 60/30/10 between
# burn_60, burn_30 and burn_10: self shares within 6 points, chains reach
# main, folded output is flamegraph.pl's input format.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -F 999 -o "$T/cpu.data" -- "$WL/cpu_split" 3 \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
grep -q ' samples, .* 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"
[ "$(stat -c %a "$T/cpu.data")" = 600 ] || fail "record file mode is not 0600"

"$APERTURE" report -i "$T/cpu.data" --format folded >"$T/folded" ||
	fail "report --format folded"
# every line: comm;frames COUNT
awk 'NF < 2 || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' "$T/folded" ||
	fail "folded lines malformed"
share() {
	awk -v f="$1" '{ n = $NF; total += n; k = split($1, a, ";");
		if (a[k] == f) self += n } END { printf "%.1f", 100 * self / total }' \
		"$T/folded"
}
s60=$(share burn_60)
s30=$(share burn_30)
s10=$(share burn_10)
echo "shares: burn_60 $s60 burn_30 $s30 burn_10 $s10"
within "$s60" 54 66 || fail "burn_60 self $s60%, want 60"
within "$s30" 24 36 || fail "burn_30 self $s30%, want 30"
within "$s10" 5 15 || fail "burn_10 self $s10%, want 10"
grep -q '^cpu_split;.*main;work;burn_60 ' "$T/folded" ||
	fail "no chain main;work;burn_60"

# the table: with the children column, sorted by it as perf's (a caller
# of everything first); without it, by self: burn_60 first
"$APERTURE" report -i "$T/cpu.data" >"$T/table" || fail "report"
grep -q '^# samples : [0-9]' "$T/table" || fail "table header"
first=$(grep -v '^#' "$T/table" | grep . | head -1)
echo "$first" | grep -qE '\] (main|work|__libc_start_call_main|__libc_start_main.*|_start)$' ||
	fail "first row is no caller of everything: $first"
"$APERTURE" report -i "$T/cpu.data" --no-children >"$T/self" || fail "report"
first=$(grep -v '^#' "$T/self" | grep . | head -1)
echo "$first" | grep -q 'burn_60' || fail "--no-children: first row is not burn_60: $first"
main_row=$(grep '\[\.\] main$' "$T/table")
main_children=$(echo "$main_row" | awk '{ sub("%", "", $1); print $1 }')
within "$main_children" 95 100 || fail "main children $main_children%"

# json: header and rows
"$APERTURE" report -i "$T/cpu.data" --format json >"$T/json" || fail "json"
grep -q '"header": {' "$T/json" && grep -q '"sym": "burn_60"' "$T/json" ||
	fail "json rows"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["cpu"]["rows"]; assert max(r, key=lambda x: x["self_samples"])["sym"]=="burn_60"' "$T/json" ||
		fail "json does not parse, or burn_60 is not the most self samples"
fi

# --user-only hides kernel frames; --no-children drops the column
"$APERTURE" report -i "$T/cpu.data" --user-only --format folded |
	grep -q '_\[k\]' && fail "--user-only shows kernel frames"
"$APERTURE" report -i "$T/cpu.data" --no-children | grep -q Children &&
	fail "--no-children shows the column"
# --sort and --limit
n=$("$APERTURE" report -i "$T/cpu.data" --sort sym --limit 2 | grep -vc '^#')
[ "$n" -le 3 ] || fail "--limit 2 printed $n rows"
exit 0
