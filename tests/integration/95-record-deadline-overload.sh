#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Under overload (a busy loop on every CPU and two threads making
# syscalls flat out), record -d is a bound: -d 2 with cpu, syscall and
# sched ends within 3 s of the window's start (the first sensor's attach,
# as record -v prints it in CLOCK_MONOTONIC; the clock read here when
# the recorder has exited), the file says 2 s, and -F 4999 -d 2 holds no
# more samples than the CPUs can take in 2 s.  The window used to start
# after the sensors and be checked only between poll passes that also
# built unwind tables: -d 3 lasted 12 s, -d 10 held 114,329 samples on
# 2 CPUs.  On a machine busier than its CPUs before the test starts, the
# wall clock is noted, not checked (every step of the recorder stretches
# with the load of others); the window's own bounds are always checked.
. tests/integration/lib.sh
need_bpf
need_cmd python3

ncpu=$(nproc)
# the wall clock bound is for the test's own overload: a machine already
# busier than its CPUs (other users' builds) stretches every step of the
# recorder beyond it, and only the bounds by the events' clock are checked
foreign=$(awk -v n="$ncpu" '{ print ($1 > n) }' /proc/loadavg)
pids=
i=0
while [ $i -lt "$ncpu" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
"$WL/syscall_exact" 1000000000 0 2 &
pids="$pids $!"
trap 'kill $pids 2>/dev/null; rm -rf "$T"' EXIT

# runs record with the arguments; prints the seconds from the window's
# start to the recorder's exit
cat >"$T/run.py" <<'EOF'
import re, subprocess, sys, time
p = subprocess.run(sys.argv[2:], stderr=subprocess.PIPE, timeout=120)
end = time.monotonic()
err = p.stderr.decode(errors="replace")
open(sys.argv[1], "w").write(err)
if p.returncode:
    sys.exit("record exited %d: %s" % (p.returncode, err[-2000:]))
m = re.search(r"window: CLOCK_MONOTONIC ([0-9.]+) to", err)
if not m:
    sys.exit("no window line: " + err[-2000:])
print("%.3f" % (end - float(m.group(1))))
EOF

duration() {
	"$APERTURE" report -i "$1" --format json 2>/dev/null |
		sed -n 's/.*"duration_s": \([0-9.]*\).*/\1/p' | head -1
}

el=$(python3 "$T/run.py" "$T/d.err" "$APERTURE" record -v -a \
	-e cpu,syscall,sched -d 2 -o "$T/d.data") || fail "record -d 2: $el"
grep -q "unavailable" "$T/d.err" && fail "a sensor did not run: $(grep unavailable "$T/d.err")"
late() {
	within "$1" 0 3 && return 1
	[ "$foreign" = 1 ] && {
		echo "note: $2 ended $1 s after its window started, on a machine busy before the test ($(cut -d' ' -f1 /proc/loadavg))"
		return 1
	}
	return 0
}
late "$el" "record -d 2" &&
	fail "record -d 2 ended $el s after its window started: $(grep '^aperture: [0-9.]* s recorded' "$T/d.err")"
dur=$(duration "$T/d.data")
within "$dur" 1.99 2.01 || fail "record -d 2 recorded $dur s"
# the sums read at the end, after the window, are the window's
calls=$("$APERTURE" report -i "$T/d.data" --events syscall 2>/dev/null |
	awk '$1 == "read" { print $2; exit }')
[ "${calls:-0}" -gt 1000 ] ||
	fail "the storm's read calls are not in the recording: ${calls:-none}"

el=$(python3 "$T/run.py" "$T/f.err" "$APERTURE" record -v -a -F 4999 -d 2 \
	-o "$T/f.data") || fail "record -F 4999 -d 2: $el"
late "$el" "record -F 4999 -d 2" &&
	fail "record -F 4999 -d 2 ended $el s after its window started"
n=$("$APERTURE" report -i "$T/f.data" --format json 2>/dev/null |
	sed -n 's/.*"samples": \([0-9]*\).*/\1/p' | head -1)
max=$((ncpu * 4999 * 2 * 102 / 100))
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "no samples in $T/f.data"
[ "$n" -le $max ] || fail "$n samples in 2 s on $ncpu CPUs at 4999 Hz (at most $max)"
exit 0
