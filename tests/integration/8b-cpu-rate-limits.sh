#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The highest accepted CPU sampling rate leaves the target most of its
# CPU: a fixed amount of work takes less than twice its user time
# unprofiled (the workload's own accounting, from time(1)), at -F max and
# at -c 100 on cpu-clock, which is lengthened in one line; SIGINT ends a
# recording at that rate at once.  Bounds are generous: CPU time, not
# wall time, is compared.
. tests/integration/lib.sh
need_bpf
need_cmd /usr/bin/time

cpu_user() {	# the user seconds time(1) wrote in $1
	sed -n 's/^user \([0-9.]*\)$/\1/p' "$1" | tail -1
}

/usr/bin/time -f 'user %U' -o "$T/base.t" "$WL/cpu_split" n300 ||
	fail "cpu_split alone"
base=$(cpu_user "$T/base.t")

timeout 120 "$APERTURE" record -F max -o "$T/max.data" -- \
	/usr/bin/time -f 'user %U' -o "$T/max.t" "$WL/cpu_split" n300 \
	2>"$T/max.err" || fail "record -F max: $(cat "$T/max.err")"
max=$(cpu_user "$T/max.t")
echo "user time: alone $base s, at -F max $max s"
awk -v b="$base" -v m="$max" 'BEGIN { exit !(m < 2 * b + 0.1) }' ||
	fail "at -F max the workload took $max s of user time, alone $base s: $(cat "$T/max.err")"

timeout 120 "$APERTURE" record -e cpu-clock -c 100 -o "$T/c.data" -- \
	/usr/bin/time -f 'user %U' -o "$T/c.t" "$WL/cpu_split" n300 \
	2>"$T/c.err" || fail "record -c 100: $(cat "$T/c.err")"
c=$(cpu_user "$T/c.t")
awk -v b="$base" -v m="$c" 'BEGIN { exit !(m < 2 * b + 0.1) }' ||
	fail "at -c 100 the workload took $c s of user time, alone $base s"
[ "$(grep -c 'not every 100 ns' "$T/c.err")" = 1 ] ||
	fail "-c 100: not one line saying the period changed: $(cat "$T/c.err")"
"$APERTURE" report -i "$T/c.data" 2>/dev/null |
	grep -q '^# sensor  : cpu from cpu-clock, every [0-9]* ns (asked 100)' ||
	fail "-c 100: the recording does not say its period"

# SIGINT at the highest rate: record ends, the file is whole
"$APERTURE" record -F max -o "$T/int.data" -- "$WL/cpu_split" 60 \
	2>"$T/int.err" &
pid=$!
sleep 2
kill -INT $pid
n=0
while kill -0 $pid 2>/dev/null && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -0 $pid 2>/dev/null && { kill -9 $pid; fail "record still running 10 s after SIGINT"; }
wait $pid
"$APERTURE" report -i "$T/int.data" >/dev/null 2>&1 ||
	fail "report of the interrupted recording"

# -F over the kernel's limit is refused in one line naming it
"$APERTURE" record -F 100000000 -o "$T/no.data" -- true 2>"$T/no.err" &&
	fail "-F 100000000 accepted"
grep -q 'perf_event_max_sample_rate' "$T/no.err" || fail "-F over the limit: $(cat "$T/no.err")"
echo ok
