#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -a -e sched: on-CPU time is the kernel's own count of each
# thread's run time, never switch times that may miss switches the kernel
# did not report (here a VM agent's threads once showed seconds on a CPU
# with no switch).  Checked against /proc/PID/task/TID/schedstat read
# before and after the recording: no thread more than its run time in
# that span, the sum within CPUs x duration, offcpu_sleep's own CPU time
# (the command) within 5 %, cpu_split (on a CPU when recording began)
# measured in full; the JSON's lost is the summary's, and threads whose
# run time was not all measured are counted and shown.
. tests/integration/lib.sh
need_bpf
need_cmd python3

snap() {
	python3 - "$1" <<'PY'
import glob, sys
with open(sys.argv[1], "w") as out:
    for f in glob.glob("/proc/[0-9]*/task/[0-9]*/schedstat"):
        try:
            out.write("%s %s\n" % (f, open(f).read().split()[0]))
        except OSError:
            pass
PY
}

"$WL/cpu_split" 60 2 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$T"' EXIT INT TERM
sleep 0.3
snap "$T/before"
"$APERTURE" record -a -e sched -o "$T/a.data" -- "$WL/offcpu_sleep" 2 \
	>"$T/wl.out" 2>"$T/rec.err" ||
	fail "record -a: $(cat "$T/rec.err")"
snap "$T/after"
kill "$pid"
wait "$pid" 2>/dev/null
cat "$T/rec.err"
"$APERTURE" report -i "$T/a.data" --events sched --format json >"$T/json" ||
	fail "report --format json"
"$APERTURE" report -i "$T/a.data" --events sched >"$T/table" ||
	fail "report"
python3 - "$T/json" "$T/before" "$T/after" "$T/wl.out" "$T/rec.err" \
	"$pid" "$T/table" <<'PY' || fail "checks"
import json, re, sys
d = json.load(open(sys.argv[1]))
def snap(path):
    rt = {}
    for l in open(path):
        m = re.match(r"/proc/(\d+)/task/(\d+)/schedstat (\d+)", l)
        if m:
            rt[(int(m.group(1)), int(m.group(2)))] = int(m.group(3))
    return rt
before, after = snap(sys.argv[2]), snap(sys.argv[3])
wl = dict(kv.split("=") for kv in open(sys.argv[4]).read().split())
summary = open(sys.argv[5]).read()
burner = int(sys.argv[6])
table = open(sys.argv[7]).read()
h, s = d["header"], d["sched"]

total, over = 0, []
for p in s["processes"]:
    for t in p["threads"]:
        on, k = t["on_cpu_ns"], (p["pid"], t["tid"])
        total += on
        # (a thread that lived through both reads; 1 ms: the count of a
        # running thread lags by up to a tick)
        if k in before and k in after and after[k] >= before[k] and \
           on > after[k] - before[k] + 1000000:
            over.append((k, t["comm"], on, after[k] - before[k]))
assert not over, "on-CPU beyond the kernel's run time: %s" % over
limit = h["ncpus"] * h["duration_s"] * 1e9
print("on-CPU summed %.3f s, %d CPUs x %.3f s = %.3f s" %
      (total / 1e9, h["ncpus"], h["duration_s"], limit / 1e9))
assert total <= limit, "on-CPU %d ns beyond CPUs x duration" % total

def thread(pid, tid):
    for p in s["processes"]:
        if p["pid"] == pid:
            for t in p["threads"]:
                if t["tid"] == tid:
                    return t
    raise AssertionError("thread %d/%d not in the report" % (pid, tid))
tid = int(wl["tid"])
t = thread(tid, tid)
r = t["on_cpu_ns"] / int(wl["cpu_ns"])
print("offcpu_sleep on-CPU %d ns, its own count %s ns: %.3f" %
      (t["on_cpu_ns"], wl["cpu_ns"], r))
assert 0.97 <= r <= 1.05, "offcpu_sleep on-CPU is %.3f of the truth" % r
assert not t["on_cpu_partial"], "offcpu_sleep not measured in full"
# on a CPU, or runnable, when recording began: seeded from /proc
for p in s["processes"]:
    if p["pid"] == burner:
        assert p["on_cpu_ns"] > 0, "cpu_split shows no on-CPU time"
        for t in p["threads"]:
            assert not t["on_cpu_partial"], "cpu_split %d partial" % t["tid"]
        break
else:
    raise AssertionError("cpu_split (pid %d) not in the report" % burner)

m = re.search(r" (\d+) lost", summary)
assert m and int(m.group(1)) == h["lost"], \
    "summary %s, JSON lost %d" % (summary, h["lost"])
# switches the kernel did not report are no records lost
if "records lost by" in summary:
    assert any(l["source"] != "unresolved" or l["event"] != "sched"
               for p in h["lost_by_process"] for l in p["lost"]), summary
partial = s["on_cpu_partial_threads"]
shown = re.search(r"^# on-CPU: (\d+) threads ran for a time not measured",
                  table, re.M)
assert (int(shown.group(1)) if shown else 0) == partial, \
    "JSON %d threads partial, table %s" % (partial, shown)
print("threads partly measured: %d" % partial)
PY
exit 0
