#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, mem section: aperture record -e mem against perf record on
# the same page-fault source (perf mem needs IBS or PEBS; page faults with
# -d are what both can do on every machine), same period, same workload:
# slowdown of the workload and bytes per sample, as ratios.
# Env from scripts/bench.sh: BUILD APERTURE WL B.
set -u
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
best_of() {
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

PASSES=20
PERIOD=64
echo "== mem: $WL/mem_touch $PASSES, page faults every $PERIOD (best of 3) =="
base=$(best_of 3 "$WL/mem_touch" $PASSES)
ap=$(best_of 3 "$APERTURE" record -e mem -c $PERIOD -o "$B/mem.data" -- "$WL/mem_touch" $PASSES)
pf=$(best_of 3 perf record -e page-faults -c $PERIOD -d -g -o "$B/perf-mem.data" -- "$WL/mem_touch" $PASSES)
echo "workload alone                   ${base}s"
echo "under aperture record -e mem     ${ap}s  slowdown x$(ratio "$ap" "$base")"
echo "under perf record -e page-faults ${pf}s  slowdown x$(ratio "$pf" "$base")"
echo "slowdown aperture/perf: $(ratio "$ap" "$pf")"

ap_samples=$("$APERTURE" report -i "$B/mem.data" --events mem --format json |
	grep -o '"mem": {"source": "[^"]*", "samples": [0-9]*' | awk '{ print $NF }')
pf_samples=$(perf script -i "$B/perf-mem.data" -F addr 2>/dev/null | grep -c .)
ap_bytes=$(stat -c %s "$B/mem.data")
pf_bytes=$(stat -c %s "$B/perf-mem.data")
echo "aperture $ap_samples samples, $ap_bytes bytes: $(ratio "$ap_bytes" "$ap_samples") bytes/sample"
echo "perf     $pf_samples samples, $pf_bytes bytes: $(ratio "$pf_bytes" "$pf_samples") bytes/sample"
echo "bytes/sample aperture/perf: $(awk -v a="$ap_bytes" -v b="$ap_samples" -v c="$pf_bytes" -v d="$pf_samples" 'BEGIN { printf "%.3f", (a / b) / (c / d) }')"
rap=$(best_of 3 "$APERTURE" report -i "$B/mem.data" --events mem)
rpf=$(best_of 3 perf report -i "$B/perf-mem.data" --stdio --sort sym)
echo "report time: aperture ${rap}s, perf report ${rpf}s: ratio perf/aperture x$(ratio "$rpf" "$rap")"
