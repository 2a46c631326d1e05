#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# -e syscall sums the calls in the kernel: the counts and errors are
# exact (syscall_exact: N reads and writes per thread, E failing reads and
# opens) and no record travels per call, so the file stays small (a
# per-call frame costs several bytes even compressed); the histogram
# holds every timed call.  -e syscall:calls keeps a record per call with
# the same counts; those records pass through the ring buffer, which a
# reader slower than the workload (the sanitizer build, a busy machine)
# can let fill: then every call missing must be counted as lost.
. tests/integration/lib.sh
need_bpf
need_cmd python3

N=100000
E=5
# the sanitizer build reads two to three times slower: a bigger ring
m=
sanitized && m="-m 16M"
"$APERTURE" record -e syscall -o "$T/s.data" -- "$WL/syscall_exact" $N $E 2 \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
grep -q ' 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"
"$APERTURE" record -e syscall:calls $m -o "$T/c.data" -- "$WL/syscall_exact" $N $E 2 \
	2>"$T/rec2.err" || fail "record syscall:calls: $(cat "$T/rec2.err")"

check() {
	"$APERTURE" report -i "$1" --events syscall --per-thread --hist \
		--format json >"$T/j" || fail "report $1"
	python3 - "$T/j" $N $E "$(stat -c %s "$1")" "$2" <<'PY' || fail "$1"
import json, sys
d = json.load(open(sys.argv[1]))["syscall"]
n, e, size, mode = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = d["rows"]
lost = d["lost_ringbuf"] + d["lost_table"]
def total(name, key):
    return sum(r[key] for r in rows if r["syscall"] == name)
reads, writes = total("read", "calls"), total("write", "calls")
rerr, oerr = total("read", "errors"), total("openat", "errors")
print("%s: read %d (%d errors), write %d, openat errors %d, %d lost, %d bytes for %d calls"
      % (mode, reads, rerr, writes, oerr, lost, size, reads + writes))
assert total("write", "errors") == 0
for r in rows:
    if r["syscall"] in ("read", "write"):
        assert sum(b["count"] for b in r["hist"]) == r["calls"], r["syscall"]
threads = {r["tid"] for r in rows if r["syscall"] == "write"}
if mode == "sums" or not lost:
    assert lost == 0
    assert reads == 2 * n + e and writes == 2 * n, "read/write calls"
    assert rerr == e and oerr == e
    assert len(threads) == 2, threads
else:
    # every call not recorded was counted lost
    assert reads <= 2 * n + e and writes <= 2 * n, "read/write calls"
    assert rerr <= e and oerr <= e
    assert 1 <= len(threads) <= 2, threads
    missing = (2 * n + e - reads) + (2 * n - writes) + (e - oerr)
    assert missing <= lost, "%d calls missing, %d lost" % (missing, lost)
# percentiles: estimated (and said so) from sums, in order, never past
# the longest call
for r in rows:
    assert r["p50_ns"] <= r["p95_ns"] <= r["p99_ns"] <= r["max_ns"], r
    if mode == "calls" or r["calls"] <= 2:
        assert not r["estimated"], r
    elif r["syscall"] in ("read", "write"):
        assert r["estimated"], r
if mode == "sums":
    assert size < 64 * 1024, "%d bytes: records per call?" % size
else:
    assert size > 2 * (reads + writes), "%d bytes: no record per call?" % size
PY
}
check "$T/s.data" sums
check "$T/c.data" calls
# estimates marked in the table
"$APERTURE" report -i "$T/s.data" --events syscall >"$T/t" || fail "report"
grep -Eq '^  read +[0-9]+ +[0-9]+ +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +~[0-9.]+ [mun]?s' \
	"$T/t" || fail "estimated p50 not marked: $(grep '^  read' "$T/t")"
grep -q 'sensor  : syscall from raw_syscalls, summed in the kernel' \
	"$("$APERTURE" report -i "$T/s.data" --events syscall >"$T/t"; echo "$T/t")" ||
	fail "sensor line: $(grep sensor "$T/t")"
exit 0
