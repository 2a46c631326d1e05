#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A CUDA runtime loaded with dlopen from a directory no search path
# names, after recording began: the mmap tracepoints reveal it, its probes
# are armed, and the launches the program makes once it sees the probes
# on its entry points (10 s at most) are all recorded.
# With --cuda-lib naming it, the probes are armed before the program runs
# and no pause is needed.
. tests/integration/lib.sh
need_bpf

mkdir "$T/late"
cp "$WL/libcudart.so.12" "$WL/libcuda.so.1" "$T/late/"

"$APERTURE" record -e gpu -o "$T/dl.data" -- "$WL/gpu_dlopen" "$T/late" 10000 \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
grep -q ' 13 events, 0 lost' "$T/rec.err" || fail "summary: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/dl.data" --events gpu --format folded >"$T/folded" ||
	fail "report"
grep -qx 'gpu_dlopen;.*main;cudaLaunchKernel;late_kernel_\[gpu\] 9' "$T/folded" ||
	fail "runtime launches: $(cat "$T/folded")"
grep -qx 'gpu_dlopen;.*main;cuLaunchKernel;late_driver_\[gpu\] 4' "$T/folded" ||
	fail "driver launches: $(cat "$T/folded")"

"$APERTURE" record -e gpu --cuda-lib "$T/late/libcudart.so.12" \
	--cuda-lib "$T/late/libcuda.so.1" -o "$T/lib.data" -- \
	"$WL/gpu_dlopen" "$T/late" 0 2>"$T/rec2.err" ||
	fail "record --cuda-lib: $(cat "$T/rec2.err")"
"$APERTURE" report -i "$T/lib.data" --events gpu --format json >"$T/json" ||
	fail "report"
grep -q '"launches": 13,' "$T/json" || fail "--cuda-lib, no pause: $(cat "$T/rec2.err") $(cat "$T/json")"
exit 0
