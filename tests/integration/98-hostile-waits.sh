#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Recordings whose lock waits and holds and syscall durations claim
# 2^64-1 ns: one wait or call is no longer than the recording, one
# thread's are no longer all together, and a row (and the lock header's
# total) no more than the recording times the threads that waited or
# called (counted from script's lines, each event once); the table,
# JSON, folded, pprof, speedscope and SVG agree on the total, and
# nothing is negative or past 2^62.  The hostile files are real
# recordings rewritten by tests/integration/aprewrite.py.
. tests/integration/lib.sh
need_cmd python3
need_cmd protoc

check() {	# KIND SRC
	python3 tests/integration/aprewrite.py "$2" "$T/h.data" ||
		fail "rewriting $2"
	for f in table json folded pprof speedscope svg; do
		"$APERTURE" report -i "$T/h.data" --events $1 \
			--format $f >"$T/out.$f" 2>"$T/err.$f" ||
			fail "report $1 $f: $(cat "$T/err.$f")"
		grep -v "cannot open" "$T/err.$f" && fail "report $1 $f warned"
	done
	"$APERTURE" script -i "$T/h.data" >"$T/script" 2>/dev/null ||
		fail "script $2"
	gzip -dc "$T/out.pprof" | protoc -Iproto proto/profile.proto \
		--decode=perftools.profiles.Profile >"$T/pprof.txt" ||
		fail "protoc --decode"
	python3 - "$T" "$1" <<'PY' || fail "$2: $1 outputs disagree or are hostile"
import json, re, sys
t, kind = sys.argv[1], sys.argv[2]
js = json.load(open(t + "/out.json"))
span = js["header"]["duration_s"] * 1e9 + 1000	# rounded to the us
# the threads with an event of this kind, as script prints them
tids = set()
for l in open(t + "/script"):
    f = l.split()
    if len(f) > 5 and f[5] == kind + ":":
        tids.add(f[1])
assert tids, "no %s events in script" % kind
nthr = len(tids)
if kind == "lock":
    lk = js["lock"]
    total = 0
    for r in lk["locks"]:
        assert 0 <= r["max_wait_ns"] <= min(span, r["total_wait_ns"] + 1), r
        lim = span * min(r["contentions"], nthr)
        assert 0 <= r["total_wait_ns"] <= lim, (r["total_wait_ns"], lim)
        assert r["avg_hold_ns"] <= span, r
        total += sum(s["wait_ns"] for s in r["stacks"])
    assert 0 < lk["total_wait_ns"] <= span * nthr, (lk, span, nthr)
else:
    total = 0
    for r in js["syscall"]["rows"]:
        assert 0 <= r["max_ns"] <= span, r
        assert 0 <= r["total_ns"] <= span * nthr, (r, span, nthr)
        for p in ("p50_ns", "p95_ns", "p99_ns"):
            assert r[p] <= r["max_ns"], r
        total += r["total_ns"]
    # each thread's calls one after another, in every row together
    assert 0 < total <= span * nthr, (total, span, nthr)
fold = sum(float(l.rsplit(" ", 1)[1]) for l in open(t + "/out.folded"))
txt = open(t + "/pprof.txt").read()
vals = [int(v) for v in re.findall(r"^\s*value: (-?\d+)", txt, re.M)]
assert min(vals) >= 0 and max(vals) <= 2**62, (min(vals), max(vals))
pp = sum(vals[0::2])
ss = json.load(open(t + "/out.speedscope"))
sst = 0
for pr in ss["profiles"]:
    assert min(pr["weights"]) >= 0 and max(pr["weights"]) <= 2**62
    sst += sum(pr["weights"])
svg = open(t + "/out.svg").read()
m = re.search(r"<title>all \(([0-9.]+) (s|ms|us|ns)", svg)
assert m, "no total in the svg"
sv = float(m.group(1)) * {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}[m.group(2)]
print("%s: span %.0f ns, %d threads; json %.0f folded %.0f pprof %d "
      "speedscope %d svg %.0f" % (kind, span, nthr, total, fold, pp, sst, sv))
n = len(vals)
assert abs(pp - total) <= n, (pp, total)
assert abs(sst - total) <= n, (sst, total)
assert abs(fold - total) <= n, (fold, total)
assert abs(sv - total) <= total * 0.01, (sv, total)
PY
}

check lock tests/golden/cpu-lock-io.data
check lock tests/fuzz/corpus/lock.data
check syscall tests/golden/cpu-syscall-sched.data
check syscall tests/fuzz/corpus/syscall.data
exit 0
