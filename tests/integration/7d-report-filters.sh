#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report's perf filters and keys on cpu_split pinned to one CPU (taskset):
# --sort cpu (every row on that CPU), --sort children (rows by the
# Children column), --dsos and --symbols (only rows of those; relative
# percentages of the samples they appear in), --time START,END (exactly
# the samples that 'aperture script' times inside the window).
. tests/integration/lib.sh
need_bpf
need_cmd python3
need_cmd taskset

cpu=$(($(nproc) - 1))
taskset -c $cpu "$APERTURE" record -q -o "$T/c.data" -- "$WL/cpu_split" 2 \
	>/dev/null 2>"$T/err" || fail "record: $(cat "$T/err")"

# --sort cpu: one CPU column, the pinned CPU on every row
"$APERTURE" report -i "$T/c.data" --sort cpu,sym >"$T/cpu" || fail "--sort cpu"
grep -q '^#  *Children  *Self  CPU  Symbol' "$T/cpu" ||
	fail "no CPU column: $(grep Self "$T/cpu")"
grep -v '^#' "$T/cpu" | awk -v c=$cpu 'NF && $3 != c { bad = 1 } END { exit bad }' ||
	fail "a row on another CPU than $cpu: $(cat "$T/cpu")"
grep -q "^ .*  $cpu  \[\.\] burn_60$" "$T/cpu" || fail "no burn_60 row on CPU $cpu"
"$APERTURE" report -i "$T/c.data" --sort cpu --format json >"$T/cpu.json" ||
	fail "--sort cpu json"
python3 - "$T/cpu.json" $cpu <<'PY' || fail "--sort cpu json"
import json, sys
rows = json.load(open(sys.argv[1]))["cpu"]["rows"]
assert rows and all(r["cpu"] == int(sys.argv[2]) for r in rows), rows
PY

# --sort children: rows by Children; the default by Self
"$APERTURE" report -i "$T/c.data" --sort children,sym >"$T/ch" ||
	fail "--sort children"
grep -v '^#' "$T/ch" | awk 'NF { sub("%", "", $1); if (n++ && $1 + 0 > last) exit 1; last = $1 + 0 }' ||
	fail "--sort children: rows not by Children: $(cat "$T/ch")"
first=$(grep -v '^#' "$T/ch" | awk 'NF { print $NF; exit }')
case $first in main|work|__libc_start_call_main|__libc_start_main*|_start) ;;
*) fail "--sort children: first row $first, want a caller of everything" ;;
esac
# the default with the children column is its order, as perf's
"$APERTURE" report -i "$T/c.data" --sort sym >"$T/dflt" || fail "--sort sym"
cmp -s "$T/dflt" "$T/ch" || fail "default order is not --sort children's"
"$APERTURE" report -i "$T/c.data" --sort self,sym >"$T/self" || fail "--sort self"
grep -v '^#' "$T/self" | awk 'NF { sub("%", "", $2); if (n++ && $2 + 0 > last) exit 1; last = $2 + 0 }' ||
	fail "--sort self: rows not by Self"
[ "$(grep -v '^#' "$T/self" | awk 'NF { print $NF; exit }')" = burn_60 ] ||
	fail "--sort self: first row is not burn_60"

# --symbols: only those rows
"$APERTURE" report -i "$T/c.data" --sort sym --symbols burn_30,burn_10 >"$T/sym" ||
	fail "--symbols"
[ "$(grep -v '^#' "$T/sym" | awk 'NF { print $NF }' | sort | tr '\n' ' ')" = "burn_10 burn_30 " ] ||
	fail "--symbols burn_30,burn_10: $(cat "$T/sym")"
# relative: of the samples burn_30 appears in, so its Children is 100%
"$APERTURE" report -i "$T/c.data" --sort sym -S burn_30 --percentage relative >"$T/rel" ||
	fail "--percentage relative"
grep -q '^ *100\.00% .*burn_30$' "$T/rel" || fail "relative: $(cat "$T/rel")"

# --dsos: the file name or the path
"$APERTURE" report -i "$T/c.data" --sort dso,sym --dsos cpu_split >"$T/dso" ||
	fail "--dsos"
grep -q 'burn_60$' "$T/dso" || fail "--dsos cpu_split: no burn_60"
grep -v '^#' "$T/dso" | awk 'NF && $3 !~ /(^|\/)cpu_split$/ { bad = 1 } END { exit bad }' ||
	fail "--dsos cpu_split kept other objects: $(cat "$T/dso")"
dso=$(grep -v '^#' "$T/dso" | awk 'NF { print $3; exit }')
"$APERTURE" report -i "$T/c.data" --sort dso,sym -d "$WL/cpu_split" >"$T/dso2" ||
	fail "-d PATH"
cmp -s "$T/dso" "$T/dso2" || fail "--dsos by path ($dso) differs from by name"
"$APERTURE" report -i "$T/c.data" --dsos no-such.so >"$T/nodso" || fail "--dsos none"
grep -q '^# no samples match the filters' "$T/nodso" || fail "--dsos no-such.so: $(cat "$T/nodso")"

# --time: the samples 'aperture script' times from START to END
"$APERTURE" script -i "$T/c.data" --events cpu --format jsonl >"$T/jsonl" ||
	fail "script"
win=$(python3 - "$T/jsonl" <<'PY'
import json, sys
ts = sorted(json.loads(l)["ts"] for l in open(sys.argv[1]) if l.strip())
lo, hi = ts[len(ts) // 4], ts[len(ts) // 2]
inside = sum(1 for t in ts if lo <= t <= hi)
f = lambda t: "%d.%09d" % (t // 10**9, t % 10**9)
print(f(lo), f(hi), inside, sum(1 for t in ts if t <= hi), len(ts))
PY
) || fail "script times"
set -- $win
echo "window $1,$2: $3 samples; to $2: $4; all $5"
samples() {
	"$APERTURE" report -i "$T/c.data" --time "$1" --format json |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["cpu"]["samples"])'
}
[ "$(samples "$1,$2")" = "$3" ] || fail "--time $1,$2: $(samples "$1,$2") samples, want $3"
[ "$(samples ",$2")" = "$4" ] || fail "--time ,$2: $(samples ",$2"), want $4"
[ "$(samples "$1,")" = "$(($5 - $4 + $3))" ] || fail "--time $1,: $(samples "$1,")"
"$APERTURE" report -i "$T/c.data" --time "$2,$1" 2>"$T/bad" && fail "END before START accepted"
grep -q "END is before START" "$T/bad" || fail "--time $2,$1: $(cat "$T/bad")"
"$APERTURE" report -i "$T/c.data" --time 12 2>"$T/bad" && fail "--time 12 accepted"
grep -q "bad --time '12'" "$T/bad" || fail "--time 12: $(cat "$T/bad")"
exit 0
