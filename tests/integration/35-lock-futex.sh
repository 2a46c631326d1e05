#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e lock on lock_contend, whose global contended_mutex is held
# 20 ms at a time by one thread and contended by three: the top lock is
# contended_mutex by name, with a total futex wait within 25% of what the
# program measured itself; JSON, folded (weighted by wait), --per-thread.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -e lock -o "$T/lock.data" -- "$WL/lock_contend" 25 20 \
	>"$T/wl.out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
cat "$T/wl.out"
grep -q ' 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"
truth=$(awk '/^lock_contend:/ { for (i = 1; i < NF; i++) if ($i == "wait_ns") print $(i + 1) }' "$T/wl.out")
[ -n "$truth" ] && [ "$truth" -gt 0 ] || fail "workload printed no wait: $(cat "$T/wl.out")"

"$APERTURE" report -i "$T/lock.data" --events lock >"$T/table" ||
	fail "report --events lock"
sed -n '/Lock contention/,$p' "$T/table" | head -8
first=$(grep -v '^#' "$T/table" | grep -v '%' | grep . | head -1)
echo "$first" | grep -q ' futex:mutex .* contended_mutex$' ||
	fail "top lock is not contended_mutex: $first"

"$APERTURE" report -i "$T/lock.data" --events lock --format json >"$T/json" ||
	fail "report --format json"
need_cmd python3
python3 - "$T/json" "$truth" <<'PY' || fail "json check"
import json, sys
d = json.load(open(sys.argv[1]))["lock"]
truth = int(sys.argv[2])
top = d["locks"][0]
assert top["name"] == "contended_mutex", top
assert top["kind"] == "futex", top
assert top["class"] == "mutex" and top["type"] == "futex:mutex", top
# the holder's joins are counted, in their class, and not shown
assert d["futex_by_class"]["join"] >= 1, d["futex_by_class"]
assert all(l.get("class") in (None, "mutex") for l in d["locks"]), d["locks"]
assert top["region"] == "lock_contend", top
ratio = top["total_wait_ns"] / truth
print("futex wait %.3f s, program measured %.3f s, ratio %.3f" %
      (top["total_wait_ns"] / 1e9, truth / 1e9, ratio))
assert 0.75 <= ratio <= 1.25, ratio
# the top stacks (at most 3) with their shares of the lock's wait
assert 1 <= len(top["stacks"]) <= 3, top["stacks"]
assert 50 <= sum(s["share"] for s in top["stacks"]) <= 100.01, top["stacks"]
assert any("waiter" in s["frames"] for s in top["stacks"]), top["stacks"]
# a waiter waits out most of a 20 ms hold at least once (no upper bound:
# a woken waiter can lose the mutex to another, and loses more under load)
assert 15e6 <= top["max_wait_ns"] <= top["total_wait_ns"], top["max_wait_ns"]
PY

# folded: weights are wait ns, the lock is the leaf
"$APERTURE" report -i "$T/lock.data" --events lock --format folded >"$T/folded" ||
	fail "report --format folded"
awk 'NF < 2 || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' "$T/folded" ||
	fail "folded lines malformed"
folded=$(awk '$1 ~ /;futex:contended_mutex$/ { s += $NF } END { printf "%d", s }' "$T/folded")
within "$(awk -v a="$folded" -v b="$truth" 'BEGIN { print a / b }')" 0.75 1.25 ||
	fail "folded contended_mutex weight $folded, program $truth"
grep -q '^lock_contend;.*waiter;.*futex:contended_mutex ' "$T/folded" ||
	fail "no waiter chain in folded output"

# --per-thread: the four threads of the workload each have a row
n=$("$APERTURE" report -i "$T/lock.data" --events lock --per-thread |
	grep -c ' futex:mutex .* contended_mutex$')
[ "$n" -ge 4 ] || fail "--per-thread shows $n rows for contended_mutex, want 4"
exit 0
