#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Futex waits by class, and lock:pthread counting only acquisitions that
# waited.  lock_classes (under a shell, as a wrapper would run it) takes
# quiet_mutex 20,000 times uncontended, makes exactly ROUNDS acquisitions
# of round_mutex wait (one slow-path call and one futex wait each), waits
# on round_cond and joins a thread.  Counts, exactly: no row for
# quiet_mutex, ROUNDS pthread contentions and ROUNDS holds of round_mutex
# (their average within 25% of the waiter's own measure) and ROUNDS mutex
# futex waits; the condition variable and the join are counted in their
# classes but shown only on request.
. tests/integration/lib.sh
need_bpf
need_cmd python3

R=200
"$APERTURE" record -e lock:pthread -o "$T/l.data" -- sh -c "'$WL/lock_classes' $R; true" \
	>"$T/wl.out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
cat "$T/wl.out" "$T/rec.err"
grep -q 'no lock:pthread: no __lll_lock_wait' "$T/rec.err" &&
	skip "glibc without debug symbols (libc6-dbg): $(cat "$T/rec.err")"
grep -q ' 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"
for c in "" all join; do
	"$APERTURE" report -i "$T/l.data" --events lock --format json \
		${c:+--lock-class $c} >"$T/json$c" || fail "report --lock-class $c"
done
"$APERTURE" report -i "$T/l.data" --events lock >"$T/table" || fail "report"
sed -n '/Lock contention/,/^#$/p' "$T/table"
grep -q '^# futex waits: mutex [0-9]*, cond [1-9][0-9]*, join [1-9][0-9]*, other [0-9]*; shown: mutex (--lock-class all' "$T/table" ||
	fail "class line: $(grep 'futex waits' "$T/table")"
python3 - "$T" "$T/wl.out" "$R" <<'PY' || fail "json check"
import json, sys
t, wl, R = sys.argv[1], sys.argv[2], int(sys.argv[3])
f = open(wl).read().split()
truth = dict(zip(f[1::2], map(int, f[2::2])))
d = json.load(open(t + "/json"))["lock"]
names = [(l["kind"], l.get("class"), l["name"]) for l in d["locks"]]
print("default rows:", names)
assert d["classes_shown"] == ["mutex"], d["classes_shown"]
assert not any(n == "quiet_mutex" for _, _, n in names), names
assert all(c in (None, "mutex") for _, c, _ in names), names
pt = [l for l in d["locks"] if l["kind"] == "pthread" and l["name"] == "round_mutex"]
fx = [l for l in d["locks"] if l["kind"] == "futex" and l["name"] == "round_mutex"]
assert len(pt) == 1 and len(fx) == 1, names
pt, fx = pt[0], fx[0]
print("round_mutex: pthread %d contentions, %d holds, avg hold %.3f ms (program %.3f ms); futex mutex waits %d" %
      (pt["contentions"], pt["holds"], pt["avg_hold_ns"] / 1e6,
       truth["hold_ns"] / R / 1e6, fx["contentions"]))
assert pt["contentions"] == R, pt["contentions"]
assert pt["holds"] == R, pt["holds"]
assert fx["contentions"] == R, fx["contentions"]
h = pt["avg_hold_ns"] / (truth["hold_ns"] / R)
assert 0.75 <= h <= 1.25, h
assert any("contend" in s["frames"] and "waiter" in s["frames"]
           for s in pt["stacks"]), pt["stacks"]
bc = d["futex_by_class"]
assert bc["mutex"] >= R and bc["cond"] >= 1 and bc["join"] >= 1, bc

a = json.load(open(t + "/jsonall"))["lock"]
cond = [l for l in a["locks"] if l.get("class") == "cond"]
assert cond and all(l["name"].startswith("round_cond") for l in cond), cond
assert sum(l["contentions"] for l in cond) == bc["cond"], (cond, bc)
assert not any(l["name"] == "quiet_mutex" for l in a["locks"])

j = json.load(open(t + "/jsonjoin"))["lock"]
assert j["classes_shown"] == ["join"], j["classes_shown"]
kinds = set((l["kind"], l.get("class")) for l in j["locks"])
assert kinds <= {("futex", "join"), ("kernel", None)}, kinds
assert sum(l["contentions"] for l in j["locks"] if l.get("class") == "join") == bc["join"]
PY
"$APERTURE" report -i "$T/l.data" --events lock --lock-class bogus >/dev/null 2>"$T/err" &&
	fail "--lock-class bogus accepted"
grep -q "bad --lock-class 'bogus'" "$T/err" || fail "error line: $(cat "$T/err")"
exit 0
