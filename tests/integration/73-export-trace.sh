#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --format trace: Chrome trace-event JSON (what Perfetto and
# chrome://tracing load) with every event kind of the recording on one
# time axis.  offcpu_sleep's truth: one nanosleep per iteration, each
# blocked interval of sleepy_wait inside its nanosleep slice on the same
# thread, the blocked time what the workload measured; CPU samples as
# instants with stacks.  Each track's events are in time order in the
# file, as aperture script puts the same events.  A recording whose
# syscalls the kernel summed (-e syscall) has none of their slices, and
# stderr says so and names -e syscall:calls.
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$APERTURE" record -F 999 -e cpu,syscall,sched --syscall-stacks \
	-o "$T/t.data" -- "$WL/offcpu_sleep" 1 >"$T/wl.out" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
cat "$T/wl.out"
"$APERTURE" report -i "$T/t.data" --format trace >"$T/trace.json" \
	2>"$T/rep.err" || fail "report --format trace: $(cat "$T/rep.err")"
python3 - "$T/trace.json" "$T/wl.out" <<'PY' || fail "trace check"
import json, re, sys
d = json.load(open(sys.argv[1]))
truth = dict(re.findall(r"(\w+)=(\d+)", open(sys.argv[2]).read()))
iters, slept, tid = int(truth["iterations"]), int(truth["slept_ns"]), int(truth["tid"])
ev = d["traceEvents"]
for e in ev:
    assert e["ph"] in ("X", "i", "M"), e
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
    if e["ph"] != "M":
        assert isinstance(e["ts"], (int, float)) and e["ts"] > 0, e
    if e["ph"] == "X":
        assert e["dur"] >= 0, e
    if e["ph"] == "i":
        assert e["s"] == "t", e
mine = [e for e in ev if e.get("tid") == tid]
sleeps = [e for e in mine if e.get("cat") == "syscall" and
          e["name"] in ("nanosleep", "clock_nanosleep")]
print("nanosleep slices %d, iterations %d" % (len(sleeps), iters))
# every one: the command is held until the probes are attached, and the
# recording ends after it exits (24 and 23 of 25 were records that a CPU
# sample overwrote, test 8a-nested-records)
assert len(sleeps) == iters, len(sleeps)
blocked = [e for e in mine if e.get("cat") == "sched" and e["name"] == "blocked"
           and any("sleepy_wait" in f for f in e["args"].get("stack", []))]
total = sum(e["dur"] for e in blocked) * 1000
print("blocked in sleepy_wait %.3f s, workload slept %.3f s" % (total / 1e9, slept / 1e9))
assert 0.8 * slept <= total <= 1.05 * slept, total
# one time axis: each such interval lies inside a nanosleep slice
inside = sum(1 for b in blocked if any(
    s["ts"] - 0.001 <= b["ts"] and b["ts"] + b["dur"] <= s["ts"] + s["dur"] + 0.001
    for s in sleeps))
print("blocked intervals inside a nanosleep: %d of %d" % (inside, len(blocked)))
assert blocked and inside >= 0.9 * len(blocked), inside
cpu = [e for e in mine if e.get("cat") == "cpu"]
assert cpu and all(e["ph"] == "i" for e in cpu)
assert any(any(f.startswith("burn ") for f in e["args"].get("stack", [])) for e in cpu)
names = {(e["name"], e["args"]["name"]) for e in ev if e["ph"] == "M"}
assert ("thread_name", "offcpu_sleep") in names, names
PY

# the trace and the event dump in time order, though the file is not:
# there each blocked interval (taken at the switch back in) comes before
# the nanosleep around it (taken at its exit)
"$APERTURE" script -i "$T/t.data" --format jsonl >"$T/jsonl" ||
	fail "script --format jsonl"
