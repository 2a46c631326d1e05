#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench: aperture measured against its peers in the same run, on the
# same workloads.  Ratios, not absolute times: this machine is shared.
# This script is the CPU profile section; each scripts/bench-*.sh is
# another section, run after it.
set -u
BUILD=${1:-build}
APERTURE=$BUILD/aperture
WL=$BUILD/tests/workloads
B=$(mktemp -d /tmp/aperture-bench.XXXXXX)
trap 'rm -rf "$B"' EXIT
export BUILD APERTURE WL B

[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (BPF, perf)" >&2; exit 1; }
command -v perf >/dev/null || { echo "bench: needs perf (linux-perf)" >&2; exit 1; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

# the workload's own run time (it prints "elapsed S" with CPU_SPLIT_ELAPSED)
# under a profiler given as arguments; best of 3
workload_time() {
	best=
	for i in 1 2 3; do
		t=$(CPU_SPLIT_ELAPSED=1 "$@" 2>&1 >/dev/null | awk '/^elapsed/ { print $2 }')
		[ -n "$t" ] && best=$(min "$best" "$t")
	done
	echo "$best"
}

# wall time of a command, best of 3
wall_time() {
	best=
	for i in 1 2 3; do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s%N)
		best=$(min "$best" "$(awk -v a="$s" -v b="$e" 'BEGIN { print (b - a) / 1e9 }')")
	done
	echo "$best"
}

FREQ=999
WORK=n1500
W="$WL/cpu_split $WORK 2"
echo "== cpu profile: cpu_split $WORK, 2 threads, at $FREQ Hz (best of 3) =="
base=$(workload_time $W)
ap=$(workload_time "$APERTURE" record -F $FREQ -o "$B/ap.data" -- $W)
pf=$(workload_time perf record -F $FREQ -g -o "$B/perf.data" -- $W)
echo "workload alone           ${base} s"
echo "under aperture record    ${ap} s  slowdown x$(ratio "$ap" "$base")"
echo "under perf record -g     ${pf} s  slowdown x$(ratio "$pf" "$base")"
echo "slowdown aperture/perf: $(ratio "$(ratio "$ap" "$base")" "$(ratio "$pf" "$base")") (goal <= 1)"

# sizes of one recording each
"$APERTURE" record -F $FREQ -o "$B/ap.data" -- $W 2>"$B/ap.err" >/dev/null
perf record -F $FREQ -g -o "$B/perf.data" -- $W 2>"$B/perf.err" >/dev/null
ap_samples=$(awk '/samples,/ { print $2 }' "$B/ap.err")
pf_samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$B/perf.err")
ap_bytes=$(stat -c %s "$B/ap.data")
pf_bytes=$(stat -c %s "$B/perf.data")
echo "aperture.data  $ap_bytes bytes, $ap_samples samples: $(ratio "$ap_bytes" "$ap_samples") bytes/sample"
echo "perf.data      $pf_bytes bytes, $pf_samples samples: $(ratio "$pf_bytes" "$pf_samples") bytes/sample"
echo "bytes/sample aperture/perf: $(awk -v a="$ap_bytes" -v b="$ap_samples" -v c="$pf_bytes" -v d="$pf_samples" 'BEGIN { printf "%.3f", (a / b) / (c / d) }') (goal <= 0.25)"

rap=$(wall_time "$APERTURE" report -i "$B/ap.data")
rpf=$(wall_time perf report -i "$B/perf.data" --stdio)
echo "report: aperture ${rap} s, perf report --stdio ${rpf} s: aperture x$(ratio "$rpf" "$rap") faster (goal >= 5)"

for s in scripts/bench-*.sh; do
	[ -f "$s" ] || continue
	echo
	sh "$s"
done
