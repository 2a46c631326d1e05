#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture's own BPF cost stays where it is spent: under -e cpu,syscall a
# getpid loop runs aperture's two syscall programs per call, and a CPU
# sample in them (or in a helper they call) keeps its frames, named
# bpf_prog_TAG_ap_syscall_enter/exit, instead of landing on the function
# that fired the tracepoint.  perf record -g samples the same process at
# the same time (it is aperture's command): the share of samples in BPF
# code, the header's "# BPF" line and the JSON's own_bpf agree with it,
# and syscall_trace_enter's self share is perf's, not the programs' cost.
. tests/integration/lib.sh
need_bpf
need_cmd perf
need_cmd python3

"$APERTURE" record -e cpu,syscall -F 999 -o "$T/a.data" -- \
	perf record -g --buildid-mmap -F 999 -o "$T/perf.data" -- \
	"$WL/getpid_loop" 2 >/dev/null 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"

# perf: samples with a frame of a BPF program (named, or an unnamed JIT
# address in the module area)
p=$(perf script -i "$T/perf.data" --comm getpid_loop -F ip,sym 2>/dev/null |
	awk 'BEGIN { RS = "" } { n++
		if ($0 ~ /bpf_prog_[0-9a-f]+_ap_|ffffffff[a-f][0-9a-f]* \[unknown\]/) b++ }
		END { printf "%.1f", n ? 100 * b / n : -1 }')
pse=$(perf report -i "$T/perf.data" --comm getpid_loop --no-children \
	--stdio --sort sym -g none 2>/dev/null |
	awk '/\[k\] syscall_trace_enter$/ { sub("%", "", $1); print $1; exit }')

"$APERTURE" report -i "$T/a.data" --events cpu --comm getpid_loop \
	--no-children --sort sym >"$T/a.txt" || fail "report"
a=$(sed -n 's/^# BPF    : \([0-9.]*\)% of the samples in aperture.s own BPF programs.*/\1/p' "$T/a.txt")
ase=$(awk '/\[k\] syscall_trace_enter$/ { sub("%", "", $1); print $1; exit }' "$T/a.txt")
echo "in BPF: perf $p %, aperture ${a:-?} %; syscall_trace_enter self: perf ${pse:-0} %, aperture ${ase:-0} %"
[ -n "$a" ] || fail "no # BPF line: $(grep '^#' "$T/a.txt" | head -14)"
within "$p" 5 100 || fail "perf saw $p % of the samples in BPF: no comparison"
within "$(awk -v a="$a" -v p="$p" 'BEGIN { print a - p }')" -10 10 ||
	fail "aperture $a % in its BPF programs, perf $p %"
within "${ase:-0}" 0 "$(awk -v p="${pse:-0}" 'BEGIN { print p + 5 }')" ||
	fail "syscall_trace_enter self ${ase:-0} %, perf ${pse:-0} %"
grep -q '\[k\] bpf_prog_[0-9a-f]*_ap_syscall_e' "$T/a.txt" ||
	fail "no row of the syscall programs: $(sed -n 15,25p "$T/a.txt")"

"$APERTURE" report -i "$T/a.data" --events cpu --format json >"$T/a.json" ||
	fail "json"
python3 - "$T/a.json" <<'PY' || fail "json own_bpf"
import json, sys
c = json.load(open(sys.argv[1]))["cpu"]
assert 0 < c["stacks"]["own_bpf"] <= c["samples"], c["stacks"]
PY
exit 0
