#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Pid reuse under -a: pid_reuse's first child sleeps 10 x 20 ms and exits,
# then a second child is forked until it gets the same pid (ns_last_pid)
# and sleeps 10 x 60 ms.  Identity is (pid, start time): the report shows
# two processes under that pid, and each one's blocked time is its own
# sleep, not the sum of both: at least what it asked for, at most what
# it measured around its nanosleeps (which adds the wait for a CPU).
# Some kernels trace nothing while certain tasks run (here the VM agent's
# threads: not their switches, nor wake-ups from interrupts that land on
# them), so a child can be switched in, or woken and switched in,
# unreported, even just before it exits.  The recorder counts each such
# switch against the process (the header's lost-by list); a wake-up it
# saw still ends the blocked time, and each one counted under that pid
# lowers the least by one sleep.
. tests/integration/lib.sh
need_bpf
need_cmd python3
[ -w /proc/sys/kernel/ns_last_pid ] || skip "needs /proc/sys/kernel/ns_last_pid"

"$APERTURE" record -a -e sched -o "$T/r.data" -- "$WL/pid_reuse" 20 60 \
	>"$T/wl.out" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err") $(cat "$T/wl.out")"
cat "$T/wl.out"
[ "$(wc -l <"$T/wl.out")" -eq 2 ] || fail "workload output: $(cat "$T/wl.out")"
"$APERTURE" report -i "$T/r.data" --events sched --format json >"$T/json" ||
	fail "report --format json"
python3 - "$T/json" "$T/wl.out" <<'PY' || fail "json checks"
import json, re, sys
d = json.load(open(sys.argv[1]))
truth = [tuple(int(x) for x in
              re.match(r"pid=(\d+) asked_ns=(\d+) slept_ns=(\d+)", l).groups())
         for l in open(sys.argv[2])]
pid = truth[0][0]
assert truth[1][0] == pid, "the second child has pid %d, not %d" % (truth[1][0], pid)
procs = [p for p in d["sched"]["processes"] if p["pid"] == pid]
assert len(procs) == 2, "%d processes under pid %d, not 2" % (len(procs), pid)
# in the report's order: (pid, start time), the first child first
# switches unseen by the processes under that pid (both children), and by
# those beyond the recorder's table of losers
unseen = sum(l["count"] for x in d["header"]["lost_by_process"]
             if x["pid"] == pid or x["beyond_table"]
             for l in x["lost"]
             if l["source"] == "unresolved" and l["event"] == "sched")
for (_, asked, slept), p in zip(truth, procs):
    b = p["blocked_ns"]
    least = 0.98 * asked * (10 - min(unseen, 10)) / 10
    print("pid %d: blocked %d ns, asked %d, slept %d (%d switches unseen)" %
          (pid, b, asked, slept, unseen))
    assert least <= b <= 1.01 * slept, "blocked %d ns" % b
PY
