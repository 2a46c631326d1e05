#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Many short-lived interpreters do not grow record: a shell runs 120
# python3 -c in turn, each calling 100 functions of its own that call
# getpid, under record -e syscalls:sys_enter_getpid (each call a stack
# with a new code object, whose names record reads).  The recorder's
# VmRSS (from /proc, read by the shell, record's child) after the last
# one is within 16 MiB of what it was after the 20th: the code objects
# of an interpreter that exited are freed (kept, 120 x 100 of them made
# about 50 MiB).  The stacks name the functions (each process's, with
# its file and line), the count is the calls made.
. tests/integration/lib.sh
need_bpf

py=/usr/bin/python3.11
[ -x "$py" ] || skip_tool "no $py"
cat >"$T/work.sh" <<EOF
i=0
while [ \$i -lt 120 ]; do
	$py -c '
import os
ns = {}
exec("".join("def f%d():\n    return os.getpid()\n" % i
             for i in range(100)), {"os": os}, ns)
for f in ns.values():
    f()
'
	i=\$((i + 1))
	[ \$i -eq 20 ] && grep VmRSS /proc/\$PPID/status >"$T/rss20"
done
grep VmRSS /proc/\$PPID/status >"$T/rss120"
EOF
# ASan's quarantine holds what is freed (up to 256 MB), which would read
# as growth: none here, so that the sanitized build is judged the same
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}:quarantine_size_mb=0" \
"$APERTURE" record -e syscalls:sys_enter_getpid -o "$T/r.data" -- \
	sh "$T/work.sh" >"$T/rec.out" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
a=$(awk '{ print $2 }' "$T/rss20")
b=$(awk '{ print $2 }' "$T/rss120")
echo "record's VmRSS: $a kB after 20 interpreters, $b kB after 120"
[ -n "$a" ] && [ -n "$b" ] || fail "no VmRSS read: $(cat "$T/rec.err")"
[ $((b - a)) -le 16384 ] ||
	fail "record grew by $((b - a)) kB over 100 interpreters"
"$APERTURE" report -i "$T/r.data" --format folded >"$T/folded" ||
	fail "report"
# every function's calls, at its line (f7 at line 16), under <module>
set -- $(awk '{ w = $NF; all += w
	if (match($0, /;<module> \(<string>:[0-9]+\);f[0-9]+ \(<string>:[0-9]+\);/)) {
		s = substr($0, RSTART, RLENGTH)
		sub(/^;<module> \(<string>:[0-9]+\);f/, "", s)
		split(s, p, / \(<string>:/)
		if (p[2] + 0 == 2 * p[1] + 2) n += w
	} } END { print n + 0, all + 0 }' "$T/folded")
echo "$1 of $2 getpid calls under their function at its line"
[ "$2" -ge 12000 ] || fail "$2 getpid calls recorded, the shell made 12000"
# a process that exits before record reads its names (record behind on
# a loaded machine: 70 to 85 % named here) leaves [unknown] frames; one
# interpreter's worth at least, whatever the load
[ "$1" -ge 100 ] || fail "only $1 calls under their Python function"
exit 0
