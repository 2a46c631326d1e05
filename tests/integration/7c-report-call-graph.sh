#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report -g / --call-graph: a call graph under each row, as perf report
# -g.  cpu_split's truth: main -> work -> burn_60, burn_30, burn_10 (60,
# 30 and 10 % of the work).  Caller order (-g caller, -G) under work:
# burn_60 > burn_30 > burn_10; callee order (-g, the default) under
# burn_60: its caller work, then main.  JSON carries the same tree.
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$APERTURE" record -q -o "$T/g.data" -- "$WL/cpu_split" 2 >/dev/null 2>"$T/err" ||
	fail "record: $(cat "$T/err")"

# caller order: what work calls
"$APERTURE" report -i "$T/g.data" --sort sym --symbols work -g caller \
	>"$T/caller" || fail "report -g caller"
cat "$T/caller"
"$APERTURE" report -i "$T/g.data" --sort sym --symbols work -G >"$T/G" ||
	fail "report -G"
cmp -s "$T/caller" "$T/G" || fail "-G differs from -g caller"
"$APERTURE" report -i "$T/g.data" --sort sym --symbols work \
	--call-graph=caller >"$T/eq" || fail "report --call-graph=caller"
cmp -s "$T/caller" "$T/eq" || fail "--call-graph=caller differs from -g caller"
# the first level: twelve columns in, --PCT%-- NAME
pct() {	# NAME FILE -> the percentage of NAME's first-level branch
	sed -n "s/^ \{12\}--\([0-9.]*\)%-- $1\$/\1/p" "$2" | head -1
}
p60=$(pct burn_60 "$T/caller") p30=$(pct burn_30 "$T/caller")
p10=$(pct burn_10 "$T/caller")
echo "work calls: burn_60 $p60% burn_30 $p30% burn_10 $p10%"
[ -n "$p60" ] && [ -n "$p30" ] && [ -n "$p10" ] ||
	fail "caller graph of work lacks a burn_* branch"
awk -v a="$p60" -v b="$p30" -v c="$p10" 'BEGIN { exit !(a > b && b > c && c > 0) }' ||
	fail "caller graph not in the workload's proportions"

# callee order (the default): who calls burn_60
"$APERTURE" report -i "$T/g.data" --sort sym --symbols burn_60 -g >"$T/callee" ||
	fail "report -g"
cat "$T/callee"
"$APERTURE" report -i "$T/g.data" --sort sym --symbols burn_60 -g callee \
	>"$T/callee2" || fail "report -g callee"
cmp -s "$T/callee" "$T/callee2" || fail "-g differs from -g callee"
first=$(sed -n 's/^ \{12\}--[0-9.]*%-- \(.*\)$/\1/p' "$T/callee" | head -1)
[ "$first" = work ] || fail "burn_60's first caller is '$first', not work"
grep -q '^ \{16\}--[0-9.]*%-- main$' "$T/callee" ||
	fail "callee graph: work's caller main missing"
# no graph without -g
"$APERTURE" report -i "$T/g.data" --sort sym --symbols burn_60 >"$T/none"
grep -q '^ \{12\}--' "$T/none" && fail "a graph without -g"

"$APERTURE" report -i "$T/g.data" --sort sym -g caller --format json \
	>"$T/json" || fail "report -g --format json"
python3 - "$T/json" <<'PY' || fail "json call graph"
import json, sys
rows = json.load(open(sys.argv[1]))["cpu"]["rows"]
work = [r for r in rows if r["sym"] == "work"][0]
g = work["call_graph"]
assert g["order"] == "caller", g
names = [c["sym"] for c in g["calls"]]
assert names[:3] == ["burn_60", "burn_30", "burn_10"], names
# every branch's samples are within the row's, and sum to no more
assert sum(c["samples"] for c in g["calls"]) <= work["children_samples"], g
PY
"$APERTURE" report -i "$T/g.data" --call-graph=sideways 2>"$T/bad" &&
	fail "--call-graph=sideways accepted"
grep -q "bad --call-graph 'sideways': give callee or caller" "$T/bad" ||
	fail "--call-graph=sideways: $(cat "$T/bad")"
exit 0
