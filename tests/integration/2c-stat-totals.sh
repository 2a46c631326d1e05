#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture stat -e io, sched, lock: the kernel's totals against truths
# outside aperture: io_file's known calls and bytes (and strace -c -f's
# counts of the same calls), offcpu_sleep's own switch counts (getrusage)
# and CPU time, the kernel's context-switches counter of the same run,
# /proc/PID/status's switches of a process counted with -p, futex_loop's
# count of its futex waits; -r's means and spreads, -I's intervals adding
# up to the total, -a, and what they refuse (-t, syscall with -I).
. tests/integration/lib.sh
need_bpf

# the value of event $1 in CSV file $2 (value,unit,event,...)
val() { awk -F, -v e="$1" '$3 == e { print $1; exit }' "$2"; }
# is $1 within $3 of $2?
near() { awk -v a="$1" -v b="$2" -v d="$3" \
	'BEGIN { x = a - b; if (x < 0) x = -x; exit !(x <= d) }'; }

# io: three times BYTES each way (io_file.c), plus what ld.so reads and
# io_file's line on stdout
BYTES=1200000
"$APERTURE" stat -e io -x, -o "$T/io.csv" -- \
	"$WL/io_file" "$T/f" $BYTES >"$T/io.out" ||
	fail "stat -e io: $(cat "$T/io.csv")"
cat "$T/io.csv"
out=$(wc -c <"$T/io.out")
[ "$(val io:write-bytes "$T/io.csv")" = $((3 * BYTES + out)) ] ||
	fail "io:write-bytes $(val io:write-bytes "$T/io.csv"), want $((3 * BYTES + out))"
rb=$(val io:read-bytes "$T/io.csv")
[ "$rb" -ge $((3 * BYTES)) ] && [ "$rb" -lt $((3 * BYTES + 65536)) ] ||
	fail "io:read-bytes $rb, want 3 * $BYTES and what ld.so reads"
[ "$(val io:read-errors "$T/io.csv")" = 0 ] || fail "io:read-errors"
[ "$(val io:write-errors "$T/io.csv")" = 0 ] || fail "io:write-errors"
awk -F, '$3 == "io:read-time" && $2 == "msec" && $1 > 0' "$T/io.csv" |
	grep -q . || fail "no io:read-time in msec"
if command -v strace >/dev/null 2>&1; then
	strace -c -f -o "$T/strace" "$WL/io_file" "$T/g" $BYTES >/dev/null ||
		fail "strace run"
	# copy_file_range and sendfile read one file and write another:
	# a call each way
	sc() { awk -v s="$1" '$NF == s { n = $4 } END { print n + 0 }' \
		"$T/strace"; }
	r=$(($(sc read) + $(sc pread64) + $(sc readv) + $(sc copy_file_range) +
	     $(sc sendfile)))
	w=$(($(sc write) + $(sc pwrite64) + $(sc writev) +
	     $(sc copy_file_range) + $(sc sendfile)))
	[ "$(val io:read-calls "$T/io.csv")" = $r ] ||
		fail "io:read-calls $(val io:read-calls "$T/io.csv"), strace $r"
	[ "$(val io:write-calls "$T/io.csv")" = $w ] ||
		fail "io:write-calls $(val io:write-calls "$T/io.csv"), strace $w"
	echo "strace -c -f agrees: $r reads, $w writes"
fi

# sched: the workload's own counts (getrusage, at its end: a switch or
# two of its exit may follow) and the kernel's counter of the same run
"$APERTURE" stat -e context-switches,task-clock,sched -x, -o "$T/s.csv" -- \
	"$WL/offcpu_sleep" slices 100 >"$T/s.out" ||
	fail "stat -e sched: $(cat "$T/s.csv")"
cat "$T/s.out" "$T/s.csv"
nv=$(sed -n 's/.* nvcsw=\([0-9]*\) .*/\1/p' "$T/s.out")
vol=$(val sched:voluntary-switches "$T/s.csv")
inv=$(val sched:involuntary-switches "$T/s.csv")
# getrusage also counts the switch of the held command before its exec
near "$vol" "$nv" 3 || fail "sched:voluntary-switches $vol, getrusage $nv"
cs=$(val context-switches "$T/s.csv")
near $((vol + inv)) "$cs" 3 ||
	fail "sched switches $vol + $inv, context-switches $cs"
# on-CPU: the kernel's run time, as task-clock counts it
on=$(val sched:on-cpu "$T/s.csv")
tc=$(val task-clock "$T/s.csv")
near "$on" "$tc" "$(awk -v t="$tc" 'BEGIN { print t * 0.05 + 5 }')" ||
	fail "sched:on-cpu $on ms, task-clock $tc ms"
awk -F, '$3 == "sched:off-cpu-blocked" && $1 > 0' "$T/s.csv" | grep -q . ||
	fail "no blocked time: it sleeps 100 times"

