#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# sched takes a thread's user stack again without a walk when the
# registers at the block and every stack word the last walk read are
# unchanged (bpf/unwind.bpf.h, ap_uw_cache).  sched_callers blocks in the
# same read() through wait_a() and wait_b() in turn, with the same
# registers each time: only the return addresses on the stack differ.
# Its blocked intervals in block_here must name both callers, in turn:
# a cache that missed the change would repeat one caller.
. tests/integration/lib.sh
need_bpf

N=400
"$APERTURE" record -e sched -o "$T/s.data" -- "$WL/sched_callers" $N \
	>"$T/out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
grep -q "^a=$((N / 2)) b=$((N / 2))$" "$T/out" || fail "workload: $(cat "$T/out")"
"$APERTURE" script -i "$T/s.data" >"$T/script" 2>"$T/script.err" ||
	fail "script: $(cat "$T/script.err")"
# the caller of each blocked interval of the main thread in block_here
awk '/^ *sched_callers +[0-9]+\/[0-9]+ / {
		split($2, p, "/"); main = p[1] == p[2]; blk = / blocked /; next }
	main && blk && /^\t/ { s = $2; sub(/\+0x.*/, "", s)
		if (s ~ /^wait_[ab]$/) print s }' "$T/script" >"$T/callers"
a=$(grep -c '^wait_a$' "$T/callers")
b=$(grep -c '^wait_b$' "$T/callers")
# a record lost to a full ring, or a wake-up without data, repeats one:
# allow a few
rep=$(uniq -c "$T/callers" | awk '$1 > 1 { r += $1 - 1 } END { print r + 0 }')
echo "blocked in block_here: wait_a $a, wait_b $b, repeated callers $rep"
[ "$a" -ge $((N / 4)) ] && [ "$b" -ge $((N / 4)) ] ||
	fail "callers: wait_a $a, wait_b $b of $N blocks"
[ "$rep" -le $((N / 20)) ] || fail "the same caller $rep times in a row"
exit 0
