#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench: aperture measured against its peers in the same run, on the
# same workloads.  Ratios, not absolute times: this machine is shared.
# Each scripts/bench-*.sh is one section; this one is the CPU profile.
set -u
BUILD=${1:-build}
APERTURE=$BUILD/aperture
WL=$BUILD/tests/workloads
B=$(mktemp -d /tmp/aperture-bench.XXXXXX)
trap 'rm -rf "$B"' EXIT
export BUILD APERTURE WL B

[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (BPF, perf)" >&2; exit 1; }
command -v perf >/dev/null || { echo "bench: needs perf (linux-perf)" >&2; exit 1; }

# best of N wall-clock runs of a command, in seconds
best_of() {
	n=$1
	shift
	best=
	i=0
	while [ $i -lt "$n" ]; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc -l 2>/dev/null || awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')
		best=$(awk -v a="${best:-1e9}" -v b="$t" 'BEGIN { print (b < a) ? b : a }')
		i=$((i + 1))
	done
	echo "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

FREQ=999
WORK=n1500
echo "== cpu profile: $WL/cpu_split $WORK at $FREQ Hz (best of 3) =="
base=$(best_of 3 "$WL/cpu_split" $WORK)
ap=$(best_of 3 "$APERTURE" record -F $FREQ -o "$B/ap.data" -- "$WL/cpu_split" $WORK)
pf=$(best_of 3 perf record -F $FREQ -g -o "$B/perf.data" -- "$WL/cpu_split" $WORK)
echo "workload alone        ${base}s"
echo "under aperture record ${ap}s  slowdown x$(ratio "$ap" "$base")"
echo "under perf record -g  ${pf}s  slowdown x$(ratio "$pf" "$base")"

ap_samples=$("$APERTURE" report -i "$B/ap.data" --format json | grep -o '"samples": [0-9]*' | head -1 | awk '{ print $2 }')
pf_samples=$(perf report -i "$B/perf.data" --stdio --header-only 2>/dev/null | awk '/sample_count|nr_samples/ { print $NF }' | head -1)
[ -n "$pf_samples" ] || pf_samples=$(perf script -i "$B/perf.data" -F ip 2>/dev/null | grep -c .)
ap_bytes=$(stat -c %s "$B/ap.data")
pf_bytes=$(stat -c %s "$B/perf.data")
echo "aperture.data  $ap_bytes bytes, $ap_samples samples: $(ratio "$ap_bytes" "$ap_samples") bytes/sample"
echo "perf.data      $pf_bytes bytes, $pf_samples samples: $(ratio "$pf_bytes" "$pf_samples") bytes/sample"
echo "bytes/sample aperture/perf: $(awk -v a="$ap_bytes" -v b="$ap_samples" -v c="$pf_bytes" -v d="$pf_samples" 'BEGIN { printf "%.3f (goal <= 0.25)", (a / b) / (c / d) }')"

rap=$(best_of 3 "$APERTURE" report -i "$B/ap.data")
rpf=$(best_of 3 perf report -i "$B/perf.data" --stdio)
echo "report time: aperture ${rap}s, perf report --stdio ${rpf}s: aperture is x$(ratio "$rpf" "$rap") faster (goal >= 5)"

for s in scripts/bench-*.sh; do
	[ -f "$s" ] || continue
	echo
	sh "$s"
done
