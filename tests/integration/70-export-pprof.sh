#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --format pprof read by go tool pprof (golang-go): the 60/30/10
# split of cpu_split in both sample types, source lines, the workload's
# mapping with its build-id, pid/comm labels; several views side by side
# with --events; folded and pprof hold one view when --events is not given.
. tests/integration/lib.sh
need_bpf
need_cmd go
export HOME="$T"		# pprof keeps nothing in the user's home

"$APERTURE" record -F 999 -e cpu,syscall -o "$T/cpu.data" -- \
	"$WL/cpu_split" 3 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
# --user-only: on a loaded machine interrupts end some stacks in the
# kernel; the user leaf is where the workload was (kernel frames: below)
"$APERTURE" report -i "$T/cpu.data" --format pprof --user-only \
	>"$T/cpu.pb.gz" 2>"$T/rep.err" ||
	fail "report --format pprof: $(cat "$T/rep.err")"
# one unit: the CPU view, and stderr says syscall was left out
grep -q 'left out syscall' "$T/rep.err" ||
	fail "no word of the views left out: $(cat "$T/rep.err")"
[ "$(head -c 2 "$T/cpu.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] ||
	fail "not gzip"

pp() {
	go tool pprof "$@" "$T/cpu.pb.gz" 2>"$T/pprof.err" ||
		fail "go tool pprof $*: $(cat "$T/pprof.err")"
}
pp -top -sample_index=samples >"$T/top" 
pp -top -sample_index=cpu >"$T/top_ns"
pp -raw >"$T/raw"
pp -top -lines >"$T/lines"
pp -tags >"$T/tags"
cat "$T/top"
flat() {	# the flat share of function $1 in top output $2
	awk -v f="$1" '$6 == f { sub("%", "", $2); print $2 }' "$2"
}
for t in top top_ns; do
	s60=$(flat burn_60 "$T/$t")
	s30=$(flat burn_30 "$T/$t")
	s10=$(flat burn_10 "$T/$t")
	echo "$t: burn_60 $s60 burn_30 $s30 burn_10 $s10"
	within "${s60:-0}" 54 66 || fail "$t: burn_60 flat $s60%, want 60"
	within "${s30:-0}" 24 36 || fail "$t: burn_30 flat $s30%, want 30"
	within "${s10:-0}" 5 15 || fail "$t: burn_10 flat $s10%, want 10"
	first=$(awk '$1 ~ /^[0-9]/ && NF >= 6 { print $6; exit }' "$T/$t")
	[ "$first" = burn_60 ] || fail "$t: first function is $first"
done
# the sample types, the period (1e9 / 999 ns) and the duration
grep -q '^samples/count\[dflt\] cpu/nanoseconds$' "$T/raw" ||
	fail "sample types: $(grep -A1 '^Samples:' "$T/raw")"
grep -q '^PeriodType: cpu nanoseconds' "$T/raw" &&
	grep -q '^Period: 1001001$' "$T/raw" || fail "period"
grep -q '^Duration: [0-9]' "$T/raw" || fail "duration"
# the workload's mapping with its build-id, as readelf reads it
bid=$(readelf -n "$WL/cpu_split" | awk '/Build ID/ { print $3 }')
grep -q "$WL/cpu_split $bid " "$T/raw" ||
	fail "no mapping of cpu_split with build-id $bid"
grep -q "^File: cpu_split$" "$T/top" ||
	fail "main binary is not cpu_split: $(head -3 "$T/top")"
# functions with file and line
grep -q 'burn_60 .*cpu_split.c:[0-9]' "$T/lines" || fail "no source line"
# labels
grep -q 'cpu_split$' "$T/tags" && grep -q '^ *pid: Total' "$T/tags" &&
	grep -q '^ *tid: Total' "$T/tags" || fail "labels: $(cat "$T/tags")"

# folded without --events: the CPU view only, the same as --events cpu
"$APERTURE" report -i "$T/cpu.data" --format folded >"$T/f1" 2>"$T/f.err"
"$APERTURE" report -i "$T/cpu.data" --format folded --events cpu >"$T/f2"
cmp -s "$T/f1" "$T/f2" || fail "folded without --events is not the CPU view"
grep -q 'left out syscall' "$T/f.err" || fail "folded: no word of syscall"

# several views in one pprof when --events asks: columns side by side
"$APERTURE" record -F 999 -e cpu,sched -o "$T/wall.data" -- \
	"$WL/offcpu_sleep" >"$T/wl.out" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/wall.data" --events cpu,sched --format pprof \
	>"$T/cpu.pb.gz" 2>"$T/rep.err" || fail "pprof cpu,sched: $(cat "$T/rep.err")"
