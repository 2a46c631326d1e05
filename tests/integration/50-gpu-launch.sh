#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e gpu -- CMD on gpu_launch, which launches known kernels through
# the stand-in CUDA runtime and driver (tests/workloads/fakecuda): exactly
# 73 launches, with their names (a demangled host stub, driver names from
# cuModuleGetFunction), APIs, grid and block shapes and shared memory; the
# runtime's own call into the driver is not counted twice; stacks reach
# main; folded and json outputs.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -e gpu -o "$T/gpu.data" -- "$WL/gpu_launch" \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
grep -q ' 73 events, 0 lost' "$T/rec.err" || fail "summary: $(cat "$T/rec.err")"
grep -q 'gpu: no CUDA' "$T/rec.err" && fail "claims no CUDA library: $(cat "$T/rec.err")"

"$APERTURE" report -i "$T/gpu.data" --events gpu --format json >"$T/json" ||
	fail "report --format json"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to read the json"
python3 - "$T/json" <<'PY' || fail "json does not match the truth"
import json, sys
d = json.load(open(sys.argv[1]))["gpu"]
want = {
    "vector_add_kernel": ("runtime", 30, [1024, 1, 1], [256, 1, 1], 0, "launch_vector_add"),
    "matmul_kernel(float const*, float const*, float*, int)":
        ("runtime", 20, [64, 64, 1], [16, 16, 1], 2048, "launch_matmul"),
    "reduce_kernel": ("runtime-exc", 7, [128, 1, 1], [512, 1, 1], 4096, "launch_reduce"),
    "softmax_kernel": ("driver", 11, [32, 2, 3], [128, 1, 1], 1024, "launch_softmax"),
    "layernorm_kernel": ("driver-ex", 5, [8, 8, 8], [64, 2, 1], 512, "launch_layernorm"),
}
ok = True
def bad(msg):
    global ok
    ok = False
    print("json:", msg)
if d["launches"] != 73:
    bad("launches %s, want 73" % d["launches"])
if d["device_ns"] is not None:
    bad("device_ns should be unknown (null)")
got = {k["name"]: k for k in d["kernels"]}
if set(got) != set(want):
    bad("kernels %s" % sorted(got))
for name, (api, n, grid, block, smem, caller) in want.items():
    k = got.get(name)
    if not k:
        continue
    if k["api"] != [api] or k["launches"] != n or k["failed"] != 0:
        bad("%s: api %s launches %s failed %s" % (name, k["api"], k["launches"], k["failed"]))
    if k["shapes"] != [{"grid": grid, "block": block, "shared_mem": smem, "launches": n}]:
        bad("%s: shapes %s" % (name, k["shapes"]))
    if k["device_ns"] is not None or not k["launch_ns_total"] > 0:
        bad("%s: times %s %s" % (name, k["launch_ns_total"], k["device_ns"]))
    st = k["stacks"]
    if len(st) != 1 or st[0]["launches"] != n or st[0]["frames"][1:3] != [caller, caller.startswith("launch_") and ("run_runtime" if "runtime" in api else "run_driver")]:
        bad("%s: stacks %s" % (name, st))
    if "main" not in st[0]["frames"]:
        bad("%s: stack does not reach main" % name)
sys.exit(0 if ok else 1)
PY

# folded: one line per launching stack, weighted by launches
"$APERTURE" report -i "$T/gpu.data" --events gpu --format folded >"$T/folded" ||
	fail "report --format folded"
grep -qx 'gpu_launch;.*main;run_runtime;launch_vector_add;cudaLaunchKernel;vector_add_kernel_\[gpu\] 30' "$T/folded" ||
	fail "folded vector_add: $(cat "$T/folded")"
grep -qx 'gpu_launch;.*main;run_driver;launch_softmax;cuLaunchKernel;softmax_kernel_\[gpu\] 11' "$T/folded" ||
	fail "folded softmax: $(cat "$T/folded")"
sum=$(awk '{ n += $NF } END { print n }' "$T/folded")
[ "$sum" = 73 ] || fail "folded sums to $sum launches, want 73"

# table: the honest note on what the times are, one row per kernel
"$APERTURE" report -i "$T/gpu.data" --events gpu >"$T/table" || fail "report"
grep -q '^# GPU kernel launches: 73' "$T/table" || fail "table header: $(cat "$T/table")"
grep -q 'not kernel execution' "$T/table" || fail "table does not say what the times are"
grep -q '^ *30 .* runtime  *vector_add_kernel$' "$T/table" || fail "table row: $(cat "$T/table")"
grep -q 'grid(32,2,3) block(128,1,1) shared 1024' "$T/table" || fail "table shape"
# the default views of a -e gpu file include gpu
"$APERTURE" report -i "$T/gpu.data" | grep -q '^# GPU kernel launches: 73' ||
	fail "report without --events does not show gpu"
exit 0
