#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lock:pthread stacks are taken where glibc's slow path returns into
# pthread_mutex_lock: every frame is a return address, and the first
# frame past the C library's names the caller (worker), not the code
# inlined right after the call (spin_held).
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$APERTURE" record -e lock:pthread -o "$T/l.data" -- "$WL/lock_inline" 50 \
	>/dev/null 2>"$T/err" || fail "record: $(cat "$T/err")"
grep -q 'no lock:pthread: no __lll_lock_wait' "$T/err" &&
	skip "glibc without debug symbols (libc6-dbg): $(cat "$T/err")"
"$APERTURE" report -i "$T/l.data" --events lock --format json >"$T/json" ||
	fail "report"
python3 - "$T/json" <<'PY' || fail "leaf frames"
import json, sys
d = json.load(open(sys.argv[1]))["lock"]
pt = [l for l in d["locks"] if l["kind"] == "pthread" and l["name"] == "inline_mutex"]
assert pt, [l["name"] for l in d["locks"]]
def caller(frames):
    libc = ("mutex", "lll_")
    return next(f for f in frames if not any(w in f for w in libc))
leaves = [caller(s["frames"]) for s in pt[0]["stacks"]]
print("callers:", leaves, [s["frames"][:3] for s in pt[0]["stacks"]])
assert leaves and all(f == "worker" for f in leaves), leaves
PY
exit 0
