#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel stacks without the profiler: off-CPU stacks are taken inside
# aperture's sched_switch program, yet no reported frame is one of its
# own (bpf_prog_*, bpf_trace_run*, __bpf_trace_*, __traceiter_*, a [bpf]
# symbol or a bare JIT address): sleepy_wait's stacks end in __schedule,
# as perf's tracepoint stacks do.  The same for lock and syscall stacks.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -e sched,cpu -o "$T/s.data" -- "$WL/offcpu_sleep" 1 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" record -e lock,syscall --syscall-stacks -o "$T/l.data" -- \
	"$WL/lock_contend" >/dev/null 2>"$T/rec2.err" ||
	fail "record: $(cat "$T/rec2.err")"
# folded output holds one view at a time: each of them.  Not the cpu
# view: a CPU sample that lands in one of aperture's programs keeps its
# frames there, named (issue 24 item 6, test 93-cpu-own-bpf); one came in
# ap_task_exit on the command's exit in a CI run
for fv in s:sched l:lock l:syscall; do
	f=${fv%%:*}
	"$APERTURE" report -i "$T/$f.data" --events "${fv#*:}" --format folded \
		>>"$T/$f.folded" || fail "report $fv"
done
for f in s l; do
	bad=$(grep -E '(^|;)(bpf_prog_|bpf_trace_run|__bpf_trace_|__traceiter_|\[kernel\.kallsyms\]\+0x)[^;]*_\[k\]' "$T/$f.folded" | head -1)
	[ -z "$bad" ] || fail "aperture's own frame in $f: $bad"
done
grep -q '^offcpu_sleep;\[off-cpu\];.*sleepy_wait;.*;schedule_\[k\];__schedule_\[k\] [0-9]*$' \
	"$T/s.folded" || fail "no off-CPU stack of sleepy_wait ending in __schedule"
