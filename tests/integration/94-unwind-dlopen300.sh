#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A program that dlopens 300 libraries (copies of one, built without
# frame pointers) and runs the code of the last ten: more executable
# mappings than the unwinder's mirror once held (256; the libraries past
# them unwound by frame pointer, and 1-3 % of the chains were whole).
# Its stacks through them are the source's chain, main;run;dl_work;
# dl_inner, and reach the outermost frame; one table serves all copies
# (one build-id).
. tests/integration/lib.sh
need_bpf

mkdir "$T/libs" || fail "mkdir"
i=0
while [ $i -lt 300 ]; do
	cp "$WL/dlopen_lib.so" "$T/libs/lib$i.so" || fail "cp"
	i=$((i + 1))
done
"$APERTURE" record -F 499 -o "$T/d.data" -- "$WL/dlopen_many" 300 "$T/libs" 10 2000 \
	>"$T/out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
cat "$T/out"
# the premise, from the program's own /proc/self/maps
n=$(sed -n 's/^code mappings //p' "$T/out")
[ "${n:-0}" -gt 300 ] || fail "the program had ${n:-no} executable mappings, want over 300"

"$APERTURE" report -i "$T/d.data" --header >"$T/hdr" 2>&1 || fail "report --header"
grep '^# unwind' "$T/hdr"
"$APERTURE" report -i "$T/d.data" --format folded >"$T/folded" ||
	fail "report --format folded"
set -- $(awk '/;dl_inner( |;)/ { a += $NF
	if ($0 ~ /;__libc_start_call_main;main;run;dl_work;dl_inner( |;)/) g += $NF }
	END { print a + 0, g + 0 }' "$T/folded")
echo "dl_inner in $1 samples, $2 of them with the whole chain"
[ "$1" -ge 200 ] || fail "too few samples in the libraries: $1"
[ $(($2 * 100)) -ge $(($1 * 90)) ] ||
	fail "$2 of $1 stacks through the libraries have the chain main;run;dl_work;dl_inner, want 90 %: $(grep ';dl_inner' "$T/folded" | grep -v ';main;run;dl_work;dl_inner' | head -3)"
pct=$(sed -n 's/^# unwind.* stacks, \([0-9.]*\)% reached the outermost.*/\1/p' "$T/hdr")
within "${pct:-0}" 90 100 || fail "${pct:-no} % of stacks reached the outermost frame, want 90 %"
# the unwinder's kernel memory is stated: 32 MiB of rows and the rest
kmem=$(sed -n 's/.*; kernel memory at most \([0-9.]*\) MiB$/\1/p' "$T/hdr")
within "${kmem:-0}" 32 64 || fail "kernel memory: ${kmem:-not stated}"
# one table for the 300 copies: a handful of tables in all
tabs=$(sed -n 's/.*; \([0-9]*\) tables, .*/\1/p' "$T/hdr")
[ "${tabs:-999}" -lt 20 ] || fail "${tabs:-no} tables for one library copied 300 times and libc"
exit 0
