#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, syscall section: the slowdown of a syscall-heavy workload
# (read and write calls, flat out, one thread) under aperture record -e
# syscall, perf trace -s and strace -c -f, in the same run.  Goals:
# aperture no slower than perf trace, at least 10x less slowdown than
# strace.  Two measures: the workload's own loop time (what tracing each
# call costs) and wall clock (with each tool's start-up).
# Env from scripts/bench.sh: BUILD, APERTURE, WL, B.
set -u
: "${APERTURE:?run from scripts/bench.sh}" "${WL:?}" "${B:?}"
N=${SYSCALL_BENCH_N:-100000}
RUNS=3
CALLS=$((2 * N))

# best of RUNS: "WALL_S LOOP_NS" of a command running syscall_exact, or
# "fail" when the command failed
best_of() {
	best_w=
	best_l=
	i=0
	while [ $i -lt $RUNS ]; do
		s=$(date +%s.%N)
		SYSCALL_EXACT_TIME=1 "$@" >/dev/null 2>"$B/sc.err" || {
			echo fail
			return
		}
		e=$(date +%s.%N)
		w=$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')
		l=$(awk '$1 == "loop_ns" { print $2 }' "$B/sc.err" | tail -1)
		[ -n "$l" ] || { echo fail; return; }
		best_w=$(awk -v a="${best_w:-1e9}" -v b="$w" 'BEGIN { print (b < a) ? b : a }')
		best_l=$(awk -v a="${best_l:-1e18}" -v b="$l" 'BEGIN { print (b < a) ? b : a }')
		i=$((i + 1))
	done
	echo "$best_w $best_l"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# (x - base) / (y - base): how many times more extra time y costs than x
extra_ratio() {
	awk -v x="$1" -v y="$2" -v b="$3" 'BEGIN {
		if (x - b <= 0) { print "inf"; exit } printf "%.1f", (y - b) / (x - b) }'
}

echo "== syscall tracing: $WL/syscall_exact $N ($CALLS read+write calls, best of $RUNS) =="
set -- $(best_of "$WL/syscall_exact" $N)
base_w=$1
base_l=$2
set -- $(best_of "$APERTURE" record -e syscall -o "$B/sc.data" -- "$WL/syscall_exact" $N)
[ "$1" != fail ] || { echo "aperture record -e syscall failed: $(tail -1 "$B/sc.err")"; exit 1; }
ap_w=$1
ap_l=$2
"$APERTURE" report -i "$B/sc.data" --events syscall >"$B/sc.txt" 2>&1
ap_lost=$(awk '/^# Lost:/ { print $3 + $8 }' "$B/sc.txt")
ap_reads=$(awk '$1 == "read" { print $2 }' "$B/sc.txt")
# -e io traces the same read and write calls (summed in the kernel too)
set -- $(best_of "$APERTURE" record -e io -o "$B/io.data" -- "$WL/syscall_exact" $N)
io_l=
[ "$1" != fail ] && io_l=$2

pt_w=
if command -v perf >/dev/null 2>&1; then
	set -- $(best_of perf trace -s -o "$B/ptrace.txt" -- "$WL/syscall_exact" $N)
	if [ "$1" != fail ]; then
		pt_w=$1
		pt_l=$2
	else
		pt_err=$(grep -v '^loop_ns' "$B/sc.err" | head -2 | tr '\n' ' ')
	fi
else
	pt_err="perf is not installed"
fi
st_w=
if command -v strace >/dev/null 2>&1; then
	set -- $(best_of strace -c -f -o "$B/strace.txt" "$WL/syscall_exact" $N)
	[ "$1" != fail ] && { st_w=$1; st_l=$2; }
fi

ns_call() { awk -v l="$1" -v n="$CALLS" 'BEGIN { printf "%.0f", l / n }'; }
printf "%-28s %9s %10s %10s %10s\n" "" "wall s" "loop ms" "ns/call" "slowdown"
row() {
	printf "%-28s %9.3f %10.1f %10s %9sx\n" "$1" "$2" \
		"$(awk -v l="$3" 'BEGIN { print l / 1e6 }')" "$(ns_call "$3")" \
		"$(ratio "$3" "$base_l")"
}
row "workload alone" "$base_w" "$base_l"
row "aperture record -e syscall" "$ap_w" "$ap_l"
[ -n "$io_l" ] && row "aperture record -e io" 0 "$io_l"
if [ -n "$pt_w" ]; then
	row "perf trace -s" "$pt_w" "$pt_l"
else
	echo "perf trace -s: failed on this machine: ${pt_err:-no output}"
fi
[ -n "$st_w" ] && row "strace -c -f" "$st_w" "$st_l"
echo "aperture recorded $ap_reads of $N reads, $ap_lost lost"

if [ -n "$pt_w" ]; then
	echo "aperture vs perf trace: slowdown x$(ratio "$ap_l" "$base_l") vs x$(ratio "$pt_l" "$base_l");" \
		"perf trace costs x$(extra_ratio "$ap_l" "$pt_l" "$base_l") aperture's extra time (goal >= 1)"
fi
if [ -n "$st_w" ]; then
	echo "aperture vs strace: strace's slowdown is x$(ratio "$st_l" "$ap_l") aperture's," \
		"its extra time x$(extra_ratio "$ap_l" "$st_l" "$base_l") (goal >= 10)"
fi
# added cost per call against libbpf-tools syscount -L (counts and
# latencies summed in BPF maps, the cheapest exact tracer there is),
# started before the workload and attached to every process; goals
# (issue 30): -e syscall's added ns per call at most syscount's, -e io's
# at most 1.5x (bench-cost.sh has the same from BPF run time, less noisy)
SYSCOUNT=${SYSCOUNT:-/usr/sbin/syscount}
if [ -x "$SYSCOUNT" ]; then
	sc_l=
	i=0
	while [ $i -lt $RUNS ]; do
		"$SYSCOUNT" -L >"$B/syscount.txt" 2>&1 &
		sc=$!
		sleep 1
		SYSCALL_EXACT_TIME=1 "$WL/syscall_exact" $N >/dev/null 2>"$B/sc.err"
		kill $sc
		wait $sc
		l=$(awk '$1 == "loop_ns" { print $2 }' "$B/sc.err" | tail -1)
		sc_l=$(awk -v a="${sc_l:-1e18}" -v b="$l" 'BEGIN { print (b < a) ? b : a }')
		i=$((i + 1))
	done
	extra() { awk -v l="$1" -v b="$base_l" -v n="$CALLS" 'BEGIN { printf "%.0f", (l - b) / n }'; }
	row "syscount -L (libbpf-tools)" 0 "$sc_l"
	echo "added ns/call: aperture $(extra "$ap_l"), syscount $(extra "$sc_l"):" \
		"aperture/syscount x$(extra_ratio "$sc_l" "$ap_l" "$base_l") (goal <= 1)"
	[ -n "$io_l" ] &&
		echo "added ns/call: aperture -e io $(extra "$io_l"), syscount $(extra "$sc_l"):" \
			"aperture -e io/syscount x$(extra_ratio "$sc_l" "$io_l" "$base_l") (goal <= 1.5)"
else
	echo "syscount: libbpf-tools not installed, skipped"
fi
exit 0
