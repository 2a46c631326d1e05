#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The gpu view's exports and the GPU's work on the timeline, with the
# stand-in CUPTI (tests/workloads/fakecupti) and gpu_device's truth (the
# kernels' count and device time, the copies by direction):
# - pprof (go tool pprof -raw): per kernel, launches and device time under
#   the launching stack, equal to the truth; device time the default type;
# - speedscope: device time per kernel, nanoseconds; svg: xmllint;
#   folded: launches per kernel;
# - trace: each device record a slice on its "GPU d stream s" track with
#   its exact duration, each kernel joined by a flow arrow to the launch
#   call of the same kernel on the launching thread; synchronisations on
#   a track of their own;
# - script: the device's records in the dump, in time order.
. tests/integration/lib.sh
need_bpf
[ -r "$BUILD/libaperture-cupti.so" ] ||
	skip_tool "libaperture-cupti.so not built (needs CUPTI headers: CUDA toolkit)"
[ -r "$WL/fakecupti/libcupti.so.13" ] || fail "stand-in libcupti.so.13 not built"
need_cmd python3
need_cmd go
need_cmd xmllint
export HOME="$T"		# pprof keeps nothing in the user's home

LD_LIBRARY_PATH=$WL/fakecupti "$APERTURE" record -e gpu -o "$T/dev.data" -- \
	"$WL/gpu_device" 2 >"$T/truth.json" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
rep() {	# FORMAT OUT
	"$APERTURE" report -i "$T/dev.data" --events gpu --format "$1" \
		>"$T/$2" 2>"$T/rep.err" ||
		fail "report --format $1: $(cat "$T/rep.err")"
}
rep pprof gpu.pb.gz
rep speedscope gpu.speedscope.json
rep svg gpu.svg
rep folded gpu.folded
rep trace trace.json
go tool pprof -raw "$T/gpu.pb.gz" >"$T/raw" 2>"$T/pprof.err" ||
	fail "go tool pprof -raw: $(cat "$T/pprof.err")"
xmllint --noout "$T/gpu.svg" || fail "svg is not well-formed XML"
grep -q 'tile_kernel_\[gpu\]' "$T/gpu.svg" || fail "no kernel frame in the svg"
"$APERTURE" script -i "$T/dev.data" --format jsonl >"$T/jsonl" ||
	fail "script --format jsonl"

python3 - "$T" <<'PY' || fail "exports differ from the truth: $(cat "$T/truth.json")"
import json, re, sys
from collections import Counter, defaultdict
T = sys.argv[1]
truth = json.load(open(T + "/truth.json"))
kern = truth["kernels"]
want_ns = {k: v["total"] for k, v in kern.items()}
want_n = {k: v["count"] for k, v in kern.items()}
ok = True
def check(what, got, want):
    global ok
    print("%s: %s" % (what, dict(got)))
    if dict(got) != want:
        print("  want %s" % want)
        ok = False

# pprof: leaf location of each sample, its full name (s=0(NAME))
raw = open(T + "/raw").read()
types = re.search(r"^Samples:\n(.*)$", raw, re.M).group(1).split()
if types != ["launches/count", "launch/nanoseconds", "device/nanoseconds[dflt]"]:
    print("pprof sample types", types); ok = False
names = {}
for m in re.finditer(r"^\s+(\d+): 0x\w+ (?:M=\d+ )?(\S+) .*?s=\d+(?:\((.*)\))?$",
                     raw.split("\nLocations\n")[1], re.M):
    names[m.group(1)] = m.group(3) or m.group(2)
dev, launches = Counter(), Counter()
stacks = defaultdict(set)
for m in re.finditer(r"^\s+(\d+)\s+(\d+)\s+(\d+): ([\d ]+)$",
                     raw.split("\nLocations\n")[0], re.M):
    locs = m.group(4).split()
    leaf = names[locs[0]]
    assert leaf.endswith("_[gpu]"), leaf
    k = leaf[:-len("_[gpu]")]
    launches[k] += int(m.group(1))
    dev[k] += int(m.group(3))
    stacks[k].update(names[l] for l in locs[1:])
