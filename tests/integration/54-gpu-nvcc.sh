#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A real CUDA program, built by nvcc with its default static runtime (the
# launch entry point is inside the executable): its <<<>>> launches are
# recorded with the kernel's demangled name, shape and shared memory.  No
# GPU here: the runtime's launches fail, and are counted as failed, and
# record says the machine has no CUDA driver (libcuda.so.1) or no device
# (/dev/nvidiaN) where it has none.  Built with -cudart shared (libcudart
# from a system directory, found through /etc/ld.so.conf), every launch
# is recorded in ten runs out of ten: the library is armed before the
# command runs, not when its mapping is seen after the first launches.
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

# what this machine lacks, said once by record, by gpu-env, in the file
lacks=
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' &&
   ! ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 \
	>/dev/null 2>&1; then
	lacks='no CUDA driver (libcuda.so.1 is not where the dynamic linker looks)'
fi
if ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
	lacks="${lacks:+$lacks, }no NVIDIA GPU (no /dev/nvidiaN device)"
fi
if [ -n "$lacks" ]; then
	n=$(grep -cF "gpu: $T/k uses CUDA, but this machine has $lacks: its CUDA calls fail" "$T/rec.err")
	[ "$n" = 1 ] || fail "want one line on what is missing, got $n: $(cat "$T/rec.err")"
	grep -qF "# sensor  : gpu from uprobe: k; usdt: cupti: $lacks" "$T/table" ||
		fail "the file does not say what is missing: $(grep sensor "$T/table")"
	"$APERTURE" gpu-env -- true 2>"$T/env.err" || fail "gpu-env: $(cat "$T/env.err")"
	grep -qF "warning: this machine has $lacks: CUDA calls fail, no device times" \
		"$T/env.err" || fail "gpu-env: $(cat "$T/env.err")"
else
	grep -q 'uses CUDA, but this machine has' "$T/rec.err" &&
		fail "claims a driver or device is missing: $(cat "$T/rec.err")"
fi

# libcudart.so from where ld.so finds it: armed before the command runs
"$NVCC" -O1 -g -cudart shared -Xcompiler -fno-omit-frame-pointer \
	-o "$T/ks" "$T/k.cu" >"$T/nvcc.out" 2>&1 ||
	fail "nvcc -cudart shared: $(tail -1 "$T/nvcc.out")"
i=0
while [ $i -lt 10 ]; do
	"$APERTURE" record -e gpu -o "$T/ks.data" -- "$T/ks" >/dev/null \
		2>"$T/ks.err" || fail "record: $(cat "$T/ks.err")"
	grep -q ' 6 events, 0 lost' "$T/ks.err" ||
		fail "run $i, shared runtime: $(cat "$T/ks.err")"
	grep -q 'no CUDA runtime or driver library mapped' "$T/ks.err" &&
		fail "run $i claims libcudart not mapped: $(cat "$T/ks.err")"
	i=$((i + 1))
done
exit 0
