#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# GPU device times on a real GPU (not part of make check: needs an NVIDIA
# GPU, its driver and the CUDA toolkit).  Builds a CUDA program with nvcc
# whose kernels spin for known times (1 ms and 5 ms, on the GPU's
# nanosecond %globaltimer: clock64 counts SM cycles, whose rate follows
# the boost clock), records it with `aperture record -e gpu`, and checks
# names, counts, the join to launches and device times within 5 % of the
# nominal times and of the program's own cudaEvent timings; one 64 MiB
# host-to-device copy by direction and size; the timeline's kernels on
# their stream's track, each joined to its launch.  Prints the figures.
#
# Usage: tests/device/gpu-device.sh [BUILD]   (run as root, from the repo)
set -e
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
APERTURE=$BUILD/aperture
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
T=$(mktemp -d /tmp/aperture-device.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$APERTURE" ] || fail "no $APERTURE: build first"
[ -r "$BUILD/libaperture-cupti.so" ] || fail "libaperture-cupti.so not built"
[ -x "$NVCC" ] || fail "no nvcc"
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L

cat >"$T/spin.cu" <<'CU'
#include <cstdio>
#include <cstdlib>

__device__ static unsigned long long now_ns()
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ void spin_1ms(unsigned long long ns)
{
	unsigned long long t0 = now_ns();

	while (now_ns() - t0 < ns)
		;
}

__global__ void spin_5ms(unsigned long long ns)
{
	unsigned long long t0 = now_ns();

	while (now_ns() - t0 < ns)
		;
}

int main()
{
	cudaEvent_t a, b;
	float ms, sum1 = 0, sum5 = 0;
	size_t bytes = 64ul << 20;
	void *d, *h;
	int i;

	cudaEventCreate(&a);
	cudaEventCreate(&b);
	/* warm-up outside the counts would blur them: none */
	for (i = 0; i < 10; i++) {
		cudaEventRecord(a);
		spin_1ms<<<1, 1>>>(1000000ull);
		cudaEventRecord(b);
		cudaEventSynchronize(b);
		cudaEventElapsedTime(&ms, a, b);
		sum1 += ms;
	}
	for (i = 0; i < 4; i++) {
		cudaEventRecord(a);
		spin_5ms<<<dim3(2, 1, 1), dim3(32, 1, 1)>>>(5000000ull);
		cudaEventRecord(b);
		cudaEventSynchronize(b);
		cudaEventElapsedTime(&ms, a, b);
		sum5 += ms;
	}
	h = malloc(bytes);
	cudaMalloc(&d, bytes);
	cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
	cudaDeviceSynchronize();
	if (cudaGetLastError() != cudaSuccess)
		return 1;
	printf("%.0f %.0f\n", sum1 / 10 * 1e6, sum5 / 4 * 1e6);
	return 0;
}
CU
"$NVCC" -O2 -g -Xcompiler -fno-omit-frame-pointer -o "$T/spin" "$T/spin.cu" ||
	fail "nvcc"

"$APERTURE" record -e gpu -o "$T/g.data" -- "$T/spin" >"$T/events.txt" \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
cat "$T/rec.err"
"$APERTURE" report -i "$T/g.data" --events gpu
"$APERTURE" report -i "$T/g.data" --events gpu --format json >"$T/g.json" ||
	fail "report"
python3 - "$T/g.json" "$T/events.txt" <<'PY' || fail "device times"
import json, sys
g = json.load(open(sys.argv[1]))["gpu"]
ev1, ev5 = (float(x) for x in open(sys.argv[2]).read().split())
ok = True
k = {x["name"]: x for x in g["kernels"]}
for name, n, nominal, ev in (("spin_1ms(unsigned long long)", 10, 1e6, ev1),
                             ("spin_5ms(unsigned long long)", 4, 5e6, ev5)):
    x = k.get(name)
    if not x:
        print("FAIL: no kernel %s in %s" % (name, sorted(k)))
        ok = False
        continue
    print("%-30s launches %d device %d avg %d ns p95 %d max %d | nominal %d, cudaEvent avg %d"
          % (name, x["launches"], x["device_kernels"], x["device_ns_avg"],
             x["device_ns_p95"], x["device_ns_max"], nominal, ev))
    if x["launches"] != n or x["device_kernels"] != n:
        print("FAIL: %s: %s launches, %s on the device, want %d" % (name, x["launches"], x["device_kernels"], n))
        ok = False
    for what, want in (("nominal", nominal), ("cudaEvent", ev)):
        for f in ("device_ns_avg", "device_ns_max"):
            if abs(x[f] - want) > 0.05 * want:
                print("FAIL: %s: %s %d not within 5%% of %s %d" % (name, f, x[f], what, want))
                ok = False
    if not x["stacks"] or "main" not in x["stacks"][0]["frames"]:
        print("FAIL: %s: launching stacks %s" % (name, x["stacks"]))
        ok = False
if g["device_joined"] != g["device_kernels"]:
    print("FAIL: %d of %d kernels joined to their launch" % (g["device_joined"], g["device_kernels"]))
    ok = False
c = {x["direction"]: x for x in g["memcpy"]}
h = c.get("HtoD")
if not h or h["copies"] != 1 or h["bytes"] != 64 << 20:
    print("FAIL: HtoD copies %s" % g["memcpy"])
    ok = False
else:
    print("HtoD: 1 copy, %d bytes, %d ns (%.1f GB/s)" % (h["bytes"], h["device_ns"], h["bytes"] / h["device_ns"]))
sys.exit(0 if ok else 1)
PY
# the timeline: each kernel on its stream's track, joined to its launch
"$APERTURE" report -i "$T/g.data" --events gpu --format trace \
	>"$T/trace.json" || fail "report --format trace"
python3 - "$T/trace.json" "$T/g.json" <<'PY' || fail "timeline"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
g = json.load(open(sys.argv[2]))["gpu"]
track = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "thread_name"}
kern = [e for e in ev if e.get("cat") == "gpu-device" and e["args"]["kind"] == "kernel"]
flows = sum(1 for e in ev if e["ph"] == "f")
tracks = sorted({track[(e["pid"], e["tid"])] for e in kern})
total = sum(e["args"]["duration_ns"] for e in kern)
print("timeline: %d kernels on %s, %d flows from their launches, %d ns"
      % (len(kern), tracks, flows, total))
assert len(kern) == g["device_kernels"] == flows, (len(kern), flows)
assert all(t.startswith("GPU ") and " stream " in t for t in tracks), tracks
assert total == sum(k["device_ns"] or 0 for k in g["kernels"]), total
PY
echo "PASS: gpu device times"
