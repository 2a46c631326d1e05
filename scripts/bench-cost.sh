#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, tracing cost section: the CPU time each tool's BPF programs
# take per event of the workload, from kernel.bpf_stats_enabled (the
# kernel's run time per program: far less noisy on a shared machine than
# the workload's own time, which bench-syscall.sh and bench-sched.sh
# print).  Against the lightest peers, in the same run, in turn, median of
# ROUNDS:
#   -e syscall per call    syscount -L (count, errors, latency)   goal <= 1
#   -e io per call         syscount -L                            goal <= 1.5
#   -e sched per switch    offcputime (stacks)                    goal <= 1
# Workloads: syscall_exact N (2N read and write calls), offcpu_sleep
# pingpong R (2R switches).  A program's time is what its runs took
# between two snapshots around the workload; which programs are a tool's:
# those loaded after it started, by name.  syscount's tp/ programs also
# cost the perf record their tracepoint builds, which bpf_stats leaves
# out: the ratios are if anything unkind to aperture.
# Env from scripts/bench.sh: BUILD, APERTURE, WL, B.
set -u
: "${APERTURE:?run from scripts/bench.sh}" "${WL:?}" "${B:?}"
SYSCOUNT=${SYSCOUNT:-/usr/sbin/syscount}
OFFCPUTIME=${OFFCPUTIME:-/usr/sbin/offcputime}
N=${COST_BENCH_N:-200000}
R=${COST_BENCH_ROUNDS:-50000}
ROUNDS=${COST_BENCH_RUNS:-5}

echo "== tracing cost per event, BPF run time (kernel.bpf_stats_enabled), median of $ROUNDS, tools in turn =="
for t in "$SYSCOUNT" "$OFFCPUTIME"; do
	[ -x "$t" ] || { echo "cost: skipped, needs libbpf-tools ($t)"; exit 0; }
done
command -v bpftool >/dev/null || { echo "cost: skipped, needs bpftool"; exit 0; }
stats=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null)
[ -n "$stats" ] || { echo "cost: skipped, no kernel.bpf_stats_enabled"; exit 0; }
# bpf_stats counts while a file descriptor from BPF_ENABLE_STATS or the
# sysctl is held; set back at the end
echo 1 >/proc/sys/kernel/bpf_stats_enabled
trap 'echo "$stats" >/proc/sys/kernel/bpf_stats_enabled' EXIT

# "id name run_time_ns" of every BPF program
progs() {
	bpftool prog show | awk '/^[0-9]+:/ {
		id = $1; sub(":", "", id); name = ""; ns = 0
		for (i = 2; i < NF; i++) {
			if ($i == "name") name = $(i + 1)
			if ($i == "run_time_ns") ns = $(i + 1)
		}
		print id, name, ns }'
}
# ns per event between snapshots $1 and $2 of the programs new since
# snapshot $3 whose names match $4; $5 events
per_event() {
	awk -v pat="$4" -v n="$5" '
		FILENAME == ARGV[1] { old[$1] = 1; next }
		FILENAME == ARGV[2] { if (!($1 in old) && $2 ~ pat) a[$1] = $3; next }
		($1 in a) { t += $3 - a[$1] }
		END { printf "%.0f", t / n }' "$3" "$1" "$2"
}
# waits until a program named $2 not in snapshot $1 is loaded (the
# tool has attached: loading takes seconds on a busy machine)
wait_prog() {
	wp=0
	while [ $wp -lt 400 ]; do
		progs | awk -v n="$2" 'FILENAME == ARGV[1] { old[$1] = 1; next }
			!($1 in old) && $2 == n { f = 1 } END { exit !f }' "$1" - &&
			return 0
		sleep 0.05
		wp=$((wp + 1))
	done
	return 1
}
wait_file() {
	wf=0
	while [ ! -e "$1" ] && [ $wf -lt 1200 ]; do
		sleep 0.05
		wf=$((wf + 1))
	done
}

