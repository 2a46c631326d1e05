#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --format trace with I/O (-e io:calls): each read/write call a
# slice from its entry to its end, on the "I/O of TID" track beside its
# thread; with -e syscall:calls the calls pair, in order, with the
# syscall slices of the same calls on the thread, each pair overlapping
# (the two sensors time a call on their own, microseconds apart).  io_file's truth: B bytes written to PATH by write,
# pwrite64 and writev, 2 * B read from it (read, pread64, copy_file_range).  aperture script prints the same
# calls at their entry, with their duration.
. tests/integration/lib.sh
need_bpf
need_cmd python3

B=123457
F="$T/data.bin"
"$APERTURE" record -e io:calls,syscall:calls -o "$T/io.data" -- \
	"$WL/io_file" "$F" $B >"$T/out" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err" "$T/out")"
"$APERTURE" report -i "$T/io.data" --format trace >"$T/trace.json" \
	2>"$T/rep.err" || fail "report --format trace: $(cat "$T/rep.err")"
"$APERTURE" script -i "$T/io.data" --events io --format jsonl >"$T/jsonl" ||
	fail "script"
python3 - "$T/trace.json" "$T/jsonl" "$(readlink -f "$F")" $B <<'PY' ||
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
js = [json.loads(l) for l in open(sys.argv[2], errors="replace")]
path, b = sys.argv[3], int(sys.argv[4])
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "thread_name"}
io = [e for e in ev if e.get("cat") == "io"]
sc = [e for e in ev if e.get("cat") == "syscall"]
assert io and all(e["ph"] == "X" and e["dur"] > 0 for e in io), io[:2]
for e in io:
    assert names[(e["pid"], e["tid"])] == "I/O of %d" % e["args"]["tid"], e
# each call pairs with the syscall sensor's slice of it: per thread, the
# calls in order are the syscalls of those names in order, and each pair
# of slices overlaps (both sensors stamp the entry before the call's work
# and the end after it)
two = ("copy_file_range", "sendfile", "splice")
pairs = 0
for tid in {e["args"]["tid"] for e in io}:
    calls = []
    for e in sorted((e for e in io if e["args"]["tid"] == tid), key=lambda e: e["ts"]):
        # the read and write sides of one call share its entry
        if calls and e["name"] in two and calls[-1]["name"] == e["name"] and \
           calls[-1]["ts"] == e["ts"]:
            continue
        calls.append(e)
    names = {e["name"] for e in calls}
    scs = sorted((s for s in sc if s["tid"] == tid and s["name"] in names),
                 key=lambda s: s["ts"])
    assert [e["name"] for e in calls] == [s["name"] for s in scs], \
        ([e["name"] for e in calls], [s["name"] for s in scs])
    for e, s in zip(calls, scs):
        assert e["ts"] < s["ts"] + s["dur"] and s["ts"] < e["ts"] + e["dur"], (e, s)
    pairs += len(calls)
print("io slices %d: %d calls, each paired with its syscall slice" % (len(io), pairs))
w = sum(e["args"]["ret"] for e in io if e["args"]["resource"] == path and
        e["args"]["dir"] == "write" and e["name"] in ("write", "pwrite64", "writev"))
r = sum(e["args"]["ret"] for e in io if e["args"]["resource"] == path and
        e["args"]["dir"] == "read")
print("written %d read %d, want %d and %d" % (w, r, b, 2 * b))
assert w == b and r == 2 * b, (w, r)
# script: the same calls, at their entry, with their duration
assert len(js) == len(io), (len(js), len(io))
assert sorted(e["ts"] for e in js) == sorted(round(e["ts"] * 1000) for e in io)
assert all(e["duration_ns"] > 0 for e in js)
PY
	fail "trace check"
exit 0
