#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The recording's duration (the summary's end, report's header) is the
# sensors' window, not the drain after it: a workload makes a burst of
# calls while the recorder is held (SIGSTOP), so that the ring is full
# when the workload has exited and the recorder resumes; the drain then
# has a full ring to write.  The end lies between the workload's own
# last timestamp (CLOCK_MONOTONIC, taken as it exits) and the moment the
# sensors stopped (-v's timing line), before the drain; sched's on-CPU
# time of the workload is its own CPU time (os.times), not cut, and
# within the window.  Both without -d and with a -d the command ends
# before.
. tests/integration/lib.sh
need_bpf
need_cmd python3

cat >"$T/burst.py" <<'PY'
import os, sys, time
d, n = sys.argv[1], int(sys.argv[2])
open(d + "/pid.tmp", "w").write(str(os.getpid()))
os.rename(d + "/pid.tmp", d + "/pid")
# the burst starts once the recorder is held
while not os.path.exists(d + "/held"):
    time.sleep(0.01)
for i in range(n):
    os.getppid()
c = os.times()
t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
open(d + "/t1", "w").write("%d %d\n" % (t1, (c.user + c.system) * 1e9))
PY

# wait until file $1 exists (at most 30 s)
wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 3000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	[ -e "$1" ] || fail "no $1: $(cat "$T/rec.err")"
}

# run NAME CALLS RECORD-OPTIONS...
run() {
	name=$1 calls=$2
	shift 2
	rm -f "$T/pid" "$T/held" "$T/t1"
	"$APERTURE" record -v -e syscall:calls,sched -m 16M "$@" \
		-o "$T/$name.data" -- python3 "$T/burst.py" "$T" $calls \
		>"$T/rec.out" 2>"$T/rec.err" &
	rec=$!
	wait_for "$T/pid"
	kill -STOP $rec
	touch "$T/held"
	wait_for "$T/t1"
	# the workload has exited: a zombie, the recorder held
	wpid=$(cat "$T/pid")
	i=0
	while [ "$(awk '{ print $3 }' /proc/$wpid/stat 2>/dev/null)" != Z ] &&
	      [ $i -lt 3000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	kill -CONT $rec
	wait $rec || fail "record $*: $(grep -v libbpf "$T/rec.err")"
	grep -e "^aperture: [0-9.]* s recorded" -e "^aperture: [0-9]* samples" "$T/rec.err"
	"$APERTURE" report -i "$T/$name.data" --events sched --format json \
		>"$T/$name.json" 2>"$T/rep.err" ||
		fail "report: $(cat "$T/rep.err")"
	python3 - "$T" "$name" <<'PY' || fail "$name: the duration is not the window"
import json, re, sys
t, name = sys.argv[1], sys.argv[2]
err = open(t + "/rec.err").read()
m = re.search(r"window: CLOCK_MONOTONIC ([0-9.]+) to ([0-9.]+) s.*"
              r"sensors stopped at ([0-9.]+) s, ring drained at ([0-9.]+) s, "
              r"file finished at ([0-9.]+) s", err)
assert m, "no window line"
start, wend, stopped, drained, closed = (round(float(x) * 1e6)
                                         for x in m.groups())
t1, cpu = (int(x) for x in open(t + "/t1").read().split())
js = json.load(open(t + "/" + name + ".json"))
h = js["header"]
# the header's start and duration, in microseconds
hs = h["start_ns"] // 1000
end = hs + round(h["duration_s"] * 1e6)
print("%s: workload ended %d us into the window, the window %d us, "
      "the sensors stopped at %d us, the ring drained %d us after, the "
      "file finished %d us after" % (name, t1 // 1000 - hs, end - hs,
                                     stopped - hs, drained - stopped,
                                     closed - drained))
assert abs(hs - start) <= 1, (hs, start)
assert abs(end - wend) <= 2, (end, wend)
# the workload ran inside the window, which ends before the drain
assert t1 // 1000 <= end, (t1, end)
assert end <= stopped + 1, ("the drain is in the duration", end, stopped)
assert drained > stopped, (drained, stopped)
# the workload's run time: its own, within the window on its CPUs;
# unless the drain ran out of time (0.25 s after -d) and lost its record
if js["header"]["lost"]:
    print("%d records lost in the drain: no run time to check" %
          js["header"]["lost"])
    sys.exit(0)
procs = [p for p in js["sched"]["processes"]
         if p["pid"] == int(open(t + "/pid").read())]
assert procs, "no workload in the sched totals"
on = procs[0]["on_cpu_ns"]
span = (end - hs) * 1000
print("on-CPU %d ns, its own %d ns, window %d ns x %d CPUs" %
      (on, cpu, span, h["ncpus"]))
# os.times() counts in clock ticks (10 ms)
assert on >= cpu - 20e6 - cpu * 0.05, (on, cpu)
assert on <= span * h["ncpus"], (on, span)
PY
}

# a ring about half full (67 bytes a call); with -d the drain has 0.25 s
run plain 120000
run until 30000 -d 120
exit 0
