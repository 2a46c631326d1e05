#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench section: the CPU that aperture top itself uses at its default
# settings (999 Hz, a refresh every 2 s, decaying), system-wide and with
# -p, while cpu_split keeps a core busy; against perf top in the same run,
# both on a terminal (a pty), as people run them.
# Goal: under 5 % of one core (TOP_BENCH_INTERVALS sets the refreshes,
# default 6).  Run by scripts/bench.sh with BUILD,
# APERTURE, WL and B set.
set -u
: "${APERTURE:?run from scripts/bench.sh}" "${WL:?}" "${B:?}"

INTERVALS=${TOP_BENCH_INTERVALS:-6}
DELAY=2
RUN=$((INTERVALS * DELAY))

# cpu_seconds CMD..: user + system seconds of CMD and its children
# (timeout's 124 is how perf top is stopped: not a failure)
cpu_seconds() {
	/usr/bin/time -f '%U %S' -o "$B/time" "$@" >/dev/null 2>"$B/stderr"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then
		echo "bench-top: '$*' failed ($rc): $(tail -3 "$B/stderr")" >&2
		echo 0
		return
	fi
	tail -1 "$B/time" | awk '{ print $1 + $2 }'
}
pct() { awk -v c="$1" -v s="$2" 'BEGIN { printf "%.2f", 100 * c / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

[ -x /usr/bin/time ] || { echo "bench-top: needs /usr/bin/time (GNU time)" >&2; exit 0; }

echo "== top: aperture top's own CPU, ${INTERVALS} refreshes of ${DELAY} s at 999 Hz, cpu_split busy =="
"$WL/cpu_split" $((RUN * 7 + 20)) &
wl=$!
trap 'kill $wl 2>/dev/null; wait $wl 2>/dev/null' EXIT
sleep 0.3

# start-up alone (loading BPF, kallsyms): one refresh after 0.1 s
for mode in system-wide pid; do
	if [ $mode = pid ]; then args="-p $wl"; else args=""; fi
	start=$(cpu_seconds "$APERTURE" top -b -n 1 -d 0.1 $args)
	total=$(cpu_seconds "$APERTURE" top -b -n $INTERVALS -d $DELAY $args)
	steady=$(awk -v t="$total" -v s="$start" -v r="$RUN" \
		'BEGIN { d = t - s; if (d < 0) d = 0; print d }')
	printf 'aperture top (%s): %ss CPU over %ss: %s%% of one core with start-up (%ss), %s%% after it (goal < 5)\n' \
		"$mode" "$total" "$RUN" "$(pct "$total" "$RUN")" "$start" \
		"$(pct "$steady" "$RUN")"
	[ $mode = pid ] && ap_pid=$total || ap_sw=$total
done

if command -v perf >/dev/null && command -v script >/dev/null; then
	# perf top, like aperture top, as a user runs it: on a terminal (a
	# pty from script(1)); without one perf top --stdio spins on its
	# input at 100 % of a core.  Both stopped by SIGINT after the same
	# time, from inside the pty so that their CPU reaches time(1).
	# (without -e: perf top here aborts as it exits, after its run; its
	# CPU still counts, and a tool that did not run shows next to none)
	tty_cpu() {
		cpu_seconds script -qc "timeout -s INT $RUN $*" /dev/null </dev/null
	}
	pf_sw=$(TERM=xterm tty_cpu perf top -F 999 -d $DELAY)
	pf_pid=$(TERM=xterm tty_cpu perf top -F 999 -d $DELAY -p $wl)
	at_sw=$(TERM=xterm tty_cpu "$APERTURE" top -d $DELAY)
	at_pid=$(TERM=xterm tty_cpu "$APERTURE" top -d $DELAY -p $wl)
	row() {	# WHO MODE SECONDS
		printf '%s on a pty (%s): %ss CPU over %ss: %s%% of one core\n' \
			"$1" "$2" "$3" "$RUN" "$(pct "$3" "$RUN")"
	}
	row "perf top" system-wide "$pf_sw"
	row "perf top" pid "$pf_pid"
	row "aperture top" system-wide "$at_sw"
	row "aperture top" pid "$at_pid"
	echo "CPU aperture top / perf top -F 999, both on a pty: system-wide x$(ratio "$at_sw" "$pf_sw"), pid x$(ratio "$at_pid" "$pf_pid") (lower is better; goal <= 1)"
fi
