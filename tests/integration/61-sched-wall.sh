#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e cpu,sched: report --events cpu,sched --format folded is a
# wall-clock graph on one scale (microseconds): the workload's off-CPU
# share in sleepy_wait against on-CPU samples in burn matches what it
# measured itself (sleep / (sleep + CPU)) within 7 points.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -e cpu,sched -F 499 -o "$T/w.data" -- \
	"$WL/offcpu_sleep" 2 >"$T/wl.out" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
slept=$(sed -n 's/.*slept_ns=\([0-9]*\).*/\1/p' "$T/wl.out")
cpu=$(sed -n 's/.*cpu_ns=\([0-9]*\).*/\1/p' "$T/wl.out")
[ -n "$slept" ] && [ -n "$cpu" ] || fail "workload output: $(cat "$T/wl.out")"

"$APERTURE" report -i "$T/w.data" --events cpu,sched --format folded \
	>"$T/folded" || fail "report"
on=$(awk '/^offcpu_sleep;/ && !/\[off-cpu\]|\[runnable\]/ && /;burn/ { s += $NF }
	END { print s + 0 }' "$T/folded")
off=$(awk '/^offcpu_sleep;\[off-cpu\];.*;sleepy_wait;/ { s += $NF } END { print s + 0 }' "$T/folded")
got=$(awk -v a="$off" -v b="$on" 'BEGIN { printf "%.1f", 100 * a / (a + b) }')
want=$(awk -v a="$slept" -v b="$cpu" 'BEGIN { printf "%.1f", 100 * a / (a + b) }')
echo "off-CPU share: folded $got% (off $off us, on $on us), workload $want%"
lo=$(awk -v w="$want" 'BEGIN { print w - 7 }')
hi=$(awk -v w="$want" 'BEGIN { print w + 7 }')
within "$got" "$lo" "$hi" || fail "wall-clock off-CPU share $got%, want $want%"
# CPU lines are in microseconds: about cpu_ns / 1000 in total, not samples
oncpu=$(awk '/^offcpu_sleep;/ && !/\[off-cpu\]|\[runnable\]/ { s += $NF } END { print s + 0 }' "$T/folded")
r=$(awk -v a="$oncpu" -v b="$cpu" 'BEGIN { printf "%.2f", a * 1000 / b }')
within "$r" 0.7 1.3 || fail "on-CPU folded total $oncpu us vs CPU time $cpu ns ($r)"
# each view alone keeps its own unit: samples for cpu
n=$("$APERTURE" report -i "$T/w.data" --events cpu --format folded |
	awk '{ s += $NF } END { print s + 0 }')
r=$(awk -v a="$n" -v b="$oncpu" 'BEGIN { printf "%.2f", a * 1e6 / 499 / b }')
within "$r" 0.95 1.05 || fail "cpu alone: $n samples vs $oncpu us ($r)"
exit 0
