#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# top -e gpu with device times: gpu_device, started with the injection
# library by aperture gpu-env and the stand-in CUPTI, runs its rounds once
# top is watching; with -z the last snapshot's device columns per kernel
# (total, avg, p95, max) equal the workload's truth, the kernels ordered
# by device time, every kernel joined to its launch.
. tests/integration/lib.sh
need_bpf
[ -r "$BUILD/libaperture-cupti.so" ] ||
	skip_tool "libaperture-cupti.so not built (needs CUPTI headers: CUDA toolkit)"
[ -r "$WL/fakecupti/libcupti.so.13" ] || fail "stand-in libcupti.so.13 not built"
need_cmd python3

LD_LIBRARY_PATH=$WL/fakecupti "$APERTURE" gpu-env -- \
	"$WL/gpu_device" 3 wait "$T/go" >"$T/truth.json" 2>"$T/wl.err" &
wl=$!
trap 'kill $wl 2>/dev/null; rm -rf "$T"' EXIT INT TERM
timeout 60 "$APERTURE" top -b -z -d 0.5 -e gpu -p "$wl" >"$T/top" 2>"$T/err" &
top=$!
i=0
until grep -q '^aperture top - ' "$T/top" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "top -e gpu shows nothing: $(cat "$T/err")"
	sleep 0.1
done
touch "$T/go"
wait "$wl" || fail "gpu_device: $(cat "$T/wl.err")"
wait "$top" || fail "top -e gpu: $(cat "$T/err")"
awk '/^aperture top - / { s = "" } { s = s $0 "\n" } END { printf "%s", s }' \
	"$T/top" >"$T/last"
cat "$T/last"
head -1 "$T/last" | grep -q '(exited)' || fail "last snapshot: $(head -1 "$T/last")"
grep -q 'kernels run on the device: 174 (174 joined to their launch)' \
	"$T/last" || fail "device kernels: $(grep 'GPU kernel' "$T/last")"
python3 - "$T/last" "$T/truth.json" <<'PY' || fail "device times differ from the truth"
import json, re, sys
truth = json.load(open(sys.argv[2]))["kernels"]
def ns(v, unit):
    return round(float(v) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit])
rows = []
for line in open(sys.argv[1]):
    # Launches Failed Launch-total Launch-avg Device-total avg p95 max API Kernel
    m = re.match(r"^\s+(\d+)\s+(\d+)\s+(\S+ \S+)\s+(\S+ \S+)\s+(\S+) (\S+)\s+"
                 r"(\S+) (\S+)\s+(\S+) (\S+)\s+(\S+) (\S+)\s+\S+\s+(.+)$", line)
    if m:
        g = m.groups()
        rows.append((g[12], int(g[0]), ns(g[4], g[5]), ns(g[8], g[9]), ns(g[10], g[11])))
print(rows)
assert [r[0] for r in rows] == sorted(truth, key=lambda k: -truth[k]["total"]), rows
for name, n, total, p95, mx in rows:
    t = truth[name]
    assert n == t["count"], (name, n)
    # the table prints 5 significant digits
    assert abs(total - t["total"]) <= t["total"] * 1e-4, (name, total)
    assert abs(p95 - t["p95"]) <= t["p95"] * 1e-4 and abs(mx - t["max"]) <= t["max"] * 1e-4, name
PY
exit 0
