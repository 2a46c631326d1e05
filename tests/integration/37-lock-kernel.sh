#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel lock contention (lock:contention_begin/end): four threads of one
# process mapping and unmapping memory contend on its mmap_lock, an
# rwsem; the report names it mmap_lock with its rwsem type and kernel
# stacks through the rwsem slow path.  Errors: -e lock:bogus.
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$APERTURE" record -e lock:bogus -o "$T/x.data" -- true 2>"$T/err" &&
	fail "-e lock:bogus accepted"
grep -q "unknown event 'lock:bogus'" "$T/err" || fail "error: $(cat "$T/err")"

"$APERTURE" record -e lock -o "$T/lock.data" -- "$WL/lock_contend" mmap 1 \
	>"$T/wl.out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/lock.data" --events lock --format json >"$T/json" ||
	fail "report --format json"
python3 - "$T/json" <<'PY' || fail "json check"
import json, sys
d = json.load(open(sys.argv[1]))["lock"]
mm = [l for l in d["locks"] if l["name"] == "mmap_lock"]
assert mm, [l["name"] for l in d["locks"]]
for l in mm:
    assert l["kind"] == "kernel" and l["type"] in ("rwsem:R", "rwsem:W"), l
    assert l["region"] == "kernel", l
print("mmap_lock: %d contentions, %.1f ms" %
      (sum(l["contentions"] for l in mm), sum(l["total_wait_ns"] for l in mm) / 1e6))
frames = [f for l in mm for s in l["stacks"] for f in s["frames"]]
assert any(f.startswith("rwsem_down_") for f in frames), frames[:10]
assert not any(f.startswith("bpf_prog_") for f in frames), frames[:10]
PY
"$APERTURE" report -i "$T/lock.data" --events lock | grep -q 'rwsem:[RW] .* mmap_lock$' ||
	fail "table has no mmap_lock row"
exit 0
