#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Against the peer: libbpf-tools offcputime and aperture record -e sched
# attached (-p) to the same running workload; the off-CPU time each
# reports in sleepy_wait's nanosleep agrees within 10 %, and aperture's
# is within 10 % of the workload's own measure.  The peer's kernel frames
# are compared (__x64_sys_nanosleep: only sleepy_wait makes that call; the
# libc sleep in main() is clock_nanosleep): offcputime symbolizes user
# frames when it prints, after the workload is gone.
. tests/integration/lib.sh
need_bpf
OFFCPUTIME=${OFFCPUTIME:-/usr/sbin/offcputime}
[ -x "$OFFCPUTIME" ] || skip "needs libbpf-tools offcputime"

# 2.5 s asleep in main() while both tools attach, then 40 x (10 ms CPU +
# 30 ms in sleepy_wait).  offcputime at times prints a block without its
# stacks (its stack map is a hash: a collision loses the stack), so a run
# where it saw no nanosleep is tried once more.
wl=
oc=
trap 'kill $wl $oc 2>/dev/null; rm -rf "$T"' EXIT INT TERM
measure() {
	"$WL/offcpu_sleep" n40 2.5 >"$T/wl.out" &
	wl=$!
	"$OFFCPUTIME" -p $wl 60 >"$T/oc.out" 2>"$T/oc.err" &
	oc=$!
	"$APERTURE" record -e sched -p $wl -o "$T/s.data" 2>"$T/rec.err" ||
		fail "record: $(cat "$T/rec.err")"
	wait $wl
	kill -INT $oc
	wait $oc
	slept=$(sed -n 's/.*slept_ns=\([0-9]*\).*/\1/p' "$T/wl.out")
	[ -n "$slept" ] || fail "workload output: $(cat "$T/wl.out")"
	# offcputime: blocks of frames, "- comm (pid)", then microseconds
	peer=$(awk '/^ +__x64_sys_nanosleep$/ { hit = 1 }
		/^ +[0-9]+$/ { if (hit) s += $1; hit = 0 }
		END { print s + 0 }' "$T/oc.out")
}
measure
if [ "$peer" -eq 0 ]; then
	echo "offcputime lost the nanosleep stacks; once more"
	measure
fi
[ "$peer" -gt 0 ] || fail "offcputime saw no nanosleep: $(head -30 "$T/oc.out")"
"$APERTURE" report -i "$T/s.data" --events sched --format folded >"$T/folded" ||
	fail "report"
# blocked time only: a preemption in sleepy_wait's own code before its
# syscall is runnable time with no nanosleep in the kernel stack
ours=$(awk '/;\[off-cpu\];/ && /;__x64_sys_nanosleep_\[k\];/ { s += $NF } END { print s + 0 }' "$T/folded")
user=$(awk '/;\[off-cpu\];/ && /;sleepy_wait;/ { s += $NF } END { print s + 0 }' "$T/folded")
[ "$user" = "$ours" ] || fail "sleepy_wait $user us but nanosleep $ours us"
r=$(awk -v a="$ours" -v b="$peer" 'BEGIN { printf "%.3f", a / b }')
t=$(awk -v a="$ours" -v b="$slept" 'BEGIN { printf "%.3f", a * 1000 / b }')
echo "sleepy_wait off-CPU: aperture $ours us, offcputime $peer us (x$r), workload $((slept / 1000)) us (x$t)"
within "$r" 0.90 1.10 || fail "aperture/offcputime $r"
within "$t" 0.90 1.10 || fail "aperture/truth $t"
exit 0
