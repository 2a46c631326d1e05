#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 17,000 threads of an unprivileged user asleep in pause() while record -a
# traces syscalls: a root process's read and write calls are all counted.
# The in-flight table held 16,384 entries for the whole machine; one
# user's sleeping threads filled it and everyone else's calls were lost
# (counted, but lost).  It is now as large as the machine has threads.
. tests/integration/lib.sh
need_bpf
need_cmd setpriv

n=17000
N=20000
[ "$(cat /proc/sys/kernel/pid_max)" -gt $((n + 4000)) ] ||
	skip_tool "pid_max $(cat /proc/sys/kernel/pid_max) leaves no room for $n threads"
nobody_dir
cp "$WL/sleepers" "$T/u/sleepers" && chmod 755 "$T/u/sleepers"

# the command starts once the probes are attached
cat >"$T/run.sh" <<EOF
setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$T/u/sleepers" $n "$T/u/ready" &
sl=\$!
while [ ! -e "$T/u/ready" ]; do
	kill -0 \$sl 2>/dev/null || exit 1
	sleep 0.1
done
"$WL/syscall_exact" $N 0 &
echo \$! >"$T/pid"
wait \$!
rc=\$?
kill \$sl
exit \$rc
EOF
"$APERTURE" record -a -e syscall -o "$T/sc.data" -- sh "$T/run.sh" \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
pid=$(cat "$T/pid")
"$APERTURE" report -i "$T/sc.data" --events syscall --pid "$pid" \
	>"$T/table" 2>"$T/rep.err" || fail "report: $(cat "$T/rep.err")"
calls() { awk -v s="$1" '$1 == s { print $2 }' "$T/table"; }
echo "syscall_exact (pid $pid): read $(calls read), write $(calls write) of $N each"
grep '^# Lost' "$T/table"
grep -q '^# Lost: 0 calls (in-flight table full)' "$T/table" ||
	fail "losses: $(grep '^# Lost' "$T/table")"
# the sanitizer build reads the ring buffer two to three times slower: the
# burst of 17,000 thread starts can still fill it while syscall_exact
# runs.  The in-flight table, what this test is about, does not depend on
# that; the counts are exact whenever no ring record was lost, and always
# with the real build.
ring=$(sed -n 's/^# Lost:.* \([0-9][0-9]*\) ring buffer records.*/\1/p' "$T/table")
if sanitized && [ "${ring:-0}" -gt 0 ]; then
	echo "sanitizer build: $ring ring buffer records lost, counts not exact"
	for c in read write; do
		n=$(calls $c)
		[ -z "$n" ] || [ "$n" -le $N ] || fail "$c calls $n, more than $N"
	done
	exit 0
fi
[ "$(calls read)" = $N ] || fail "read calls $(calls read), want $N"
[ "$(calls write)" = $N ] || fail "write calls $(calls write), want $N"
exit 0
