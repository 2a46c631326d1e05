#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture stat -e syscall: the kernel's totals of syscall_exact, which
# makes exactly N read and N write calls per thread and E failing reads
# and opens, against that truth, strace -c -f's counts and perf stat's
# syscalls tracepoints; -x's one line per syscall; -e task-clock,syscall
# mixed; -r; -p; what syscall refuses (-t, -I).
. tests/integration/lib.sh
need_bpf

N=400
E=3
TH=2

# the count and errors of syscall $1 in CSV file $2 (value,,event,errors,..)
calls() { awk -F, -v e="syscalls:$1" '$3 == e { print $1; exit }' "$2"; }
errs() { awk -F, -v e="syscalls:$1" '$3 == e { print $4; exit }' "$2"; }

"$APERTURE" stat -e syscall -x, -o "$T/a.csv" -- \
	"$WL/syscall_exact" $N $E $TH || fail "stat: $(cat "$T/a.csv")"
cat "$T/a.csv"
[ "$(calls read "$T/a.csv")" = $((N * TH + E)) ] ||
	fail "read calls $(calls read "$T/a.csv"), want $((N * TH + E))"
[ "$(errs read "$T/a.csv")" = $E ] ||
	fail "read errors $(errs read "$T/a.csv"), want $E"
[ "$(calls write "$T/a.csv")" = $((N * TH)) ] ||
	fail "write calls $(calls write "$T/a.csv"), want $((N * TH))"
[ "$(errs write "$T/a.csv")" = 0 ] || fail "write errors"
[ "$(errs openat "$T/a.csv")" = $E ] ||
	fail "openat errors $(errs openat "$T/a.csv"), want $E"
# the total is the rows' sum, calls and errors
awk -F, '$3 == "syscalls:total" { tc = $1; te = $4; next }
	$3 ~ /^syscalls:/ { c += $1; e += $4 }
	END { exit !(tc == c && te == e && c > 0) }' "$T/a.csv" ||
	fail "syscalls:total is not the sum of the rows"

# strace -c -f counts the same calls of another run
if command -v strace >/dev/null 2>&1; then
	strace -c -f -o "$T/strace" "$WL/syscall_exact" $N $E $TH ||
		fail "strace run"
	# strace rows: % seconds usecs/call calls [errors] syscall
	for sc in read write openat; do
		c=$(awk -v s=$sc '$NF == s { print $4 }' "$T/strace")
		[ "$(calls $sc "$T/a.csv")" = "$c" ] ||
			fail "$sc: aperture $(calls $sc "$T/a.csv"), strace $c"
	done
	echo "strace -c -f agrees on read, write, openat"
fi
# and perf stat's syscalls tracepoints
if command -v perf >/dev/null 2>&1 &&
   perf stat -x, -e syscalls:sys_enter_read,syscalls:sys_enter_write \
	-o "$T/p.csv" -- "$WL/syscall_exact" $N $E $TH 2>/dev/null; then
	for sc in read write; do
		c=$(awk -F, -v e="syscalls:sys_enter_$sc" \
			'$3 == e { print $1 }' "$T/p.csv")
		[ "$(calls $sc "$T/a.csv")" = "$c" ] ||
			fail "$sc: aperture $(calls $sc "$T/a.csv"), perf $c"
	done
	echo "perf stat's syscalls:sys_enter_* agree"
fi

# the aligned block: the total's line, then the busiest by count
"$APERTURE" stat -e syscall -o "$T/a.txt" -- "$WL/syscall_exact" $N 0 $TH ||
	fail "stat aligned: $(cat "$T/a.txt")"
cat "$T/a.txt"
grep -Eq "^ +[0-9,]+ +syscalls:total +#  [0-9]+ errors, [0-9.]+ [mun]?s in calls\$" \
	"$T/a.txt" || fail "no syscalls:total line"
grep -Eq "^ +800 +syscalls:read +#  0 errors, " "$T/a.txt" ||
	fail "no 'read 800 calls, 0 errors' line"
grep -Eq "^ +800 +syscalls:write +#  0 errors, " "$T/a.txt" ||
	fail "no 'write 800' line"
grep -q "seconds time elapsed" "$T/a.txt" || fail "no elapsed time"
[ "$(grep -c 'syscalls:' "$T/a.txt")" -le 11 ] ||
	fail "more than the 10 busiest syscalls in the aligned block"

# counters and sums together
"$APERTURE" stat -e task-clock,syscall -x, -o "$T/m.csv" -- \
	"$WL/syscall_exact" $N 0 1 || fail "stat -e task-clock,syscall"
cat "$T/m.csv"
awk -F, '$3 == "task-clock" && $2 == "msec"' "$T/m.csv" | grep -q . ||
	fail "no task-clock line"
[ "$(calls read "$T/m.csv")" = $N ] || fail "mixed: read calls"

# -r: the means of the runs, each exact
"$APERTURE" stat -r 2 -e syscall -x, -o "$T/r.csv" -- \
	"$WL/syscall_exact" $N 0 $TH || fail "stat -r 2"
[ "$(calls read "$T/r.csv")" = $((N * TH)) ] ||
	fail "-r 2: read calls $(calls read "$T/r.csv"), want $((N * TH))"

# -p: a running process's calls while the command runs
"$WL/syscall_exact" 1000000 0 1 2000 &
pid=$!
sleep 0.3
"$APERTURE" stat -e syscall -x, -o "$T/p1.csv" -p $pid -- sleep 1 ||
	fail "stat -p: $(cat "$T/p1.csv")"
kill $pid 2>/dev/null
wait $pid 2>/dev/null
cat "$T/p1.csv"
[ "$(calls read "$T/p1.csv")" -gt 0 ] 2>/dev/null ||
	fail "stat -p counted no read calls"

# what syscall cannot do, said
"$APERTURE" stat -e syscall -I 100 -- true 2>"$T/err" &&
	fail "-I with syscall accepted"
grep -q "syscall is summed at the end" "$T/err" || fail "-I: $(cat "$T/err")"
"$APERTURE" stat -e syscall -t 1 2>"$T/err" && fail "-t with syscall accepted"
grep -q "not -t" "$T/err" || fail "-t: $(cat "$T/err")"
exit 0
