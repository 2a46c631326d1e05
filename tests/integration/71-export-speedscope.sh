#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --format speedscope: speedscope's file format (validated with
# speedscope's own schema where one is found: APERTURE_SPEEDSCOPE_SCHEMA,
# or the speedscope npm package, dist/release/file-format-schema.json;
# else the fields it requires, by hand), one sampled profile per thread
# and view; cpu and sched in time order, in nanoseconds over the whole
# recording (inline_hot's parse phase before its encode phase), with the
# 60/30/10 truth of cpu_split in the leaf shares; lock profiles named by
# the waiters' process.
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$APERTURE" record -F 999 -e cpu,sched -o "$T/s.data" -- \
	"$WL/cpu_split" 2 3 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
# --user-only: the sched sensor's own interrupts end some CPU stacks in the
# kernel; the user leaf is where the workload was
"$APERTURE" report -i "$T/s.data" --format speedscope --user-only >"$T/cpu.json" \
	2>"$T/rep.err" || fail "report: $(cat "$T/rep.err")"
grep -q 'left out sched' "$T/rep.err" || fail "no word of sched left out"
"$APERTURE" report -i "$T/s.data" --format speedscope --events cpu,sched --user-only \
	>"$T/all.json" || fail "report --events cpu,sched"
"$APERTURE" record -F 999 -e cpu -o "$T/ph.data" -- \
	"$WL/inline_hot" 0.5 parse encode >/dev/null 2>"$T/rec.err" ||
	fail "record inline_hot: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/ph.data" --format speedscope --user-only \
	>"$T/ph.json" || fail "report inline_hot"
secs=$("$APERTURE" report -i "$T/ph.data" --format json |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["header"]["duration_s"])') ||
	fail "no duration in the JSON header"

schema=${APERTURE_SPEEDSCOPE_SCHEMA:-}
if [ -z "$schema" ] && command -v npm >/dev/null 2>&1; then
	schema="$(npm root -g 2>/dev/null)/speedscope/dist/release/file-format-schema.json"
fi
if [ ! -r "$schema" ] || ! python3 -c 'import jsonschema' 2>/dev/null; then
	echo "note: no speedscope schema or python3 jsonschema (npm install -g speedscope; APERTURE_SPEEDSCOPE_SCHEMA=FILE): required fields checked by hand"
	schema=
fi

cat >"$T/check.py" <<'PY'
import json, sys

UNITS = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds",
         "bytes"}
d = json.load(open(sys.argv[1]))
want_views = sys.argv[2].split(",")
if sys.argv[3]:
    import jsonschema
    jsonschema.validate(d, json.load(open(sys.argv[3])))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = d["shared"]["frames"]
for f in frames:
    assert isinstance(f["name"], str) and f["name"], f
profs = d["profiles"]
assert 0 <= d["activeProfileIndex"] < len(profs)
views = {}
for p in profs:
    for k in ("type", "name", "unit", "startValue", "endValue", "samples",
              "weights"):
        assert k in p, (k, p["name"])
    assert p["type"] == "sampled" and p["unit"] in UNITS, p["name"]
    assert len(p["samples"]) == len(p["weights"]), p["name"]
    assert p["endValue"] - p["startValue"] == sum(p["weights"]), p["name"]
    assert all(w > 0 for w in p["weights"]), p["name"]
    for s in p["samples"]:
        assert all(0 <= i < len(frames) for i in s), p["name"]
    view, comm, ids = p["name"].split(" ")
    assert int(ids.split("/")[0]) > 0, p["name"]
    views.setdefault(view, []).append((comm, ids, p))
assert sorted(views) == sorted(want_views), sorted(views)
for view in views:
    if view not in ("cpu", "sched"):
        continue
    # in time: every profile spans the recording; an empty stack is
    # time the thread spent elsewhere, the only kind of sample without
    # frames
    span = {p["endValue"] - p["startValue"] for c, i, p in views[view]}
    assert len(span) == 1, (view, span)
    assert all(p["unit"] == "nanoseconds" for c, i, p in views[view])
    assert any(not s for c, i, p in views[view] for s in p["samples"]), view
print(json.dumps({v: len(p) for v, p in views.items()}))
PY

cat >"$T/split.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
frames = d["shared"]["frames"]
# cpu: one profile per thread of cpu_split (three)
cpu = [p for p in d["profiles"] if p["name"].startswith("cpu cpu_split ")]
assert len(cpu) == 3, [p["name"] for p in d["profiles"]]
share, total = {}, 0
for p in cpu:
    for s, w in zip(p["samples"], p["weights"]):
        if not s:
            continue
        leaf = frames[s[-1]]["name"]       # samples are root first
        share[leaf] = share.get(leaf, 0) + w
        total += w
for f, lo, hi in (("burn_60", 54, 66), ("burn_30", 24, 36),
                  ("burn_10", 5, 15)):
    pct = 100.0 * share.get(f, 0) / total
    print("%s %.1f%%" % (f, pct))
    assert lo <= pct <= hi, (f, pct)
root = {frames[s[0]]["name"] for p in cpu for s in p["samples"] if s}
assert "__libc_start_call_main" in root or "start_thread" in root or \
    "clone3" in root, root
PY

cat >"$T/order.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
secs = float(sys.argv[2])
frames = d["shared"]["frames"]
p, = [p for p in d["profiles"] if p["name"].startswith("cpu inline_hot ")]
# the whole recording, in nanoseconds (the header's duration, to the us)
assert p["endValue"] - p["startValue"] >= secs * 1e9 - 1e3, \
    (p["endValue"], secs)
where = {"parse": [], "encode": []}
at = 0
for s, w in zip(p["samples"], p["weights"]):
    names = {frames[i]["name"] for i in s}
    for f in where:
        if f in names:
            where[f].append((at, w))
    at += w
ns = {f: sum(w for a, w in v) for f, v in where.items()}
print("parse %d samples %.0f ms, encode %d samples %.0f ms" %
      (len(where["parse"]), ns["parse"] / 1e6, len(where["encode"]),
       ns["encode"] / 1e6))
assert where["parse"] and where["encode"], where
# time order: all of parse's phase, then all of encode's
last_parse = max(a for a, w in where["parse"])
first_encode = min(a for a, w in where["encode"])
assert last_parse < first_encode, (last_parse, first_encode)
assert where["parse"][0][0] < 0.6e9 and where["encode"][-1][0] > 0.4e9, where
PY
python3 "$T/check.py" "$T/cpu.json" cpu "$schema" || fail "speedscope cpu: see above"
python3 "$T/split.py" "$T/cpu.json" || fail "speedscope cpu shares: see above"
python3 "$T/check.py" "$T/all.json" cpu,sched "$schema" ||
	fail "speedscope cpu,sched: see above"
python3 "$T/check.py" "$T/ph.json" cpu "$schema" || fail "speedscope inline_hot: see above"
python3 "$T/order.py" "$T/ph.json" "$secs" || fail "speedscope time order: see above"

# lock: rows merge a process's threads; the profile is named by the process
"$APERTURE" record -e lock -o "$T/l.data" -- "$WL/lock_contend" 5 5 \
	>/dev/null 2>"$T/rec.err" || fail "record lock: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/l.data" --format speedscope --events lock \
	>"$T/lock.json" || fail "report --events lock"
python3 "$T/check.py" "$T/lock.json" lock "$schema" || fail "speedscope lock: see above"
exit 0
