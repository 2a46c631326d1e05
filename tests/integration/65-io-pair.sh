#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e io -- io_pair: a parent writes exactly N bytes into a pipe and M
# bytes over a loopback TCP connection to its forked child.  The byte
# counts of both ends must be exact, and both links must be shown as
# pairs parent -> child, in the table and in JSON.  The table prints bytes
# in human units (N = 976.6K, M = 293.0K: powers of 1024, as iostat -h),
# columns as wide as their widest value; JSON and folded lines are exact.
. tests/integration/lib.sh
need_bpf

N=1000003
M=300007
"$APERTURE" record -e io -o "$T/io.data" -- "$WL/io_pair" $N $M \
	>"$T/out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err" "$T/out")"
grep -q 'events, 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"
parent=$(sed -n 's/^parent \([0-9]*\):.* to child \([0-9]*\)$/\1/p' "$T/out")
child=$(sed -n 's/^parent \([0-9]*\):.* to child \([0-9]*\)$/\2/p' "$T/out")
[ -n "$parent" ] && [ -n "$child" ] || fail "workload output: $(cat "$T/out")"
echo "parent $parent child $child"

"$APERTURE" report -i "$T/io.data" --events io >"$T/table" || fail "report"
cat "$T/table"
grep -q '^# sensor  : io from raw_syscalls tracepoints' "$T/table" ||
	fail "io sensor status"
# rows: bytes calls errors dir pid comm type syscalls resource
row() {	# DIR PID TYPE -> bytes of the first such row
	awk -v d="$1" -v p="$2" -v t="$3" '!/^#/ && $4 == d && $5 == p &&
		$7 == t { print $1; exit }' "$T/table"
}
HN=976.6K HM=293.0K
[ "$(row write "$parent" pipe)" = $HN ] || fail "pipe write bytes: $(row write "$parent" pipe)"
[ "$(row read "$child" pipe)" = $HN ] || fail "pipe read bytes: $(row read "$child" pipe)"
[ "$(row write "$parent" socket)" = $HM ] || fail "socket write bytes: $(row write "$parent" socket)"
[ "$(row read "$child" socket)" = $HM ] || fail "socket read bytes: $(row read "$child" socket)"
# columns sized to their contents: the Bytes title is as wide as 976.6K
grep -q '^#  Bytes Calls Errors  Dir ' "$T/table" ||
	fail "columns not sized to their values: $(grep Bytes "$T/table")"
grep -q "tcp 127\.0\.0\.1:[0-9]* -> 127\.0\.0\.1:[0-9]*" "$T/table" ||
	fail "no loopback tcp resource with addresses"

# the pairs: written, read, writer -> reader, via
sed -n '/^# Pairs/,$p' "$T/table" >"$T/pairs"
grep -Eq "^ +$HN +$HN +io_pair\[$parent\] +-> io_pair\[$child\] +pipe:\[[0-9]+\]" \
	"$T/pairs" || fail "no pipe pair parent -> child"
grep -Eq "^ +$HM +$HM +io_pair\[$parent\] +-> io_pair\[$child\] +tcp 127\.0\.0\.1:" \
	"$T/pairs" || fail "no tcp pair parent -> child"
[ "$(grep -c -- '->' "$T/pairs")" -ge 2 ] || fail "pairs"

"$APERTURE" report -i "$T/io.data" --events io --format json >"$T/json" ||
	fail "report --format json"
need_cmd python3
python3 - "$T/json" "$parent" "$child" $N $M <<'PY' || fail "json pairs"
import json, sys
d = json.load(open(sys.argv[1]))["io"]
parent, child, n, m = map(int, sys.argv[2:])
assert d["unresolved"] == 0 and d["table_full"] == 0, d
got = {(p["type"], p["writer"]["pid"], p["reader"]["pid"]):
       (p["written"], p["read"]) for p in d["pairs"]}
assert got[("pipe", parent, child)] == (n, n), got
assert got[("socket", parent, child)] == (m, m), got
rows = {(r["type"], r["dir"], r["pid"]): r for r in d["rows"]
        if r["type"] in ("pipe", "socket") and r["pid"] in (parent, child)}
assert rows[("pipe", "write", parent)]["syscalls"] == ["write"], rows
assert rows[("socket", "write", parent)]["syscalls"] == ["sendto"], rows
assert rows[("socket", "read", child)]["syscalls"] == ["recvfrom"], rows
assert rows[("pipe", "write", parent)]["bytes"] == n, rows
assert rows[("socket", "read", child)]["bytes"] == m, rows
PY

# --pid keeps only the child's rows
"$APERTURE" report -i "$T/io.data" --events io --pid "$child" >"$T/child"
grep -v '^#' "$T/child" | grep -q "io_pair" || fail "--pid: no rows"
awk -v p="$child" '!/^#/ && NF > 5 && $5 != p { bad = 1 } END { exit bad }' \
	"$T/child" || fail "--pid $child shows other processes"

# folded: comm;dir;type;resource BYTES
"$APERTURE" report -i "$T/io.data" --events io --format folded >"$T/folded"
grep -q "^io_pair;write;pipe;pipe:\[[0-9]*\] $((N))$" "$T/folded" ||
	fail "folded pipe line"
exit 0
