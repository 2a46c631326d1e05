#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# -e syscall sums the calls in the kernel: the counts and errors are
# exact (syscall_exact: N reads and writes per thread, E failing reads and
# opens) and no record travels per call, so the file stays small (a
# per-call frame costs several bytes even compressed); the histogram
# holds every timed call.  -e syscall:calls keeps a record per call with
# the same counts.
. tests/integration/lib.sh
need_bpf
need_cmd python3

N=100000
E=5
"$APERTURE" record -e syscall -o "$T/s.data" -- "$WL/syscall_exact" $N $E 2 \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
grep -q ' 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"
"$APERTURE" record -e syscall:calls -o "$T/c.data" -- "$WL/syscall_exact" $N $E 2 \
	2>"$T/rec2.err" || fail "record syscall:calls: $(cat "$T/rec2.err")"
grep -q ' 0 lost' "$T/rec2.err" || fail "summary line: $(cat "$T/rec2.err")"

check() {
	"$APERTURE" report -i "$1" --events syscall --per-thread --hist \
		--format json >"$T/j" || fail "report $1"
	python3 - "$T/j" $N $E "$(stat -c %s "$1")" "$2" <<'PY' || fail "$1"
import json, sys
d = json.load(open(sys.argv[1]))["syscall"]
n, e, size, mode = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = d["rows"]
def total(name, key):
    return sum(r[key] for r in rows if r["syscall"] == name)
reads, writes = total("read", "calls"), total("write", "calls")
print("%s: read %d (%d errors), write %d, openat errors %d, %d bytes for %d calls"
      % (mode, reads, total("read", "errors"), writes, total("openat", "errors"),
         size, reads + writes))
assert reads == 2 * n + e and writes == 2 * n, "read/write calls"
assert total("read", "errors") == e and total("openat", "errors") == e
assert total("write", "errors") == 0
for r in rows:
    if r["syscall"] in ("read", "write"):
        assert sum(b["count"] for b in r["hist"]) == r["calls"], r["syscall"]
threads = {r["tid"] for r in rows if r["syscall"] == "write"}
assert len(threads) == 2, threads
if mode == "sums":
    assert size < 64 * 1024, "%d bytes: records per call?" % size
else:
    assert size > 2 * (reads + writes), "%d bytes: no record per call?" % size
PY
}
check "$T/s.data" sums
check "$T/c.data" calls
grep -q 'sensor  : syscall from raw_syscalls, summed in the kernel' \
	"$("$APERTURE" report -i "$T/s.data" --events syscall >"$T/t"; echo "$T/t")" ||
	fail "sensor line: $(grep sensor "$T/t")"
exit 0
