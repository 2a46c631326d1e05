#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel symbols that are aliases at one address (getpid's entry points
# __x64_sys_getpid and __ia32_sys_getpid, with __do_sys_getpid) take the
# name perf gives them: perf record -g and aperture record on the same
# workload name the same getpid entry point in their stacks.
. tests/integration/lib.sh
need_bpf
need_cmd perf

grep -q ' T __ia32_sys_getpid$' /proc/kallsyms ||
	skip "no __ia32_sys_getpid alias in this kernel"

perf record -g --buildid-mmap -F 999 -o "$T/perf.data" -- "$WL/getpid_loop" 1 \
	>/dev/null 2>"$T/perf.err" || fail "perf record: $(cat "$T/perf.err")"
perf script -i "$T/perf.data" -F ip,sym 2>/dev/null |
	grep -o '[_a-z0-9]*_sys_getpid' | sort -u >"$T/perf.names"
[ -s "$T/perf.names" ] || fail "perf saw no getpid entry point"

"$APERTURE" record -F 999 -o "$T/a.data" -- "$WL/getpid_loop" 1 \
	>/dev/null 2>"$T/a.err" || fail "record: $(cat "$T/a.err")"
"$APERTURE" report -i "$T/a.data" --format folded |
	grep -o '[_a-z0-9]*_sys_getpid_\[k\]' | sed 's/_\[k\]$//' |
	sort -u >"$T/a.names"
echo "perf: $(cat "$T/perf.names" | tr '\n' ' ')aperture: $(cat "$T/a.names" | tr '\n' ' ')"
[ -s "$T/a.names" ] || fail "aperture saw no getpid entry point"
cmp -s "$T/perf.names" "$T/a.names" || fail "names differ from perf's"
exit 0
