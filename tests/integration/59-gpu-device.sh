#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# GPU device times through CUPTI without a GPU: gpu_device runs its
# kernels, copies and memsets on the stand-in device of the stand-in
# CUPTI (tests/workloads/fakecupti), loaded by libaperture-cupti.so, and
# prints what it did.  The report's device times (total, avg, p95, max per
# kernel), copies by direction, memsets and synchronisations must equal
# that truth exactly; every kernel is joined to its launch and its stack;
# the last round's records come back only through the flush at exit.
# Then: a CUDA_INJECTION64_PATH of another tool is kept and the launches
# are still recorded; and record -p on a program started with the
# injection library by `aperture gpu-env`.
# Skipped where libaperture-cupti.so was not built (no CUDA toolkit).
. tests/integration/lib.sh
need_bpf
[ -r "$BUILD/libaperture-cupti.so" ] ||
	skip_tool "libaperture-cupti.so not built (needs CUPTI headers: CUDA toolkit)"
[ -r "$WL/fakecupti/libcupti.so.13" ] || fail "stand-in libcupti.so.13 not built"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to read the json"

check_json() {	# report.json truth.json joined(1|0)
	python3 - "$@" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))
joined = sys.argv[3] == "1"
g = rep["gpu"]
ok = True
def bad(msg):
    global ok
    ok = False
    print("json:", msg)
if rep["header"]["duration_s"] > 60:
    bad("duration %s s: device times not on the recording's clock" % rep["header"]["duration_s"])
kernels = {k["name"]: k for k in g["kernels"]}
if set(kernels) != set(truth["kernels"]):
    bad("kernels %s, want %s" % (sorted(kernels), sorted(truth["kernels"])))
calls = {"spin_short(unsigned long*)": "launch_short",
         "spin_long(unsigned long*)": "launch_long", "tile_kernel": "launch_tile"}
for name, t in truth["kernels"].items():
    k = kernels.get(name)
    if not k:
        continue
    got = (k["device_kernels"], k["device_ns"], k["device_ns_avg"],
           k["device_ns_p95"], k["device_ns_max"])
    want = (t["count"], t["total"], round(t["total"] / t["count"]), t["p95"], t["max"])
    if got != want:
        bad("%s: device count/total/avg/p95/max %s, want %s" % (name, got, want))
    if k["launches"] != t["count"]:
        bad("%s: %s launches, want %s" % (name, k["launches"], t["count"]))
    if joined:
        st = k["stacks"]
        if not st or calls[name] not in st[0]["frames"] or "main" not in st[0]["frames"]:
            bad("%s: launching stacks %s" % (name, st))
nk = sum(t["count"] for t in truth["kernels"].values())
if g["device_kernels"] != nk:
    bad("device_kernels %s, want %s" % (g["device_kernels"], nk))
if joined and g["device_joined"] != nk:
    bad("device_joined %s, want %s" % (g["device_joined"], nk))
copies = {c["direction"]: [c["copies"], c["bytes"], c["device_ns"]] for c in g["memcpy"]}
if copies != truth["memcpy"]:
    bad("memcpy %s, want %s" % (copies, truth["memcpy"]))
m = g["memset"]
if [m["count"], m["bytes"], m["device_ns"]] != truth["memset"]:
    bad("memset %s, want %s" % (m, truth["memset"]))
sync = {s["type"]: s["count"] for s in g["sync"]}
if sync != truth["sync"]:
    bad("sync %s, want %s" % (sync, truth["sync"]))
sys.exit(0 if ok else 1)
PY
}

# record -- CMD: record puts libaperture-cupti.so in CUDA_INJECTION64_PATH
LD_LIBRARY_PATH=$WL/fakecupti "$APERTURE" record -e gpu -o "$T/dev.data" -- \
	"$WL/gpu_device" 3 >"$T/truth.json" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
grep -q 'aperture-cupti:\|no device records' "$T/rec.err" &&
	fail "injection: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/dev.data" --format json >"$T/rep.json" ||
	fail "report --format json"
check_json "$T/rep.json" "$T/truth.json" 1 ||
	fail "device times differ from the truth: $(cat "$T/truth.json")"
"$APERTURE" report -i "$T/dev.data" --events gpu >"$T/table" || fail "report"
grep -q 'kernels run on the device: 174 (174 joined to their launch)' "$T/table" ||
	fail "table header: $(cat "$T/table")"
grep -q '8.25 ms   250.00 us   250.00 us   250.00 us  driver       tile_kernel$' "$T/table" ||
	fail "table row: $(cat "$T/table")"
grep -q '^ *15 *15728640 .* HtoD$' "$T/table" || fail "copies: $(cat "$T/table")"
grep -q 'usdt: cupti' "$T/table" || fail "sensor source: $(cat "$T/table")"

# another tool's injection library: kept, said so, launches still there
CUDA_INJECTION64_PATH=$T/other-tool.so "$APERTURE" record -e gpu \
	-o "$T/other.data" -- "$WL/gpu_device" 1 >/dev/null 2>"$T/other.err" ||
	fail "record with another tool: $(cat "$T/other.err")"
grep -q "CUDA_INJECTION64_PATH is already $T/other-tool.so: kept" "$T/other.err" ||
	fail "no word of the kept injection path: $(cat "$T/other.err")"
"$APERTURE" report -i "$T/other.data" --events gpu --format json >"$T/other.json" ||
	fail "report"
python3 - "$T/other.json" <<'PY' || fail "host launches without CUPTI: $(cat "$T/other.json")"
import json, sys
g = json.load(open(sys.argv[1]))["gpu"]
sys.exit(0 if g["launches"] == 58 and g["device_ns"] is None and g["device_kernels"] == 0 else 1)
PY

# record -p: the program was started with the injection library by
# aperture gpu-env
"$APERTURE" gpu-env | grep -qx "CUDA_INJECTION64_PATH=$BUILD/libaperture-cupti.so" ||
	fail "gpu-env prints: $("$APERTURE" gpu-env 2>&1)"
LD_LIBRARY_PATH=$WL/fakecupti "$APERTURE" gpu-env -- \
	"$WL/gpu_device" 2 wait "$T/go" >"$T/ptruth.json" 2>"$T/wl.err" &
wl=$!
trap 'kill $wl 2>/dev/null; rm -rf "$T"' EXIT INT TERM
"$APERTURE" record -e gpu -p $wl -o "$T/pid.data" 2>"$T/prec.err" &
rec=$!
i=0
while [ ! -s "$T/pid.data" ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
sleep 0.3
touch "$T/go"
wait $wl || fail "gpu_device failed: $(cat "$T/wl.err")"
wait $rec || fail "record -p: $(cat "$T/prec.err")"
"$APERTURE" report -i "$T/pid.data" --format json >"$T/prep.json" ||
	fail "report -p"
check_json "$T/prep.json" "$T/ptruth.json" 1 ||
	fail "record -p: device times differ from the truth"
exit 0