# aperture record -e $1 of a shell that runs syscall_exact N between two
# snapshots once the probes are attached
cost_ap_sc() {
	rm -f "$B/go" "$B/done"
	progs >"$B/p0"
	"$APERTURE" record -e "$1" -o "$B/cost.data" -- sh -c \
		"while [ ! -e $B/go ]; do sleep 0.02; done
		$WL/syscall_exact $N; touch $B/done; sleep 0.3" \
		>/dev/null 2>"$B/cost.err" &
	ap=$!
	wait_prog "$B/p0" "ap_$1_exit"
	sleep 0.5
	progs >"$B/p1"
	touch "$B/go"
	wait_file "$B/done"
	progs >"$B/p2"
	wait $ap
	per_event "$B/p1" "$B/p2" "$B/p0" '^ap_' $((2 * N))
}
cost_syscount() {
	progs >"$B/p0"
	"$SYSCOUNT" -L >/dev/null 2>&1 &
	sc=$!
	wait_prog "$B/p0" sys_exit
	sleep 0.5
	progs >"$B/p1"
	"$WL/syscall_exact" $N
	progs >"$B/p2"
	kill $sc
	wait $sc 2>/dev/null
	per_event "$B/p1" "$B/p2" "$B/p0" '^sys_(enter|exit)$' $((2 * N))
}
# the pingpong's switches, with the tool attached by pid in its start-up
# delay (5 s: loading aperture's programs takes seconds on a busy machine)
cost_sched() {
	progs >"$B/p0"
	"$WL/offcpu_sleep" pingpong $R 5 >/dev/null &
	w=$!
	if [ "$1" = aperture ]; then
		"$APERTURE" record -e sched -p $w -o "$B/cost.data" \
			>/dev/null 2>"$B/cost.err" &
		pat='^ap_'
		prog=ap_sched_switch
	else
		"$OFFCPUTIME" -p $w 60 >/dev/null 2>&1 &
		pat='^sched_switch$'
		prog=sched_switch
	fi
	t=$!
	wait_prog "$B/p0" $prog
	sleep 0.5
	progs >"$B/p1"
	wait $w
	progs >"$B/p2"
	[ "$1" = aperture ] || kill -INT $t
	wait $t
	per_event "$B/p1" "$B/p2" "$B/p0" "$pat" $((2 * R))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: >"$B/c.sc"; : >"$B/c.io"; : >"$B/c.syscount"; : >"$B/c.ap"; : >"$B/c.oc"
i=0
while [ $i -lt "$ROUNDS" ]; do
	cost_ap_sc syscall >>"$B/c.sc"; echo >>"$B/c.sc"
	cost_ap_sc io >>"$B/c.io"; echo >>"$B/c.io"
	cost_syscount >>"$B/c.syscount"; echo >>"$B/c.syscount"
	cost_sched aperture >>"$B/c.ap"; echo >>"$B/c.ap"
	cost_sched offcputime >>"$B/c.oc"; echo >>"$B/c.oc"
	i=$((i + 1))
done
sc=$(median <"$B/c.sc")
io=$(median <"$B/c.io")
peer=$(median <"$B/c.syscount")
ap=$(median <"$B/c.ap")
oc=$(median <"$B/c.oc")
row() {
	printf '%-22s %6s ns  %-22s %6s ns  x%s (goal <= %s)  [%s]\n' "$1" "$2" \
		"$3" "$4" "$(awk -v a="$2" -v b="$4" 'BEGIN { printf "%.2f", a / b }')" \
		"$5" "$(tr '\n' ' ' <"$6" | sed 's/ *$//')"
}
row "-e syscall per call" "$sc" "syscount -L" "$peer" 1 "$B/c.sc"
row "-e io per call" "$io" "syscount -L" "$peer" 1.5 "$B/c.io"
row "-e sched per switch" "$ap" "offcputime" "$oc" 1 "$B/c.ap"
echo "peers: syscount -L [$(tr '\n' ' ' <"$B/c.syscount" | sed 's/ *$//')], offcputime [$(tr '\n' ' ' <"$B/c.oc" | sed 's/ *$//')]"
