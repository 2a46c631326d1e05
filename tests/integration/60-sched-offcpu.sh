#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e sched -- CMD on a workload that burns ~10 ms then sleeps 30 ms
# in sleepy_wait(), and prints what it measured itself: the off-CPU time
# in sleepy_wait (folded, microseconds) within 10 % of its own sleep
# total, on-CPU time within 15 % of its CPU time, one voluntary switch per
# sleep at least; --min-block above the sleep length leaves no interval
# but keeps the totals.
. tests/integration/lib.sh
need_bpf
need_cmd python3

record() {
	"$APERTURE" record -e sched -o "$T/s.data" -- "$WL/offcpu_sleep" 2 \
		>"$T/wl.out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
	grep -q ' 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"
}
record
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$T/wl.out"; }
iters=$(field iterations)
slept=$(field slept_ns)
cpu=$(field cpu_ns)
tid=$(field tid)
[ -n "$slept" ] && [ "$iters" -gt 10 ] || fail "workload output: $(cat "$T/wl.out")"

"$APERTURE" report -i "$T/s.data" --events sched --format folded >"$T/folded" ||
	fail "report --format folded"
awk 'NF < 2 || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' "$T/folded" ||
	fail "folded lines malformed"
off_us=$(awk '/^offcpu_sleep;\[off-cpu\];.*;sleepy_wait;/ { s += $NF } END { print s + 0 }' "$T/folded")
r=$(awk -v a="$off_us" -v b="$slept" 'BEGIN { printf "%.3f", a * 1000 / b }')
echo "sleepy_wait off-CPU ${off_us} us, workload slept $((slept / 1000)) us: ratio $r"
within "$r" 0.90 1.10 || fail "off-CPU in sleepy_wait is $r of the truth"
grep -q '^offcpu_sleep;\[off-cpu\];.*main;sleep_mode;sleepy_wait;.*do_nanosleep_\[k\]' \
	"$T/folded" || fail "no chain main;sleep_mode;sleepy_wait;...;do_nanosleep_[k]"
# burn() never blocks: its off-CPU time is runnable only
grep -q '^offcpu_sleep;\[off-cpu\];.*;burn;' "$T/folded" &&
	fail "burn() shown as blocked"

"$APERTURE" report -i "$T/s.data" --events sched --format json >"$T/json" ||
	fail "report --format json"
python3 - "$T/json" "$tid" "$cpu" "$iters" "$slept" <<'PY' || fail "json checks"
import json, sys
d = json.load(open(sys.argv[1]))
tid, cpu, iters, slept = (int(x) for x in sys.argv[2:])
# a context switch the kernel never reported (seen on 6.18 under load,
# by bpftrace too) leaves an interval unmeasured: it must be counted
unseen = sum(x["count"] for x in d["header"]["dropped"]
             if x["source"] == "unresolved" and x["event"] == "sched")
if unseen:
    print("%d context switches no tracepoint reported" % unseen)
s = d["sched"]
t = [t for p in s["processes"] for t in p["threads"] if t["tid"] == tid]
assert t, "thread %d not in the report" % tid
t = t[0]
r_on = t["on_cpu_ns"] / cpu
r_bl = t["blocked_ns"] / slept
print("on-CPU %.3f of the thread's CPU time, blocked %.3f of its sleep, "
      "vol %d for %d sleeps, cpus %s" % (r_on, r_bl, t["voluntary"], iters, t["cpus"]))
assert 0.85 <= r_on <= 1.15, "on-CPU %.3f" % r_on
assert 0.85 <= r_bl <= 1.05, "blocked %.3f" % r_bl
assert t["voluntary"] >= iters, "voluntary switches"
assert t["off_cpu_ns"] == t["blocked_ns"] + t["runnable_ns"]
assert t["cpus"] and t["wakeups"] >= iters - unseen
st = [x for x in s["stacks"] if x["tid"] == tid and x["state"] == "blocked"
      and any(f["sym"] == "sleepy_wait" for f in x["frames"])]
n = sum(x["count"] for x in st)
assert st and n <= iters and n + unseen >= iters, \
    "%d intervals and %d unseen switches for %d sleeps" % (n, unseen, iters)
PY

"$APERTURE" report -i "$T/s.data" --events sched >"$T/table" || fail "table"
grep -q '^# Scheduling: 1 processes' "$T/table" || fail "table header: $(head -20 "$T/table")"
grep -q 'blocked   offcpu_sleep *sleepy_wait <- sleep_mode <- main' "$T/table" ||
	fail "table stacks: $(cat "$T/table")"

# --min-block 100 ms: no interval frames for 30 ms sleeps, totals kept
"$APERTURE" record -e sched --min-block 100000 -o "$T/m.data" -- \
	"$WL/offcpu_sleep" 1 >"$T/wl2.out" 2>"$T/rec2.err" ||
	fail "record --min-block: $(cat "$T/rec2.err")"
"$APERTURE" report -i "$T/m.data" --events sched --format folded |
	grep -q sleepy_wait && fail "--min-block kept 30 ms intervals"
"$APERTURE" report -i "$T/m.data" --events sched --format json >"$T/json2"
python3 - "$T/json2" "$(sed -n 's/.*iterations=\([0-9]*\).*/\1/p' "$T/wl2.out")" <<'PY' ||
import json, sys
p = json.load(open(sys.argv[1]))["sched"]["processes"][-1]
n = int(sys.argv[2])
assert p["short_intervals"] >= n, p
# each sleep blocks at least its 30 ms (what follows the wakeup is
# runnable: under load the 1 s run makes fewer, longer iterations)
assert p["blocked_ns"] >= n * 30e6 * 0.95, p
PY
	fail "--min-block totals"
exit 0
