#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# --syscall-stacks: folded output weights the user stack at entry by the
# time spent in the call (ns); without the option there are no stacks.
. tests/integration/lib.sh
need_bpf

N=3000
"$APERTURE" record -e syscall --syscall-stacks -o "$T/st.data" -- \
	"$WL/syscall_exact" $N 0 2 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/st.data" --events syscall --format folded \
	>"$T/folded" || fail "report --format folded"
awk 'NF < 2 || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' "$T/folded" ||
	fail "folded lines malformed"
# the main thread's and the worker's chains, leaf frame the syscall
grep -q '^syscall_exact;.*main;rw_loop;sc_read;\(raw_syscall3;\)\?sys_read_\[k\] [0-9]' "$T/folded" ||
	fail "no main;rw_loop;sc_read chain: $(head -5 "$T/folded")"
grep -q '^syscall_exact;.*start_thread;rw_loop;sc_write;\(raw_syscall3;\)\?sys_write_\[k\] [0-9]' "$T/folded" ||
	fail "no start_thread;rw_loop;sc_write chain"
# weights are the time in the call: the read lines add up to the table's
# total read time (ns)
fsum=$(awk '$1 ~ /;sys_read_\[k\]$/ { s += $NF } END { print s }' "$T/folded")
"$APERTURE" report -i "$T/st.data" --events syscall --format json \
	>"$T/json" || fail "json"
jsum=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([int(r["total_ns"]) for r in d["syscall"]["rows"] if r["syscall"] == "read"][0])' "$T/json")
[ "$fsum" = "$jsum" ] || fail "folded read weight $fsum ns, table $jsum ns"
grep -q 'sensor  : syscall from raw_syscalls, user stacks' \
	"$("$APERTURE" report -i "$T/st.data" --events syscall >"$T/t"; echo "$T/t")" ||
	fail "sensor line"

# without --syscall-stacks: one line per thread and syscall, no frames
"$APERTURE" record -e syscall -o "$T/ns.data" -- "$WL/syscall_exact" 100 \
	2>/dev/null || fail "record without stacks"
"$APERTURE" report -i "$T/ns.data" --events syscall --format folded \
	>"$T/ns" || fail "folded"
grep -q '^syscall_exact;sys_read_\[k\] [0-9]*$' "$T/ns" ||
	fail "no stackless line: $(cat "$T/ns")"
exit 0
