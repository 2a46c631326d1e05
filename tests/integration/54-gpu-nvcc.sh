#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A real CUDA program, built by nvcc with its default static runtime (the
# launch entry point is inside the executable): its <<<>>> launches are
# recorded with the kernel's demangled name, shape and shared memory.  No
# GPU here: the runtime's launches fail, and are counted as failed.
# Skipped where no CUDA toolkit is installed.
. tests/integration/lib.sh
need_bpf
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || skip_tool "needs nvcc (CUDA toolkit)"

cat >"$T/k.cu" <<'CU'
#include <cstdio>
#include <unistd.h>
__global__ void saxpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}
int main()
{
	int failed = 0;
	for (int i = 0; i < 6; i++) {
		saxpy<<<dim3(40, 2, 1), dim3(128, 1, 1), 256>>>(2.0f, nullptr, nullptr, 0);
		failed += cudaGetLastError() != cudaSuccess;
	}
	printf("%d\n", failed);
	fflush(stdout);
	/* a profiler reads the mappings from /proc while the process lives */
	usleep(200000);
	return 0;
}
CU
"$NVCC" -O1 -g -Xcompiler -fno-omit-frame-pointer -o "$T/k" "$T/k.cu" \
	>"$T/nvcc.out" 2>&1 || skip_tool "nvcc cannot build here: $(tail -1 "$T/nvcc.out")"

"$APERTURE" record -e gpu -o "$T/k.data" -- "$T/k" >"$T/k.out" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
failed=$(cat "$T/k.out")
grep -q ' 6 events, 0 lost' "$T/rec.err" || fail "summary: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/k.data" --events gpu >"$T/table" || fail "report"
row=$(grep 'saxpy(float, float const\*, float\*, int)$' "$T/table" | head -1)
[ -n "$row" ] || fail "no saxpy row: $(cat "$T/table")"
echo "$row" | awk -v f="$failed" '$1 != 6 || $2 != f || !/ runtime  *saxpy/ { exit 1 }' ||
	fail "row '$row', want 6 launches, $failed failed"
grep -q '6 x grid(40,2,1) block(128,1,1) shared 256' "$T/table" ||
	fail "shape: $(cat "$T/table")"
exit 0
