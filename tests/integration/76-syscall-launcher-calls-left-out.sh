#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -- CMD: the launcher's PATH search is not the command's (one
# execve, no failed ones, as strace shows), and the child before exec has
# a name of its own (aperture-exec, as perf's perf-exec), never "aperture".
. tests/integration/lib.sh
need_bpf

PATH=/nonexistent/a:/nonexistent/b:$PATH "$APERTURE" record -e syscall,sched \
	-o "$T/s.data" -- sleep 0.2 >/dev/null 2>"$T/err" || fail "record: $(cat "$T/err")"
"$APERTURE" report -i "$T/s.data" --events syscall >"$T/out" || fail "report"
line=$(grep '^  execve ' "$T/out")
set -- $line
[ "$2" = 1 ] && [ "$3" = 0 ] || fail "execve: '$line', want 1 call 0 errors"
"$APERTURE" report -i "$T/s.data" --events sched >"$T/sched" || fail "report sched"
awk '$3 == "aperture" || $5 == "aperture"' "$T/sched" | grep -q . &&
	fail "a row named 'aperture': $(cat "$T/sched")"
grep -q 'aperture-exec' "$T/sched" || fail "the held child is not aperture-exec"
exit 0
