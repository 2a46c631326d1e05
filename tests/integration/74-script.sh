#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture script (and report --format events): one line per event with
# its fields and stack, in perf script's layout; -F; --format jsonl.
# (74-script-perf-consumers.sh: what reads perf script reads it.)  syscall_exact's
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
# comm pid/tid [cpu] time: period (the duration) event: name fields
w=$(grep -Ec '^syscall_exact +[0-9]+/[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: +[0-9]+ syscall: write ret=1 ' "$T/text")
[ "$w" -eq $((2 * N)) ] || fail "$w write lines, want $((2 * N))"
e=$(grep -c ' syscall: read ret=-9 errno=EBADF ' "$T/text")
[ "$e" -eq $ERRS ] || fail "$e EBADF reads, want $ERRS"
grep ' syscall: write ret=1 ' "$T/text" | awk '{ for (i = 1; i < NF; i++)
	if ($i == "syscall:") { p = $(i - 1); break }
	d = $NF; sub("duration_ns=", "", d); if (p != d) bad = 1 }
	END { exit bad }' || fail "a syscall's period is not its duration_ns"
# the stack under each line, leaf first, one frame a line: address,
# sym+0xoff, the binary's path
grep -A4 ' syscall: write ret=1 ' "$T/text" |
	grep -Eq "^	 *[0-9a-f]+ sc_write\+0x[0-9a-f]+ \($WL/syscall_exact\)\$" ||
	fail "no sc_write frame under a write: $(grep -A4 ' syscall: write ret=1 ' "$T/text" | head -5)"

# -F: perf script's field lists, +field and -field
"$APERTURE" script -i "$T/s.data" -F comm,tid,time,event,trace >"$T/f1" ||
	fail "script -F comm,tid,time,event,trace"
grep -Eq '^ +syscall_exact +[0-9]+ +[0-9]+\.[0-9]{6}: syscall: write ret=1 ' "$T/f1" ||
	fail "-F comm,tid,time,event,trace: $(grep write "$T/f1" | head -1)"
grep -q '^	' "$T/f1" && fail "-F without ip printed stacks"
"$APERTURE" script -i "$T/s.data" -F -period,-symoff,-cpu >"$T/f2" ||
	fail "script -F -period,-symoff,-cpu"
grep -Eq '^syscall_exact +[0-9]+/[0-9]+ +[0-9]+\.[0-9]{6}: syscall: write ret=1 ' "$T/f2" ||
	fail "-F -period,-cpu: $(grep write "$T/f2" | head -1)"
grep -Eq "^	 *[0-9a-f]+ sc_write \($WL/syscall_exact\)\$" "$T/f2" ||
	fail "-F -symoff: $(grep sc_write "$T/f2" | head -1)"
"$APERTURE" script -i "$T/s.data" -F ip,sym | grep -Eq '^	 *[0-9a-f]+ sc_write$' ||
	fail "-F ip,sym"
for bad in comm,+tid bogus symoff; do
	"$APERTURE" script -i "$T/s.data" -F "$bad" >/dev/null 2>"$T/err"
	[ $? -eq 64 ] || fail "-F $bad did not exit 64"
done
grep -q 'symoff needs sym' "$T/err" || fail "-F symoff: $(cat "$T/err")"

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
# in-kernel totals ran on no CPU: no made-up one in either format (the
# text leaves the field out, as perf for events without a CPU)
"$APERTURE" record -e syscall -o "$T/sum.data" -- "$WL/syscall_exact" 10 1 1 \
	2>"$T/rec.err" || fail "record (sums): $(cat "$T/rec.err")"
"$APERTURE" script -i "$T/sum.data" >"$T/sum.text" || fail "script (sums)"
grep -Eq '^syscall_exact +[0-9]+/[0-9]+ +[0-9]+\.[0-9]{6}: +1 syscall: write calls=10 ' "$T/sum.text" ||
	fail "summed writes not shown without a CPU: $(grep write "$T/sum.text")"
grep -q '4294967295' "$T/sum.text" && fail "a CPU of -1 printed"
"$APERTURE" script -i "$T/sum.data" --format jsonl >"$T/sum.jsonl" ||
	fail "script --format jsonl (sums)"
grep '"calls"' "$T/sum.jsonl" | grep -q '"cpu"' && fail "totals given a cpu"
# filters and usage errors
"$APERTURE" script -i "$T/s.data" --tid 1 | grep -q . && fail "--tid 1 printed events"
"$APERTURE" script -i "$T/s.data" --events bogus 2>/dev/null
[ $? -eq 64 ] || fail "--events bogus did not exit 64"
"$APERTURE" script -i "$T/s.data" --format jsonl -F comm 2>/dev/null
[ $? -eq 64 ] || fail "--format jsonl -F did not exit 64"
exit 0
