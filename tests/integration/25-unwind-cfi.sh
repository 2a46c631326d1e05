#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# User stacks of a workload built without frame pointers, unwound from CFI
# in BPF: for each of its modes the known chain from main is complete in
# at least 95 % of the samples (or of the off-CPU, syscall or lock wait
# time) that end in the mode's leaf: a CPU-bound frameless leaf, 240-deep
# recursion, a qsort callback from libc, a signal handler, blocking in
# libc under -e sched, -e syscall --syscall-stacks and -e lock, page
# faults under -e mem.  Frame
# pointers on the same workload miss the chains (the test can fail);
# --max-stack truncates and says so; the report header says how stacks
# were unwound.
. tests/integration/lib.sh
need_bpf
need_cmd python3

W="$WL/nofp_chains"

# share of the weight of folded lines matching $2 (an ERE) among those
# matching $3, in file $1
complete() {
	awk -v want="$2" -v base="$3" '$0 ~ base { n = $NF; all += n;
		if ($0 ~ want) ok += n }
		END { printf "%.1f", all ? 100 * ok / all : 0 }' "$1"
}

check() {	# name, data, events, want, base
	"$APERTURE" report -i "$2" --events "$3" --format folded >"$T/$1.folded" ||
		fail "$1: report"
	c=$(complete "$T/$1.folded" "$4" "$5")
	echo "$1: complete chains in $c % (of $(grep -Ec "$5" "$T/$1.folded") stacks)"
	within "$c" 95 100 || {
		echo "incomplete, heaviest first:"
		grep -E "$5" "$T/$1.folded" | grep -Ev "$4" | sort -k2 -nr |
			head -8 | cut -c1-400
		"$APERTURE" report -i "$2" | grep '^# unwind'
		fail "$1: complete in $c % of the samples, want >= 95"
	}
}

rec() {	# name, record options.. -- mode args
	n=$1
	shift
	"$APERTURE" record -o "$T/$n.data" "$@" 2>"$T/$n.err" >/dev/null ||
		fail "$n: record: $(cat "$T/$n.err")"
}

rec cpu -F 999 -- "$W" cpu 2
check cpu "$T/cpu.data" cpu \
	'main;mode_cpu;chain_a;chain_b;leaf_spin( |;)' ';leaf_spin( |;)'
grep -q '_start;__libc_start_main[^;]*;__libc_start_call_main;main;mode_cpu' \
	"$T/cpu.folded" || fail "cpu: chains do not reach _start through libc"

rec deep -F 999 -- "$W" deep 2 240
r240=$(printf 'recurse;%.0s' $(seq 240))
check deep "$T/deep.data" cpu "main;mode_deep;${r240}leaf_spin( |;)" \
	';leaf_spin( |;)'

rec qsort -F 999 -- "$W" qsort 2
check qsort "$T/qsort.data" cpu \
	'main;mode_qsort;qsort[^;]*;([^;]*;)*cmp_slow;leaf_spin( |;)' \
	';leaf_spin( |;)'

rec signal -F 999 -- "$W" signal 2
# (the signal may land anywhere in victim_spin: in leaf_spin, or in
# clock_gettime's vDSO code, both above the trampoline)
check signal "$T/signal.data" cpu \
	'main;mode_signal;victim_spin;([^;]*;)*__restore_rt;on_alarm;handler_spin;leaf_spin( |;)|main;mode_signal;victim_spin;leaf_spin( |;)' \
	';leaf_spin( |;)'
# the trampoline is named: its return address is its first byte
grep -q ';__restore_rt;on_alarm;handler_spin;leaf_spin' "$T/signal.folded" ||
	fail "signal: no sample in the handler under __restore_rt"

rec sleep -e sched -- "$W" sleep 1
check sched "$T/sleep.data" sched \
	'main;mode_sleep;nap;[^;]*nanosleep[^;]*;clock_nanosleep' \
	'\[off-cpu\];.*clock_nanosleep'

rec sc -e syscall --syscall-stacks -- "$W" sleep 1
check syscall "$T/sc.data" syscall \
	'main;mode_sleep;nap;[^;]*nanosleep[^;]*;clock_nanosleep[^;]*;sys_clock_nanosleep' \
	'sys_clock_nanosleep'

rec lock -e lock -- "$W" lock 1
check lock "$T/lock.data" lock \
	'(main;mode_lock|start_thread);lock_thread;locker;pthread_mutex_lock' \
	'futex:mtx'

