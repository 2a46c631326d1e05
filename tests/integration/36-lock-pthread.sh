#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e lock:pthread: uprobes on the slow paths of the workload's own
# libc measure the waits of contended_mutex: total wait within 25% of the
# program's own measure (its uncontended acquisitions wait nothing), one
# hold per contention, no more contentions than acquisitions, stacks
# through take_and_hold; futex waits are still recorded.  Test 38 counts
# exactly and checks the hold time.
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$APERTURE" record -e lock:pthread -o "$T/lock.data" -- "$WL/lock_contend" 25 20 \
	>"$T/wl.out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
cat "$T/wl.out" "$T/rec.err"
grep -q 'no lock:pthread: no __lll_lock_wait' "$T/rec.err" &&
	skip "glibc without debug symbols (libc6-dbg): $(cat "$T/rec.err")"
grep -q 'unavailable' "$T/rec.err" && fail "a lock source is unavailable: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/lock.data" --events lock >"$T/table" || fail "report"
sed -n '/Lock contention/,$p' "$T/table" | head -8
grep -q '^# sensor  : lock from futex+contention+pthread' "$T/table" ||
	fail "sensor line: $(grep sensor "$T/table")"
"$APERTURE" report -i "$T/lock.data" --events lock --format json >"$T/json" ||
	fail "report --format json"
python3 - "$T/json" "$T/wl.out" <<'PY' || fail "json check"
import json, sys
d = json.load(open(sys.argv[1]))["lock"]
f = open(sys.argv[2]).read().split()
truth = dict(zip(f[1::2], map(int, f[2::2])))
pt = [l for l in d["locks"] if l["kind"] == "pthread"]
fx = [l for l in d["locks"] if l["kind"] == "futex"]
assert pt and pt[0]["name"] == "contended_mutex", pt[:1]
assert fx and fx[0]["name"] == "contended_mutex", fx[:1]
top = pt[0]
w = top["total_wait_ns"] / truth["wait_ns"]
print("pthread wait %.3f s (ratio %.3f), %d contentions, %d holds, %d acquisitions (program)" %
      (top["total_wait_ns"] / 1e9, w, top["contentions"], top["holds"],
       truth["acquisitions"]))
assert 0.75 <= w <= 1.25, w
# waits counted are acquisitions' (one each, however many futex sleeps)
assert 0 < top["contentions"] <= truth["acquisitions"], (top, truth)
# every contended acquisition's release is seen once
assert top["holds"] == top["contentions"], top
assert any("take_and_hold" in s["frames"] and "waiter" in s["frames"]
           for s in top["stacks"]), top["stacks"]
PY
exit 0
