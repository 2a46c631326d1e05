#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e gpu -p PID on a running gpu_launch (its CUDA libraries already
# mapped): the launches it makes once told to go are all recorded.
. tests/integration/lib.sh
need_bpf

"$WL/gpu_launch" wait "$T/go" &
wl=$!
trap 'kill $wl 2>/dev/null; rm -rf "$T"' EXIT INT TERM
"$APERTURE" record -e gpu -p $wl -o "$T/gpu.data" 2>"$T/rec.err" &
rec=$!
# the recording is on once the file exists
i=0
while [ ! -s "$T/gpu.data" ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
sleep 0.3
touch "$T/go"
wait $wl || fail "gpu_launch failed"
wait $rec || fail "record: $(cat "$T/rec.err")"
grep -q ' 73 events, 0 lost' "$T/rec.err" || fail "summary: $(cat "$T/rec.err")"
grep -q 'gpu: no CUDA' "$T/rec.err" && fail "claims no CUDA library: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/gpu.data" --events gpu --format folded >"$T/folded" ||
	fail "report"
for want in 'vector_add_kernel_\[gpu\] 30' 'softmax_kernel_\[gpu\] 11' \
	'reduce_kernel_\[gpu\] 7' 'layernorm_kernel_\[gpu\] 5' \
	'matmul_kernel(float const\*, float const\*, float\*, int)_\[gpu\] 20'; do
	grep -q "$want\$" "$T/folded" || fail "no '$want': $(cat "$T/folded")"
done
exit 0
