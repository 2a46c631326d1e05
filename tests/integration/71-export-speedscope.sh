#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --format speedscope: speedscope's file format (the fields its
# schema requires), one sampled profile per thread and view, weights in the
# view's unit, and the 60/30/10 truth of cpu_split in the leaf shares.
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

cat >"$T/check.py" <<'PY'
import json, sys

UNITS = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds",
         "bytes"}
d = json.load(open(sys.argv[1]))
want_views = sys.argv[2].split(",")
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
    for s in p["samples"]:
        assert s and all(0 <= i < len(frames) for i in s), p["name"]
    view, comm, ids = p["name"].split(" ")
    views.setdefault(view, []).append((comm, ids, p))
assert sorted(views) == sorted(want_views), sorted(views)
# cpu: one profile per thread of cpu_split (three), counts
cpu = [p for comm, ids, p in views["cpu"] if comm == "cpu_split"]
assert len(cpu) == 3, [n for n, i, p in views["cpu"]]
assert all(p["unit"] == "none" for p in cpu)
total = sum(sum(p["weights"]) for p in cpu)
share = {}
for p in cpu:
    for s, w in zip(p["samples"], p["weights"]):
        leaf = frames[s[-1]]["name"]       # samples are root first
        share[leaf] = share.get(leaf, 0) + w
for f, lo, hi in (("burn_60", 54, 66), ("burn_30", 24, 36),
                  ("burn_10", 5, 15)):
    pct = 100.0 * share.get(f, 0) / total
    print("%s %.1f%%" % (f, pct))
    assert lo <= pct <= hi, (f, pct)
root = {frames[s[0]]["name"] for p in cpu for s in p["samples"]}
assert "__libc_start_call_main" in root or "start_thread" in root or \
    "clone3" in root, root
if "sched" in views:
    assert all(p["unit"] == "nanoseconds" for c, i, p in views["sched"])
PY
python3 "$T/check.py" "$T/cpu.json" cpu || fail "speedscope cpu: see above"
python3 "$T/check.py" "$T/all.json" cpu,sched ||
	fail "speedscope cpu,sched: see above"
exit 0
