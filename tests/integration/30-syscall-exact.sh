#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e syscall on a program that makes exactly N read and N write
# calls (plus E failing reads and opens): the counts are exact, the same
# figures strace -c -f gives for every syscall, and nothing is lost.
. tests/integration/lib.sh
need_bpf

N=20000
E=7
"$APERTURE" record -e syscall -o "$T/sc.data" -- "$WL/syscall_exact" $N $E \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
grep -q ' 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"

"$APERTURE" report -i "$T/sc.data" --events syscall >"$T/table" ||
	fail "report"
cat "$T/table"
# the row of a syscall: name calls errors ...
calls() { awk -v s="$1" '$1 == s { print $2 }' "$T/table"; }
errs() { awk -v s="$1" '$1 == s { print $3 }' "$T/table"; }
[ "$(calls read)" = $((N + E)) ] || fail "read calls $(calls read), want $((N + E))"
[ "$(errs read)" = $E ] || fail "read errors $(errs read), want $E"
[ "$(calls write)" = $N ] || fail "write calls $(calls write), want $N"
[ "$(errs write)" = 0 ] || fail "write errors $(errs write)"
grep -q '^# Lost: 0 calls (in-flight table full), 0 ring buffer' "$T/table" ||
	fail "losses: $(grep '^# Lost' "$T/table")"
grep -q '^# Syscalls: .* 0 in flight at the end' "$T/table" ||
	fail "calls in flight after the command exited"
# sorted by total time
awk '/^# Syscall /{ on = 1; next } on && /^  / { print $0 }' "$T/table" |
	head -3 | grep -q ' \(read\|write\|execve\) ' ||
	fail "read/write are not among the first rows"

# the same figures as strace -c -f, syscall by syscall
if command -v strace >/dev/null 2>&1; then
	strace -c -f -o "$T/strace" "$WL/syscall_exact" $N $E ||
		fail "strace run"
	# strace rows: % seconds usecs/call calls [errors] syscall
	awk 'NF >= 5 && $1 ~ /^[0-9.]+$/ && $NF != "total" {
		print $NF, $4, (NF == 6 ? $5 : 0) }' "$T/strace" >"$T/strace.rows"
	[ -s "$T/strace.rows" ] || fail "strace -c printed no rows"
	while read -r sc c e; do
		[ "$(calls "$sc")" = "$c" ] ||
			fail "$sc: aperture $(calls "$sc") calls, strace $c"
		[ "$(errs "$sc")" = "$e" ] ||
			fail "$sc: aperture $(errs "$sc") errors, strace $e"
	done <"$T/strace.rows"
	echo "strace -c -f agrees on $(wc -l <"$T/strace.rows") syscalls"
else
	echo "strace not installed: not compared"
fi

# errno breakdown
"$APERTURE" report -i "$T/sc.data" --events syscall --errors >"$T/errors" ||
	fail "report --errors"
grep -Eq "^  read +EBADF +$E\$" "$T/errors" || fail "no 'read EBADF $E'"
grep -Eq "^  openat +ENOENT +$E\$" "$T/errors" || fail "no 'openat ENOENT $E'"
exit 0