# -p: a process's switches while counted, within what /proc says it
# made from before the start to after the end
"$WL/offcpu_sleep" 1000 0 >/dev/null &
pid=$!
before=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$pid/status)
"$APERTURE" stat -e sched -x, -o "$T/p.csv" -p $pid -- sleep 0.5 ||
	fail "stat -p: $(cat "$T/p.csv")"
after=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$pid/status)
kill $pid 2>/dev/null
wait $pid 2>/dev/null
cat "$T/p.csv"
vol=$(val sched:voluntary-switches "$T/p.csv")
[ "$vol" -gt 0 ] && [ "$vol" -le $((after - before)) ] ||
	fail "-p: sched:voluntary-switches $vol, /proc $before to $after"

# lock: futex_loop's waits, each one EAGAIN
N=5000
"$APERTURE" stat -e lock -x, -o "$T/l.csv" -- "$WL/futex_loop" $N \
	>"$T/l.out" || fail "stat -e lock: $(cat "$T/l.csv")"
cat "$T/l.out" "$T/l.csv"
grep -q "calls $N eagain $N" "$T/l.out" || fail "futex_loop: $(cat "$T/l.out")"
[ "$(val lock:futex-waits "$T/l.csv")" = $N ] ||
	fail "lock:futex-waits $(val lock:futex-waits "$T/l.csv"), want $N"
[ "$(val lock:wait-errors "$T/l.csv")" = $N ] ||
	fail "lock:wait-errors $(val lock:wait-errors "$T/l.csv"), want $N"
awk -F, '$3 == "lock:wait-max" { m = $1 } $3 == "lock:wait-time" { t = $1 }
	END { exit !(t > 0 && m <= t) }' "$T/l.csv" ||
	fail "lock:wait-max above lock:wait-time"

# -r: each run's exact counts, so their mean, with a spread of 0
"$APERTURE" stat -r 2 -e io,lock -x, -o "$T/r.csv" -- \
	"$WL/futex_loop" $N >/dev/null || fail "stat -r 2"
cat "$T/r.csv"
awk -F, '$3 == "lock:futex-waits"' "$T/r.csv" | grep -q "^$N,,lock:futex-waits,0.00%," ||
	fail "-r 2: no mean of $N with a spread of 0"
# the aligned block: the spread where there is one
"$APERTURE" stat -r 2 -e sched -o "$T/r.txt" -- "$WL/offcpu_sleep" slices 20 \
	>/dev/null || fail "stat -r 2 aligned"
cat "$T/r.txt"
grep -Eq "^ +[0-9.,]+ msec sched:on-cpu +# +[0-9.]+ CPUs utilized" "$T/r.txt" ||
	fail "no sched:on-cpu line"
grep -q "(2 runs)" "$T/r.txt" || fail "no (2 runs)"

# -I: the intervals add up to the workload's own count
"$APERTURE" stat -e sched -I 50 -x, -o "$T/i.csv" -- \
	"$WL/offcpu_sleep" slices 200 >"$T/i.out" || fail "stat -I"
nv=$(sed -n 's/.* nvcsw=\([0-9]*\) .*/\1/p' "$T/i.out")
n=$(awk -F, '$4 == "sched:voluntary-switches"' "$T/i.csv" | wc -l)
sum=$(awk -F, '$4 == "sched:voluntary-switches" { s += $2 } END { print s }' \
	"$T/i.csv")
[ "$n" -ge 2 ] || fail "-I 50: $n intervals"
near "$sum" "$nv" 3 || fail "-I: intervals add up to $sum, getrusage $nv"

# -a: the whole system's
"$APERTURE" stat -a -e sched,io -x, -o "$T/a.csv" -- \
	sleep 0.3 || fail "stat -a: $(cat "$T/a.csv")"
cat "$T/a.csv"
awk -F, '$3 == "sched:on-cpu" && $1 > 0' "$T/a.csv" | grep -q . ||
	fail "-a: no on-CPU time"
[ "$(val io:read-calls "$T/a.csv")" -gt 0 ] || fail "-a: no reads"

# what they cannot do, said
"$APERTURE" stat -e io -t 1 2>"$T/err" && fail "-t with io accepted"
grep -q "not -t" "$T/err" || fail "-t: $(cat "$T/err")"
"$APERTURE" stat -e io,syscall -I 100 -- true 2>"$T/err" &&
	fail "-I with syscall accepted"
grep -q "syscall is summed at the end" "$T/err" || fail "-I: $(cat "$T/err")"
"$APERTURE" stat -e io:calls -- true 2>"$T/err" && fail "io:calls accepted"
grep -q "valid events: .*, io, sched, lock" "$T/err" ||
	fail "unknown event: $(cat "$T/err")"
exit 0
