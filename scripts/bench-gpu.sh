#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, gpu section: the cost of tracing CUDA launches, aperture
# against bpftrace with the same probes (entry and return of the four
# launch entry points, user stack at entry) on the same workload, in the
# same run.  The stand-in libraries of tests/workloads/fakecuda make a
# launch cost a function call, so the figures are the probes' own cost.
# Env from scripts/bench.sh: BUILD, APERTURE, WL, B.
set -u
REPEAT=${GPU_REPEAT:-2000}
SMALL=$((REPEAT / 10))
LAUNCHES=$(((REPEAT - SMALL) * 73))

gpu_best_of() {
	n=$1
	shift
	best=
	i=0
	while [ $i -lt "$n" ]; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		t=$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')
		best=$(awk -v a="${best:-1e9}" -v b="$t" 'BEGIN { print (b < a) ? b : a }')
		i=$((i + 1))
	done
	echo "$best"
}
gpu_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# microseconds per launch from two runs of REPEAT and SMALL rounds: the
# fixed costs (start-up, attaching, detaching) cancel out
gpu_per_launch() { awk -v a="$1" -v b="$2" -v n="$LAUNCHES" 'BEGIN { printf "%.3f", (a - b) * 1e6 / n }'; }

# time per launch of a command prefix ("" for the workload alone)
gpu_cost() {
	big=$(gpu_best_of 3 "$@" "$WL/gpu_launch" repeat "$REPEAT")
	small=$(gpu_best_of 3 "$@" "$WL/gpu_launch" repeat "$SMALL")
	gpu_per_launch "$big" "$small"
}

echo "== gpu launches: $WL/gpu_launch, $REPEAT and $SMALL rounds of 73 launches (best of 3) =="
"$WL/gpu_launch" repeat 1 || { echo "bench-gpu: gpu_launch does not run" >&2; exit 1; }
base=$(gpu_cost)
ap=$(gpu_cost "$APERTURE" record -e gpu -o "$B/gpu.data" --)
echo "workload alone                 ${base} us/launch"
echo "under aperture record -e gpu   ${ap} us/launch: +$(awk -v a="$ap" -v b="$base" 'BEGIN { printf "%.3f", a - b }') us of tracing"
"$APERTURE" record -e gpu -o "$B/gpu.data" -- "$WL/gpu_launch" repeat "$REPEAT" 2>/dev/null
n=$("$APERTURE" report -i "$B/gpu.data" --events gpu --format json | grep -o '"launches": [0-9]*' | head -1 | awk '{ print $2 }')
bytes=$(stat -c %s "$B/gpu.data")
echo "aperture.data  $bytes bytes, $n launches recorded (want $((REPEAT * 73))): $(gpu_ratio "$bytes" "${n:-1}") bytes/launch"

if command -v bpftrace >/dev/null 2>&1; then
	rt=$(readlink -f "$WL/libcudart.so.12")
	cu=$(readlink -f "$WL/libcuda.so.1")
	cat >"$B/gpu.bt" <<BT
uprobe:$rt:cudaLaunchKernel, uprobe:$rt:cudaLaunchKernelExC,
uprobe:$cu:cuLaunchKernel, uprobe:$cu:cuLaunchKernelEx
/ @depth[tid] == 0 / { @start[tid] = nsecs; @stk[tid] = ustack; }
uprobe:$rt:cudaLaunchKernel, uprobe:$rt:cudaLaunchKernelExC,
uprobe:$cu:cuLaunchKernel, uprobe:$cu:cuLaunchKernelEx
{ @depth[tid]++; }
uretprobe:$rt:cudaLaunchKernel, uretprobe:$rt:cudaLaunchKernelExC,
uretprobe:$cu:cuLaunchKernel, uretprobe:$cu:cuLaunchKernelEx
{ @depth[tid]--; if (@depth[tid] == 0) { @n[@stk[tid]] = count(); @ns = sum(nsecs - @start[tid]); } }
BT
	big=$(gpu_best_of 3 bpftrace -q "$B/gpu.bt" -c "$WL/gpu_launch repeat $REPEAT")
	small=$(gpu_best_of 3 bpftrace -q "$B/gpu.bt" -c "$WL/gpu_launch repeat $SMALL")
	bt=$(gpu_per_launch "$big" "$small")
	echo "under bpftrace (same probes)   ${bt} us/launch: +$(awk -v a="$bt" -v b="$base" 'BEGIN { printf "%.3f", a - b }') us of tracing"
	echo "tracing cost per launch aperture/bpftrace: $(awk -v a="$ap" -v b="$bt" -v c="$base" 'BEGIN { printf "%.2f", (a - c) / (b - c) }') (goal <= 1.2: aperture also sends every launch with its stack to the file, bpftrace only counts)"
else
	echo "bpftrace not installed: no peer to compare with"
fi
