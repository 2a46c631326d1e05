#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, scheduling section: aperture record -e sched against
# libbpf-tools offcputime on the same workloads in the same run.
#  1. cost per context switch: two threads ping-ponging a byte over pipes
#     (offcpu_sleep pingpong), the workload's own time for its work alone,
#     under aperture and under offcputime, both attached with -p during a
#     start-up delay; best of 3 each.
#  2. agreement: off-CPU time in sleepy_wait's nanosleep seen by both.
#  3. observer effect: a workload's own involuntary switches and run time
#     with one CPU hog per CPU, alone, under aperture and under perf
#     record -e sched:sched_switch.
# Env from scripts/bench.sh: BUILD, APERTURE, WL, B.
set -u
OFFCPUTIME=${OFFCPUTIME:-/usr/sbin/offcputime}
ROUNDS=100000
DELAY=2

echo "== sched: context-switch cost, $WL/offcpu_sleep pingpong $ROUNDS (best of 3) =="
if [ ! -x "$OFFCPUTIME" ]; then
	echo "sched: skipped, needs libbpf-tools offcputime"
	exit 0
fi

work_ns() { sed -n 's/.*work_ns=\([0-9]*\).*/\1/p' "$1"; }
min() { awk -v a="${1:-1e18}" -v b="$2" 'BEGIN { print (b < a) ? b : a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# (y - base) / (x - base): y's added time in units of x's
extra_ratio() {
	awk -v x="$1" -v y="$2" -v b="$3" 'BEGIN {
		if (x - b <= 0) { print "inf"; exit } printf "%.2f", (y - b) / (x - b) }'
}

# runs the workload with a tool attached (none, aperture, offcputime);
# prints the workload's work_ns
run_with() {
	"$WL/offcpu_sleep" pingpong $ROUNDS $DELAY >"$B/pp.out" &
	w=$!
	case $1 in
	aperture)
		"$APERTURE" record -e sched -p $w -o "$B/pp.data" 2>"$B/pp.err" &
		t=$! ;;
	offcputime)
		"$OFFCPUTIME" -p $w 60 >"$B/pp.oc" 2>&1 &
		t=$! ;;
	*)	t= ;;
	esac
	wait $w
	if [ -n "$t" ]; then
		[ "$1" = offcputime ] && kill -INT $t
		wait $t
	fi
	work_ns "$B/pp.out"
}

for tool in none aperture offcputime; do
	best=
	for i in 1 2 3; do
		best=$(min "$best" "$(run_with $tool)")
	done
	eval "t_$tool=$best"
done
sw=$((2 * ROUNDS))
echo "alone            $(ratio "$t_none" 1e6) ms  $(ratio "$t_none" $sw) ns/switch"
echo "aperture -e sched $(ratio "$t_aperture" 1e6) ms  slowdown x$(ratio "$t_aperture" "$t_none")"
echo "offcputime       $(ratio "$t_offcputime" 1e6) ms  slowdown x$(ratio "$t_offcputime" "$t_none")"
echo "extra cost per switch: aperture $(awk -v a="$t_aperture" -v b="$t_none" -v n=$sw 'BEGIN { printf "%.0f", (a - b) / n }') ns, offcputime $(awk -v a="$t_offcputime" -v b="$t_none" -v n=$sw 'BEGIN { printf "%.0f", (a - b) / n }') ns; per switch aperture/offcputime x$(extra_ratio "$t_offcputime" "$t_aperture" "$t_none") (goal <= 1)"
echo "aperture.data $(stat -c %s "$B/pp.data") bytes for about $sw switches"

echo
echo "== sched: off-CPU totals against offcputime, $WL/offcpu_sleep n40 =="
"$WL/offcpu_sleep" n40 $DELAY >"$B/s.out" &
w=$!
"$OFFCPUTIME" -p $w 60 >"$B/s.oc" 2>&1 &
oc=$!
"$APERTURE" record -e sched -p $w -o "$B/s.data" 2>/dev/null
wait $w
kill -INT $oc
wait $oc
peer=$(awk '/^ +__x64_sys_nanosleep$/ { hit = 1 }
	/^ +[0-9]+$/ { if (hit) s += $1; hit = 0 } END { print s + 0 }' "$B/s.oc")
ours=$("$APERTURE" report -i "$B/s.data" --events sched --format folded |
	awk '/;sleepy_wait;/ { s += $NF } END { print s + 0 }')
truth=$(sed -n 's/.*slept_ns=\([0-9]*\).*/\1/p' "$B/s.out")
echo "sleepy_wait off-CPU: aperture $ours us, offcputime $peer us: aperture/offcputime $(ratio "$ours" "$peer"), aperture/workload $(awk -v a="$ours" -v b="$truth" 'BEGIN { printf "%.3f", a * 1000 / b }')"

echo
echo "== sched: observer effect on a loaded machine, $WL/offcpu_sleep slices 1000, one CPU hog per CPU (5 rounds, the three in turn) =="
# the target's own switch counts and run time (getrusage, its clock)
# alone, under aperture record -e sched and under perf record -e
# sched:sched_switch; goal: aperture within 10 % of perf.  A run has a
# few dozen involuntary switches, which vary by a third from run to
# run: summed over 5 rounds, taken in turn so that a change in the
# machine's load reaches all three; run time the median
hogs=
for i in $(seq "$(nproc)"); do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }
median() { sort -n | sed -n 3p; }
for tool in alone aperture perf; do
	: >"$B/obs.inv.$tool"
	: >"$B/obs.wall.$tool"
done
for i in 1 2 3 4 5; do
	for tool in alone aperture perf; do
		case $tool in
		alone)	"$WL/offcpu_sleep" slices 1000 >"$B/obs.out" ;;
		aperture) "$APERTURE" record -e sched -o "$B/obs.data" -- \
			"$WL/offcpu_sleep" slices 1000 >"$B/obs.out" 2>/dev/null ;;
		perf)	perf record -q -e sched:sched_switch -o "$B/obs.perf" -- \
			"$WL/offcpu_sleep" slices 1000 >"$B/obs.out" 2>/dev/null ;;
		esac
		field nivcsw "$B/obs.out" >>"$B/obs.inv.$tool"
		field wall_ns "$B/obs.out" >>"$B/obs.wall.$tool"
	done
done
kill $hogs
for tool in alone aperture perf; do
	eval "inv_$tool=$(awk '{ s += $1 } END { print s + 0 }' "$B/obs.inv.$tool")"
	eval "wall_$tool=$(median <"$B/obs.wall.$tool")"
	eval "inv=\$inv_$tool wall=\$wall_$tool"
	printf '%-9s involuntary switches %6d (%s)  run time %s ms\n' "$tool" \
		"$inv" "$(tr '\n' ' ' <"$B/obs.inv.$tool" | sed 's/ $//')" \
		"$(ratio "$wall" 1e6)"
done
echo "aperture/perf: involuntary switches $(ratio "$inv_aperture" "$inv_perf"), run time $(ratio "$wall_aperture" "$wall_perf") (goal <= 1.10 each)"
