#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --events syscall: --per-thread (3 threads, N reads and N writes
# each), --hist (every call in one bucket, bars), --format json (parses,
# exact counts, percentiles in order), and a call still in flight when
# recording stops is reported as such.
. tests/integration/lib.sh
need_bpf

N=5000
"$APERTURE" record -e syscall -o "$T/sc.data" -- "$WL/syscall_exact" $N 0 3 \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"

"$APERTURE" report -i "$T/sc.data" --events syscall --per-thread \
	>"$T/pt" || fail "report --per-thread"
nthreads=$(grep -c '^# Thread [0-9]* (syscall_exact, pid [0-9]*)' "$T/pt")
[ "$nthreads" -eq 3 ] || fail "$nthreads thread tables, want 3: $(cat "$T/pt")"
# each thread table: exactly N writes; reads N (workers) or N (main)
nw=$(awk -v n=$N '$1 == "write" && $2 == n' "$T/pt" | wc -l)
nr=$(awk -v n=$N '$1 == "read" && $2 == n' "$T/pt" | wc -l)
[ "$nw" -eq 3 ] && [ "$nr" -eq 3 ] ||
	fail "per-thread rows: $nw writes and $nr reads of $N, want 3 each"

"$APERTURE" report -i "$T/sc.data" --events syscall --hist >"$T/hist" ||
	fail "report --hist"
grep -q "^# Latency of write: $((3 * N)) calls" "$T/hist" ||
	fail "no write histogram"
# the bucket counts of the write histogram add up to the calls
sum=$(awk '/^# Latency of write:/ { on = 1; next } /^#/ { on = 0 }
	on && /^\[/ { split($0, a, ")"); split(a[2], b, "|"); s += b[1] }
	END { print s }' "$T/hist")
[ "$sum" -eq $((3 * N)) ] || fail "write histogram sums to $sum"
grep -Eq '^\[[0-9]+(ns|us), [0-9.]+(ns|us|ms)\) +[0-9]+ \|@+ *\|$' "$T/hist" ||
	fail "no bpftrace-style histogram line"

"$APERTURE" report -i "$T/sc.data" --events syscall --format json \
	--errors --hist >"$T/json" || fail "report --format json"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$T/json" $N <<'PY' || fail "json: $(head -c 600 "$T/json")"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
sc = d["syscall"]
rows = {r["syscall"]: r for r in sc["rows"]}
assert rows["write"]["calls"] == 3 * n, rows["write"]
assert rows["read"]["calls"] == 3 * n, rows["read"]
for r in sc["rows"]:
    if r["calls"] - r["noreturn"] > 0:
        assert r["p50_ns"] <= r["p95_ns"] <= r["p99_ns"] <= r["max_ns"], r
        assert sum(b["count"] for b in r["hist"]) == r["calls"] - r["noreturn"], r
totals = [r["total_ns"] for r in sc["rows"]]
assert totals == sorted(totals, reverse=True), totals
assert sc["lost_table"] == 0 and sc["lost_ringbuf"] == 0
PY
fi

# a call in flight when recording stops: the command sleeps 3 s, the
# recording ends after 1 s (and then ends the command)
"$APERTURE" record -e syscall -d 1 -o "$T/fl.data" -- \
	sh -c "echo \$\$ >'$T/pid'; exec sleep 3" 2>"$T/fl.err"
rc=$?
kill "$(cat "$T/pid")" 2>/dev/null
[ $rc -eq 0 ] || fail "record -d 1: $(cat "$T/fl.err")"
"$APERTURE" report -i "$T/fl.data" --events syscall >"$T/fl" || fail "report"
grep -q '^# In flight when recording stopped (not in the statistics): clock_nanosleep 1$' "$T/fl" ||
	fail "no call in flight: $(cat "$T/fl")"
grep -q '^# Syscalls: .*, 1 in flight at the end' "$T/fl" ||
	fail "header: $(grep '^# Syscalls' "$T/fl")"
"$APERTURE" report -i "$T/fl.data" --events syscall --format json |
	grep -q '"syscall": "clock_nanosleep", "id": [0-9]*, "calls": 0, "errors": 0, "noreturn": 0, "in_flight": 1' ||
	fail "json in_flight"
exit 0