check("pprof device ns", dev, want_ns)
check("pprof launches", launches, want_n)
for k, fn in (("spin_short(unsigned long*)", "launch_short"),
              ("tile_kernel", "launch_tile")):
    if fn not in stacks[k] or "main" not in stacks[k]:
        print("pprof: %s launched from %s" % (k, stacks[k])); ok = False

# speedscope: device time per kernel (the leaf frame)
sp = json.load(open(T + "/gpu.speedscope.json"))
frames = [f["name"] for f in sp["shared"]["frames"]]
sdev = Counter()
for p in sp["profiles"]:
    assert p["type"] == "sampled" and p["unit"] == "nanoseconds", p["unit"]
    for s, w in zip(p["samples"], p["weights"]):
        sdev[frames[s[-1]][:-len("_[gpu]")]] += w
check("speedscope device ns", sdev, want_ns)

# folded: launches per kernel
fl = Counter()
for line in open(T + "/gpu.folded"):
    stack, n = line.rsplit(" ", 1)
    fl[stack.split(";")[-1][:-len("_[gpu]")]] += int(n)
check("folded launches", fl, want_n)

# trace: tracks, durations, flows
ev = json.load(open(T + "/trace.json"))["traceEvents"]
track = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "thread_name"}
devx = [e for e in ev if e["ph"] == "X" and e["cat"] == "gpu-device"]
tdev = Counter()
copies = Counter()
for e in devx:
    name = track[(e["pid"], e["tid"])]
    if e["args"]["kind"] == "sync":
        assert name == "GPU 0 synchronisations", (name, e)
        continue
    assert name == "GPU %d stream %d" % (e["args"]["device"], e["args"]["stream"]), (name, e)
    assert round(e["dur"] * 1000) == e["args"]["duration_ns"], e
    if e["args"]["kind"] == "kernel":
        tdev[e["name"]] += e["args"]["duration_ns"]
    elif e["args"]["kind"] == "memcpy":
        copies[e["name"].split()[1]] += 1
check("trace device ns", tdev, want_ns)
check("trace copies", copies, {k: v[0] for k, v in truth["memcpy"].items()})
launch = [e for e in ev if e["ph"] == "X" and e["cat"] == "gpu"]
def enclosing(p):
    return [e for e in ev if e["ph"] == "X" and e["pid"] == p["pid"] and
            e["tid"] == p["tid"] and e["ts"] <= p["ts"] <= e["ts"] + e["dur"]]
s = {e["id"]: e for e in ev if e["ph"] == "s"}
f = {e["id"]: e for e in ev if e["ph"] == "f"}
joined = 0
for i, a in s.items():
    b = f.get(i)
    x, y = enclosing(a), enclosing(b) if b else []
    if (b and b.get("bp") == "e" and len(x) == 1 and len(y) == 1 and
            x[0]["cat"] == "gpu" and y[0]["cat"] == "gpu-device" and
            x[0]["name"] == y[0]["name"]):
        joined += 1
nk = sum(want_n.values())
print("flows joining a launch to its kernel: %d of %d kernels" % (joined, nk))
if joined != nk or len(s) != nk:
    ok = False

# script: every device record, in time order
js = [json.loads(l) for l in open(T + "/jsonl")]
ts = [e["ts"] for e in js]
kinds = Counter(e["kind"] for e in js if e["event"] == "gpu-device")
print("script: %d events, device records %s" % (len(js), dict(kinds)))
if ts != sorted(ts):
    print("script: not in time order"); ok = False
if kinds["kernel"] != nk or kinds["memset"] != truth["memset"][0]:
    ok = False
sys.exit(0 if ok else 1)
PY
exit 0
