#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A recording whose sched frames claim off-CPU intervals and thread
# totals of 2^64-1 ns, and whose mem frames claim periods of 2^63: every
# output clamps them to what the recording holds (its span, on each of
# its CPUs; a period no recorder sets), and the table, JSON, folded,
# pprof, speedscope and SVG agree on the off-CPU total; nothing negative
# or past 2^62.  The timeline (--format trace) cuts its slices the same
# way: each no longer than the span, a thread's together no longer than
# it, their sum the views' total; sched, syscall and lock.  The hostile
# files are recordings with their blocks rewritten by
# tests/integration/aprewrite.py (valid CRCs and trailer).
. tests/integration/lib.sh
need_cmd python3
need_cmd protoc

# the trace's slices (a JSON parser reads it): none negative or past the
# span (ns), each thread's together within it; their sum in ns
cat >"$T/trace_check.py" <<'PY'
def trace_check(path, span):
    tr = json.load(open(path))
    per, total = {}, 0
    for e in tr["traceEvents"]:
        if e.get("ph") != "X":
            continue
        d = e["dur"] * 1000
        assert 0 <= d <= span and e["ts"] >= 0, e
        key = (e["cat"], e["pid"], e["tid"])
        per[key] = per.get(key, 0) + d
        total += d
    assert per, "no slices"
    assert max(per.values()) <= span + 1000, (max(per.values()), span)
    return total
PY

# sched: the golden recording (1.10) and the fuzz seed (1.0: shorter
# frames)
for src in tests/golden/cpu-syscall-sched.data tests/fuzz/corpus/sched.data
do
	python3 tests/integration/aprewrite.py "$src" "$T/h.data" ||
		fail "rewriting $src"
	for f in table json folded pprof speedscope svg trace; do
		"$APERTURE" report -i "$T/h.data" --events sched \
			--format $f >"$T/out.$f" 2>"$T/err.$f" ||
			fail "report $f: $(cat "$T/err.$f")"
		# the seed's programs are not on this machine: said, only that
		grep -v "cannot open" "$T/err.$f" && fail "report $f warned"
	done
	gzip -dc "$T/out.pprof" | protoc -Iproto proto/profile.proto \
		--decode=perftools.profiles.Profile >"$T/pprof.txt" ||
		fail "protoc --decode"

	python3 - "$T" <<'PY' || fail "$src: outputs disagree or are hostile"
import json, re, sys
t = sys.argv[1]
js = json.load(open(t + "/out.json"))
# duration_s is rounded to the microsecond
span = js["header"]["duration_s"] * 1e9 + 1000
ncpus = js["header"]["ncpus"]
sc = js["sched"]
total = sc["interval_ns"]
assert 0 < total <= span * len(sc["stacks"]), (total, span)
for p in sc["processes"]:
    for k in ("on_cpu_ns", "blocked_ns", "runnable_ns", "off_cpu_ns"):
        lim = span * (ncpus if k == "on_cpu_ns" else len(p["threads"]) * 2)
        assert 0 <= p[k] <= lim, (k, p[k], lim)
    for th in p["threads"]:
        for k in ("on_cpu_ns", "blocked_ns", "runnable_ns",
                  "wakeup_max_ns", "interval_ns"):
            assert 0 <= th[k] <= span + 1, (k, th[k], span)
for s in sc["stacks"]:
    assert 0 <= s["off_ns"] <= span + 1, s["off_ns"]
# folded: microseconds
fold = sum(int(l.rsplit(" ", 1)[1]) for l in open(t + "/out.folded"))
# pprof: the first value of each sample is nanoseconds off-CPU
txt = open(t + "/pprof.txt").read()
vals = [int(v) for v in re.findall(r"^\s*value: (-?\d+)", txt, re.M)]
pp = sum(vals[0::2])
assert min(vals) >= 0 and max(vals) <= 2**62, (min(vals), max(vals))
ss = json.load(open(t + "/out.speedscope"))
sst = 0
for pr in ss["profiles"]:
    w = [x for x, s in zip(pr["weights"], pr["samples"]) if s]
    assert min(pr["weights"]) >= 0 and max(pr["weights"]) <= 2**62
    sst += sum(w)