# with lock:pthread's uretprobe on __lll_lock_wait, the return address
# in its frame is the kernel's trampoline: the unwinder takes the
# original from the task's return instances
rec lockp -e lock,lock:pthread -- "$W" lock 1
if ! "$APERTURE" report -i "$T/lockp.data" --format folded | grep -q 'pthread:mtx'; then
	# (its probes need the libc's debug file: libc6-dbg)
	echo "no lock:pthread waits: $(grep lock:pthread "$T/lockp.err")"
else
	check lockp "$T/lockp.data" lock \
		'(main;mode_lock|start_thread);lock_thread;locker;pthread_mutex_lock[^;]*;([^;]*;)*futex_wait;futex:mtx' \
		'futex:mtx'
fi

# page faults (the mem sensor's fallback source): the unwinder runs on
# each sample of its perf events
rec fault -e mem -- "$W" fault 1
check mem "$T/fault.data" mem 'main;mode_fault;chain_fault;leaf_touch( |$)' \
	';leaf_touch( |$)'

# the header says how, and the JSON carries the counters
"$APERTURE" report -i "$T/cpu.data" >"$T/cpu.table" || fail "report table"
grep -q '^# unwind  : cfi, up to 256 user frames: [0-9]* stacks' "$T/cpu.table" ||
	fail "table header: $(grep unwind "$T/cpu.table")"
"$APERTURE" report -i "$T/cpu.data" --format json >"$T/cpu.json" || fail "json"
python3 - "$T/cpu.json" <<'PY' || fail "json unwind counters"
import json, sys
u = json.load(open(sys.argv[1]))["header"]["unwind"]
assert u["method"] == "cfi" and u["max_stack"] == 256, u
assert u["stacks"] > 0 and u["complete"] >= 0.9 * u["stacks"], u
assert u["tables"] >= 3 and u["rows"] > 10000, u   # the program, ld.so, libc
PY

# frame pointers on the same program: the chains are lost
rec fp --call-graph fp -F 999 -- "$W" cpu 1
"$APERTURE" report -i "$T/fp.data" --format folded >"$T/fp.folded"
c=$(complete "$T/fp.folded" 'main;mode_cpu;chain_a;chain_b;leaf_spin( |;)' \
	';leaf_spin( |;)')
echo "fp: complete chains in $c %"
within "$c" 0 50 || fail "--call-graph fp: $c % complete without frame pointers"
"$APERTURE" report -i "$T/fp.data" | grep -q '^# unwind  : frame pointers' ||
	fail "fp header"

# --max-stack: at most N user frames, the rest counted as truncated
rec max --max-stack 4 -F 999 -- "$W" cpu 1
"$APERTURE" report -i "$T/max.data" --format folded >"$T/max.folded" ||
	fail "--max-stack: report"
# (lines of leaf_spin: no inlined function adds names to them; the
# [truncated] root frame the report adds is no frame of the stack)
awk '/;leaf_spin( |;)/ { k = split($1, a, ";"); u = 0;
	for (i = 2; i <= k; i++) if (a[i] !~ /_\[k\]$/ && a[i] != "[truncated]") u++; if (u > 4) bad = 1 }
	END { exit bad }' "$T/max.folded" || fail "--max-stack 4: more than 4 user frames"
grep -q 'chain_a;chain_b;leaf_spin' "$T/max.folded" || fail "--max-stack 4: chains"
"$APERTURE" report -i "$T/max.data" | grep -q 'up to 4 user frames: [0-9]* stacks, [0-9.]*% reached the outermost frame, [1-9][0-9.]*% truncated' ||
	fail "--max-stack header: $("$APERTURE" report -i "$T/max.data" | grep unwind)"

# a stripped program (most distro software): _start has no name, but the
# unwinder reached it, so the header counts its stacks as reaching a root
strip -o "$T/nofp_stripped" "$W" || fail "strip"
rec stripped -F 999 -- "$T/nofp_stripped" cpu 1
root=$("$APERTURE" report -i "$T/stripped.data" --comm nofp_stripped |
	sed -n 's/^# Stacks : \([0-9.]*\)% reach a known root.*/\1/p')
echo "stripped: ${root:-?} % reach a known root"
within "${root:-0}" 95 100 ||
	fail "stripped: $("$APERTURE" report -i "$T/stripped.data" | grep '^# Stacks')"

# bad values: one line, usage exit
"$APERTURE" record --call-graph lbr -- true 2>"$T/e1" && fail "--call-graph lbr accepted"
grep -q "bad --call-graph 'lbr': give cfi (or perf's dwarf\[,SIZE\]) or fp" "$T/e1" || fail "message: $(cat "$T/e1")"
"$APERTURE" record --max-stack 0 -- true 2>"$T/e2" && fail "--max-stack 0 accepted"
grep -q "bad --max-stack '0'" "$T/e2" || fail "message: $(cat "$T/e2")"
exit 0
