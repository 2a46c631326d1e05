#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# -e sched must not disturb what it measures.  With one CPU hog per CPU (a
# loaded server: the recorder has no idle CPU to hide on), a workload that
# burns 1 ms and sleeps 100 us 300 times counts its own switches
# (getrusage): under the recorder its involuntary switches stay near those
# of the same run alone (a reader woken per off-CPU interval preempts the
# target, which makes another interval: thousands), and aperture's counts
# for the thread match the workload's own.
. tests/integration/lib.sh
need_bpf
need_cmd python3

N=300
hogs=
for i in $(seq "$(nproc)"); do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
trap 'kill $hogs 2>/dev/null; rm -rf "$T"' EXIT INT TERM

field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }
"$WL/offcpu_sleep" slices $N >"$T/alone.out" || fail "workload alone"
"$APERTURE" record -e sched -o "$T/s.data" -- "$WL/offcpu_sleep" slices $N \
	>"$T/wl.out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
kill $hogs 2>/dev/null
grep -q ' 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"
alone=$(field nivcsw "$T/alone.out")
under=$(field nivcsw "$T/wl.out")
vol=$(field nvcsw "$T/wl.out")
tid=$(field tid "$T/wl.out")
[ -n "$alone" ] && [ -n "$under" ] || fail "workload output: $(cat "$T/wl.out")"
echo "involuntary switches: alone $alone, under -e sched $under (voluntary $vol)"
[ "$under" -le $((2 * alone + 100)) ] ||
	fail "-e sched made $under involuntary switches of the workload, $alone alone"

"$APERTURE" report -i "$T/s.data" --events sched --format json >"$T/json" ||
	fail "report --format json"
python3 - "$T/json" "$tid" "$vol" "$under" <<'PY' || fail "counts against the workload's own"
import json, sys
d = json.load(open(sys.argv[1]))
tid, vol, invol = (int(x) for x in sys.argv[2:])
t = [t for p in d["sched"]["processes"] for t in p["threads"] if t["tid"] == tid]
assert t, "thread %d not in the report" % tid
t = t[0]
print("aperture: voluntary %d (own %d), involuntary %d (own %d)"
      % (t["voluntary"], vol, t["involuntary"], invol))
# the workload counts before printing and exiting: a few switches more
assert vol - 2 <= t["voluntary"] <= vol + 3, "voluntary"
assert invol - 2 <= t["involuntary"] <= invol + 3 + invol // 10, "involuntary"
PY
exit 0
