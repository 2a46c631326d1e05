#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two threads spinning on CPU 0 only: each is preempted (involuntary
# switches, no voluntary ones to speak of), spends at least a quarter of
# its life runnable (more when other work shares CPU 0: on a busy machine
# that is most of it), gets about as much CPU as the other, runs on CPU 0
# alone; on + off-CPU time within 5 % of each thread's own wall-clock
# lifetime.  On-CPU time is wall-clock time between
# switch-in and switch-out, so it may exceed the thread's CPU clock by
# interrupt and (in a VM) steal time: checked loosely against it.
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$APERTURE" record -e sched -o "$T/c.data" -- "$WL/offcpu_sleep" contend 1.5 \
	>"$T/wl.out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/c.data" --events sched --format json >"$T/json" ||
	fail "report --format json"
python3 - "$T/json" "$T/wl.out" <<'PY' || fail "json checks"
import json, re, sys
d = json.load(open(sys.argv[1]))["sched"]
truth = dict((int(t), (int(c), int(w))) for t, c, w in
             re.findall(r"tid=(\d+) cpu_ns=(\d+) wall_ns=(\d+)",
                        open(sys.argv[2]).read()))
assert len(truth) == 2, truth
threads = dict((t["tid"], t) for p in d["processes"] for t in p["threads"])
for tid, (cpu, wall) in truth.items():
    t = threads[tid]
    share = t["runnable_ns"] / (t["runnable_ns"] + t["on_cpu_ns"])
    life = (t["on_cpu_ns"] + t["off_cpu_ns"]) / wall
    print("tid %d: on+off %.3f of its lifetime, on %.3f of its CPU clock, "
          "runnable share %.2f, invol %d, vol %d, cpus %s, exited %s" %
          (tid, life, t["on_cpu_ns"] / cpu, share, t["involuntary"],
           t["voluntary"], t["cpus"], t["exited"]))
    assert 0.95 <= life <= 1.05, life
    assert 0.85 <= t["on_cpu_ns"] / cpu <= 1.5
    assert 0.25 <= share, share
    other = [threads[o]["on_cpu_ns"] for o in truth if o != tid][0]
    assert 0.3 <= t["on_cpu_ns"] / (t["on_cpu_ns"] + other) <= 0.7
    assert t["involuntary"] >= 10 and t["involuntary"] > 5 * t["voluntary"]
    assert t["cpus"] == [0], t["cpus"]
    assert t["exited"]
# the process row sums its threads
p = [p for p in d["processes"] if any(t["tid"] in truth for t in p["threads"])][0]
assert p["involuntary"] == sum(t["involuntary"] for t in p["threads"])
assert p["on_cpu_ns"] == sum(t["on_cpu_ns"] for t in p["threads"])
PY
# runnable time is under [runnable] in the folded graph, with spin()
"$APERTURE" report -i "$T/c.data" --events sched --format folded |
	grep -q '^offcpu_sleep;\[runnable\];.*;spin;' ||
	fail "no [runnable] stacks in spin()"
exit 0