svg = open(t + "/out.svg").read()
m = re.search(r"<title>all \(([0-9.]+) (s|ms|us|ns)", svg)
assert m, "no total in the svg"
mul = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}[m.group(2)]
sv = float(m.group(1)) * mul
print("span %.0f ns x %d CPUs; json %.0f pprof %d speedscope %d "
      "folded %d us svg %.0f" % (span, ncpus, total, pp, sst, fold, sv))
assert abs(pp - total) <= len(vals), (pp, total)
# an interval scaled with its row rounds down: 1 ns each at most
assert abs(sst - total) <= len(vals) + sc["intervals"], (sst, total)
assert abs(fold * 1000 - total) <= 1000 * len(vals), (fold, total)
assert abs(sv - total) <= total * 0.01, (sv, total)
exec(open(t + "/trace_check.py").read())
tr = trace_check(t + "/out.trace", span)
print("trace %d ns" % tr)
assert abs(tr - total) <= sc["intervals"] + 1000, (tr, total)
PY
done

# syscall and lock: the trace's slices add up to the views' totals
for k in syscall lock; do
	python3 tests/integration/aprewrite.py tests/fuzz/corpus/$k.data \
		"$T/$k.data" || fail "rewriting $k.data"
	for f in json trace; do
		"$APERTURE" report -i "$T/$k.data" --events $k --format $f \
			>"$T/$k.$f" 2>"$T/$k.err" ||
			fail "report $k $f: $(cat "$T/$k.err")"
	done
	python3 - "$T" $k <<'PY' || fail "$k: the trace disagrees or is hostile"
import json, sys
t, k = sys.argv[1], sys.argv[2]
js = json.load(open("%s/%s.json" % (t, k)))
span = js["header"]["duration_s"] * 1e9 + 1000
total = (sum(r["total_ns"] for r in js[k]["rows"]) if k == "syscall"
         else js[k]["total_wait_ns"])
exec(open(t + "/trace_check.py").read())
tr = trace_check("%s/%s.trace" % (t, k), span)
print("%s: span %.0f ns, json %d ns, trace %d ns" % (k, span, total, tr))
assert total > 0 and abs(tr - total) <= total * 1e-5 + 1000, (tr, total)
PY
done

# mem: each sample weighs at most the largest period a recorder sets
python3 tests/integration/aprewrite.py tests/fuzz/corpus/mem.data \
	"$T/m.data" || fail "rewriting mem.data"
"$APERTURE" report -i "$T/m.data" --events mem --format json >"$T/m.json" \
	2>"$T/m.err" || fail "report mem: $(cat "$T/m.err")"
"$APERTURE" report -i "$T/m.data" --events mem --format pprof \
	>"$T/m.pprof" 2>"$T/m.err" || fail "report mem pprof: $(cat "$T/m.err")"
gzip -dc "$T/m.pprof" | protoc -Iproto proto/profile.proto \
	--decode=perftools.profiles.Profile >"$T/m.txt" ||
	fail "protoc --decode (mem)"
python3 - "$T" <<'PY' || fail "mem weights past what a recording holds"
import json, re, sys
t = sys.argv[1]
m = json.load(open(t + "/m.json"))["mem"]
assert m["samples"] > 0 and 0 < m["weight"] <= m["samples"] * 0xffff0, m
vals = [int(v) for v in re.findall(r"^\s*value: (-?\d+)",
                                   open(t + "/m.txt").read(), re.M)]
assert vals and min(vals) > 0 and sum(vals) <= m["weight"], (vals, m)
print("mem: %d samples, weight %d; pprof %d" % (m["samples"], m["weight"],
                                                sum(vals)))
PY
exit 0
