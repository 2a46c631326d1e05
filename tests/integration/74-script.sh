#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture script (and report --format events): one line per event with
# its fields and stack, as perf script; --format jsonl.  syscall_exact's
# truth: N reads and N writes per thread, ERRS EBADF reads and ERRS ENOENT
# openats on the main thread.
. tests/integration/lib.sh
need_bpf
need_cmd python3

N=500 ERRS=7
"$APERTURE" record -e syscall --syscall-stacks -o "$T/s.data" -- \
	"$WL/syscall_exact" $N $ERRS 2 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
"$APERTURE" script -i "$T/s.data" >"$T/text" 2>"$T/err" ||
	fail "script: $(cat "$T/err")"
"$APERTURE" report -i "$T/s.data" --format events >"$T/text2" ||
	fail "report --format events"
cmp -s "$T/text" "$T/text2" || fail "report --format events differs from script"
head -8 "$T/text"
w=$(grep -c ': syscall: write ret=1 ' "$T/text")
[ "$w" -eq $((2 * N)) ] || fail "$w write lines, want $((2 * N))"
e=$(grep -c ': syscall: read ret=-9 errno=EBADF ' "$T/text")
[ "$e" -eq $ERRS ] || fail "$e EBADF reads, want $ERRS"
# the stack under each line, leaf first, one frame a line
grep -A4 ': syscall: write ret=1 ' "$T/text" | grep -q '^	sc_write (syscall_exact)$' ||
	fail "no sc_write frame under a write"

"$APERTURE" script -i "$T/s.data" --format jsonl --events syscall >"$T/jsonl" ||
	fail "script --format jsonl"
python3 - "$T/jsonl" $N $ERRS <<'PY' || fail "jsonl check"
import json, sys
n, errs = int(sys.argv[2]), int(sys.argv[3])
ev = [json.loads(l) for l in open(sys.argv[1])]
by = {}
for e in ev:
    for k in ("ts", "pid", "tid", "cpu", "comm", "event", "name", "dur_ns"):
        assert k in e, (k, e)
    by.setdefault((e["tid"], e["name"]), []).append(e)
tids = {t for t, name in by if name == "write"}
assert len(tids) == 2, tids
for t in tids:
    reads = [e for e in by.get((t, "read"), []) if e["ret"] >= 0]
    assert len(by[(t, "write")]) == n and len(reads) == n, t
enoent = [e for e in ev if e["name"] == "openat" and e.get("errno") == "ENOENT"]
assert len(enoent) == errs, len(enoent)
assert all(e["stack"][0]["sym"] for e in ev if "stack" in e)
PY
# in-kernel totals ran on no CPU: no made-up one in either format
"$APERTURE" record -e syscall -o "$T/sum.data" -- "$WL/syscall_exact" 10 1 1 \
	2>"$T/rec.err" || fail "record (sums): $(cat "$T/rec.err")"
"$APERTURE" script -i "$T/sum.data" >"$T/sum.text" || fail "script (sums)"
grep -q ' \[---\] .*: syscall: write calls=10 ' "$T/sum.text" ||
	fail "summed writes not shown with [---]: $(grep write "$T/sum.text")"
grep -q '4294967295' "$T/sum.text" && fail "a CPU of -1 printed"
"$APERTURE" script -i "$T/sum.data" --format jsonl >"$T/sum.jsonl" ||
	fail "script --format jsonl (sums)"
grep '"calls"' "$T/sum.jsonl" | grep -q '"cpu"' && fail "totals given a cpu"
# filters and usage errors
"$APERTURE" script -i "$T/s.data" --tid 1 | grep -q . && fail "--tid 1 printed events"
"$APERTURE" script -i "$T/s.data" --events bogus 2>/dev/null
[ $? -eq 64 ] || fail "--events bogus did not exit 64"
exit 0
