#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What the recorder holds while it records (record -v's memory line at the
# end): the kernel's symbol table in at most 56 bytes a symbol (it was
# 82: 40-byte records of pointers, a 16-byte index, and the names), and
# everything else in at most 3 MiB for a small lock workload (the array
# of the kernel's mapping records kept between drains could hold 1,024 of
# them at 4 KiB each: 4.3 MB).  The RSS against perf's is make bench's
# (scripts/bench-lock.sh).
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -v -e lock -o "$T/l.data" -- "$WL/lock_contend" mutex 1 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
line=$(grep '^aperture: memory:' "$T/rec.err") ||
	fail "no memory line: $(grep -v '^libbpf' "$T/rec.err")"
echo "$line"
grep -q ' 0 lost' "$T/rec.err" || fail "events lost: $(cat "$T/rec.err")"
set -- $(echo "$line" | sed -n 's/.* \([0-9]*\) kB of heap in use, \([0-9]*\) kB of kernel symbols (\([0-9]*\)), RSS \([0-9]*\) kB.*/\1 \2 \3 \4/p')
[ $# -eq 4 ] || fail "memory line not understood: $line"
heap=$1 ksyms=$2 n=$3
[ "$n" -gt 0 ] || fail "no kernel symbols: $line"
echo "$n kernel symbols: $((ksyms * 1024 / n)) bytes each; the rest of the heap $((heap - ksyms)) kB"
[ $((ksyms * 1024)) -le $((n * 56)) ] ||
	fail "kernel symbols take $((ksyms * 1024 / n)) bytes each, over 56"
[ $((heap - ksyms)) -le 3072 ] ||
	fail "the recorder holds $((heap - ksyms)) kB besides the kernel symbols, over 3 MiB"
exit 0
