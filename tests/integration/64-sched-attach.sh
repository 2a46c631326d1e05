#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e sched -p PID -d 1 on a process asleep for the whole recording:
# it is seeded from /proc when recording begins, its interval is still
# open at the end and is recorded from the start to the end (about 1 s,
# marked open; its stack, taken before recording began, is unknown), and
# its totals say blocked for about that long.
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$WL/offcpu_sleep" n1 4 >/dev/null &
wl=$!
trap 'kill $wl 2>/dev/null; wait $wl 2>/dev/null; rm -rf "$T"' EXIT INT TERM
sleep 0.3
"$APERTURE" record -e sched -p $wl -d 1 -o "$T/a.data" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
kill $wl
"$APERTURE" report -i "$T/a.data" --events sched --format json >"$T/json" ||
	fail "report"
python3 - "$T/json" $wl <<'PY' || fail "json checks"
import json, sys
d = json.load(open(sys.argv[1]))["sched"]
pid = int(sys.argv[2])
assert d["open_intervals"] >= 1, d
t = [t for p in d["processes"] if p["pid"] == pid for t in p["threads"]][0]
print("open intervals %d, blocked %.3f s, on %.6f s" %
      (d["open_intervals"], t["blocked_ns"] / 1e9, t["on_cpu_ns"] / 1e9))
assert 0.9e9 <= t["blocked_ns"] <= 1.3e9, t
st = [s for s in d["stacks"] if s["tid"] == pid and s["state"] == "blocked"]
assert st and 0.9e9 <= st[0]["off_ns"] <= 1.3e9, st
assert st[0]["frames"][0]["sym"] == "[unknown]", st[0]["frames"]
PY
exit 0