pp -raw >"$T/raw"
grep -q '^samples/count\[dflt\] cpu/nanoseconds off_cpu/nanoseconds switches/count$' \
	"$T/raw" || fail "cpu,sched types: $(grep -A1 '^Samples:' "$T/raw")"
grep -q '^[0-9]*: 0xffff800000000000/0xffffffffffffffff/0x0 \[kernel.kallsyms\] ' \
	"$T/raw" || fail "no kernel mapping"
# the truth: the time offcpu_sleep measured itself asleep in sleepy_wait
pp -top -cum -unit=ms -sample_index=off_cpu -focus='^\[off-cpu\]$' >"$T/top"
grep -q 'Type: off_cpu' "$T/top" || fail "no off-cpu index"
slept=$(sed -n 's/.*slept_ns=\([0-9]*\).*/\1/p' "$T/wl.out")
ms=$(awk '$6 == "sleepy_wait" { sub("ms", "", $4); print $4 }' "$T/top")
echo "sleepy_wait blocked: pprof $ms ms, workload ${slept:-?} ns"
within "${ms:-0}" "$(echo "$slept" | awk '{ print $1 * 0.8 / 1e6 }')" \
	"$(echo "$slept" | awk '{ print $1 * 1.05 / 1e6 }')" ||
	fail "sleepy_wait off-cpu $ms ms, workload slept $slept ns"

# syscall: time and calls per stack, the syscall as the leaf; the truth is
# syscall_exact's exact count of write calls (N per thread, two threads)
N=400
"$APERTURE" record -e syscall --syscall-stacks -o "$T/sc.data" -- \
	"$WL/syscall_exact" $N 0 2 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/sc.data" --format pprof >"$T/cpu.pb.gz" ||
	fail "pprof syscall"
pp -raw >"$T/raw"
grep -q '^syscall/nanoseconds\[dflt\] syscall_calls/count$' "$T/raw" ||
	fail "syscall types: $(grep -A1 '^Samples:' "$T/raw")"
pp -top -sample_index=syscall_calls >"$T/top"
w=$(awk '$6 == "sys_write" { print $1 }' "$T/top")
[ "$w" = $((2 * N)) ] || fail "sys_write calls $w, want $((2 * N))"
pp -top -cum -sample_index=syscall_calls -focus='^sys_write$' >"$T/top"
grep -q ' sc_write$' "$T/top" || fail "no sc_write caller of sys_write"
# every call the table counts, those that never return (exit) and those
# summed in the kernel (plain -e syscall) included
total_calls() {	# a recording's calls: the table's, then pprof's
	"$APERTURE" report -i "$1" --events syscall 2>/dev/null |
		sed -n 's/^# Syscalls: \([0-9]*\) calls.*/\1/p'
	"$APERTURE" report -i "$1" --events syscall --format pprof \
		>"$T/calls.pb.gz" 2>/dev/null
	go tool pprof -top -sample_index=syscall_calls "$T/calls.pb.gz" \
		2>/dev/null | sed -n 's/.*Total samples = \([0-9]*\).*/\1/p'
}
"$APERTURE" record -e syscall -o "$T/sum.data" -- "$WL/syscall_exact" $N 0 2 \
	>/dev/null 2>&1 || fail "record -e syscall"
for f in "$T/sc.data" "$T/sum.data"; do
	set -- $(total_calls "$f")
	[ -n "${1:-}" ] && [ "$1" = "${2:-}" ] ||
		fail "$(basename "$f"): pprof holds ${2:-?} calls, the table ${1:-?}"
done

# syscall and io side by side: each type its own name, so -sample_index
# reaches both counts of calls (io_file: BYTES written with 3 write calls)
"$APERTURE" record -e syscall,io --syscall-stacks -o "$T/io.data" -- \
	"$WL/io_file" "$T/io.f" 300000 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/io.data" --events syscall,io --format pprof \
	>"$T/cpu.pb.gz" || fail "pprof syscall,io"
pp -raw >"$T/raw"
grep -q '^syscall/nanoseconds\[dflt\] syscall_calls/count io/bytes io_calls/count$' \
	"$T/raw" || fail "syscall,io types: $(grep -A1 '^Samples:' "$T/raw")"
pp -top -sample_index=io_calls >"$T/top"
grep -q '^Type: io_calls$' "$T/top" || fail "no io_calls index"
pp -top -sample_index=syscall_calls >"$T/top"
grep -q '^Type: syscall_calls$' "$T/top" && grep -q ' sys_pwrite64$' "$T/top" ||
	fail "no syscall_calls index: $(head -12 "$T/top")"

# binary output is not written to a terminal; an unknown format names them
"$APERTURE" report -i "$T/cpu.data" --format nope 2>"$T/err" && fail "--format nope"
grep -q 'pprof' "$T/err" || fail "format list: $(cat "$T/err")"
exit 0