[ -s "$T/rep.err" ] && fail "report --format trace said: $(cat "$T/rep.err")"
python3 - "$T/trace.json" "$T/jsonl" <<'PY' || fail "time order"
import json, sys
from collections import defaultdict
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] != "M"]
# (bytes of names read as they come: the order is what is checked here)
js = [json.loads(l) for l in open(sys.argv[2], errors="replace")]
tracks = defaultdict(list)
for e in ev:
    tracks[(e["pid"], e["tid"])].append(e["ts"])
back = sum(1 for ts in tracks.values() for a, b in zip(ts, ts[1:]) if b < a)
print("trace: %d tracks, %d steps back in time; script: %d events" % (
    len(tracks), back, len(js)))
assert back == 0, back
assert len(js) == len(ev), (len(js), len(ev))
assert [e["ts"] for e in js] == sorted(e["ts"] for e in js), "script not in time order"
# the same events, as script orders them: the file's order was not this
assert [round(e["ts"] * 1000) for e in ev] == [e["ts"] for e in js], "trace order"
PY

# plain -e syscall: the kernel's sums, no slice per call; stderr says so,
# once, and names the fix
"$APERTURE" record -e syscall -o "$T/sum.data" -- "$WL/offcpu_sleep" n3 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/sum.data" --format trace >"$T/sum.json" \
	2>"$T/rep.err" || fail "report --format trace: $(cat "$T/rep.err")"
cat "$T/rep.err"
[ "$(grep -c 'syscall' "$T/rep.err")" -eq 1 ] &&
	grep -q 'no syscall slices.*-e syscall:calls' "$T/rep.err" ||
	fail "no word on the summed syscalls: $(cat "$T/rep.err")"
python3 - "$T/sum.json" <<'PY' || fail "summed syscalls"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "syscall"]
assert ev and all(e["ph"] == "i" and "calls" in e["args"] for e in ev), ev[:3]
PY

# lock waits and syscalls: a futex wait starts before its futex slice and
# ends inside it, so lock slices go on a track of their own ("lock wait
# of TID"), and on every track the slices nest or are apart: a partial
# overlap is what viewers cannot draw (speedscope's importer drew every
# such wait to the end of the recording)
"$APERTURE" record -e lock,syscall:calls -o "$T/lk.data" -- \
	"$WL/lock_contend" 10 10 >/dev/null 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/lk.data" --format trace >"$T/lk.json" \
	2>"$T/rep.err" || fail "report --format trace: $(cat "$T/rep.err")"
python3 - "$T/lk.json" "$T/trace.json" <<'PY' || fail "slices overlap"
import json, sys
from collections import defaultdict
for path in sys.argv[1:]:
    ev = json.load(open(path))["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
             if e["ph"] == "M" and e["name"] == "thread_name"}
    tracks = defaultdict(list)
    for e in ev:
        if e["ph"] != "X":
            continue
        if e["cat"] == "lock":
            want = "lock wait of %d" % e["args"]["tid"]
            assert names.get((e["pid"], e["tid"])) == want, (e, want)
        s = round(e["ts"] * 1000)	# ns, as recorded
        tracks[(e["pid"], e["tid"])].append((s, s + round(e["dur"] * 1000), e["cat"], e["name"]))
    bad = 0
    for k, sl in tracks.items():
        sl.sort(key=lambda x: (x[0], -x[1]))	# outer first
        open_ = []
        for x in sl:
            while open_ and open_[-1][1] <= x[0]:
                open_.pop()
            if open_ and x[1] > open_[-1][1]:
                bad += 1
                if bad <= 3:
                    print("%s track %s: %s overlaps %s" % (path, k, x, open_[-1]))
                continue
            open_.append(x)
    cats = {x[2] for sl in tracks.values() for x in sl}
    print("%s: %d tracks, %d slices (%s), %d partly overlapping" % (
        path.rsplit("/", 1)[-1], len(tracks), sum(map(len, tracks.values())),
        ", ".join(sorted(cats)), bad))
    assert bad == 0, bad
    if path == sys.argv[1]:
        assert {"lock", "syscall"} <= cats, cats
PY
exit 0
