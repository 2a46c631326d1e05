#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lock:pthread stacks are taken where pthread_mutex_lock returns: the leaf
# is a return address and names the caller (worker), not the code inlined
# right after the call (spin_held).
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$APERTURE" record -e lock:pthread -o "$T/l.data" -- "$WL/lock_inline" 50 \
	>/dev/null 2>"$T/err" || fail "record: $(cat "$T/err")"
"$APERTURE" report -i "$T/l.data" --events lock --format json >"$T/json" ||
	fail "report"
python3 - "$T/json" <<'PY' || fail "leaf frames"
import json, sys
d = json.load(open(sys.argv[1]))["lock"]
pt = [l for l in d["locks"] if l["kind"] == "pthread" and l["name"] == "inline_mutex"]
assert pt, [l["name"] for l in d["locks"]]
leaves = [s["frames"][0] for s in pt[0]["stacks"]]
print("leaves:", leaves)
assert leaves and all(f == "worker" for f in leaves), leaves
PY
exit 0
