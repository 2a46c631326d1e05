#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -a -d: system-wide for a fixed time sees an unrelated process.
. tests/integration/lib.sh
need_bpf

# (it outlives the recording, however slow the start on a loaded machine)
"$WL/cpu_split" 60 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$T"' EXIT INT TERM
sleep 0.3
"$APERTURE" record -a -d 1.5 -o "$T/a.data" 2>"$T/rec.err" ||
	fail "record -a: $(cat "$T/rec.err")"
kill "$pid"
wait "$pid" 2>/dev/null
"$APERTURE" report -i "$T/a.data" --sort comm,pid --format json >"$T/json" ||
	fail "report"
grep -q "\"comm\": \"cpu_split\", \"pid\": $pid" "$T/json" ||
	fail "cpu_split (pid $pid) not seen system-wide"
grep -q '"target": "system-wide"' "$T/json" || fail "header target"
dur=$(grep -o '"duration_s": [0-9.]*' "$T/json" | awk '{ print $2 }')
within "$dur" 1.3 3 || fail "duration $dur s, want about 1.5"
exit 0
