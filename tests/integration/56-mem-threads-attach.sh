#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Threads created after recording began are sampled (events opened with
# inherit), and -p attaches to a running process; in both, hot_buffer
# keeps its share of the page faults.
. tests/integration/lib.sh
need_bpf
need_cmd python3

share() {
	python3 - "$1" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["mem"]
o = {x["object"]: x for x in m["objects"]}
assert m["objects"][0]["object"] == "hot_buffer", m["objects"][0]
print("%.2f" % o["hot_buffer"]["percent"])
PY
}

# 3 threads born in every pass touch hot_buffer; main touches the rest
"$APERTURE" record -e mem -o "$T/thr.data" -- "$WL/mem_touch" 10 3 \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/thr.data" --format json >"$T/thr.json" || fail "report"
s=$(share "$T/thr.json") || fail "threads: hot_buffer not first"
echo "threads: hot_buffer $s%"
[ -r /sys/bus/event_source/devices/ibs_op/type ] ||
	within "$s" 81 87.5 || fail "threads: hot_buffer share $s%"
"$APERTURE" report -i "$T/thr.data" --format folded |
	grep -q '^mem_touch;.*start_thread;touch_part;touch [0-9]*$' ||
	fail "threads: no folded chain through touch_part"

# attach to a running process for one second
"$WL/mem_touch" 400 &
pid=$!
sleep 0.3
"$APERTURE" record -e mem -p $pid -d 1 -o "$T/pid.data" 2>"$T/rec2.err"
rc=$?
kill $pid 2>/dev/null
wait $pid 2>/dev/null
[ $rc -eq 0 ] || fail "record -p: $(cat "$T/rec2.err")"
"$APERTURE" report -i "$T/pid.data" --format json >"$T/pid.json" || fail "report -p"
s=$(share "$T/pid.json") || fail "-p: hot_buffer not first"
echo "-p: hot_buffer $s%"
[ -r /sys/bus/event_source/devices/ibs_op/type ] ||
	within "$s" 78 90 || fail "-p: hot_buffer share $s%"
exit 0
