#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# -e io sums calls in the kernel: dd bs=1 count=N reads /dev/zero and
# writes /dev/null exactly N times each.  The summed recording counts
# them exactly, as -e io:calls (a record per call) does, in a file at
# least 20 times smaller; script shows the sums as such.  The per-call
# records pass through the ring buffer, which a reader slower than dd
# (the sanitizer build, a busy machine) can let fill: then every record
# missing must be counted as lost, and the calls recorded plus those
# losses account for all N (the sums, in the kernel, lose nothing).
. tests/integration/lib.sh
need_bpf
need_cmd python3

N=100000
# the sanitizer build reads two to three times slower: a bigger ring
m=
sanitized && m="-m 16M"
for ev in io io:calls; do
	opt=
	[ $ev = io:calls ] && opt=$m
	"$APERTURE" record -e $ev $opt -o "$T/$ev.data" -- \
		dd if=/dev/zero of=/dev/null bs=1 count=$N >/dev/null 2>"$T/$ev.err" ||
		fail "record -e $ev: $(cat "$T/$ev.err")"
	[ $ev = io:calls ] || grep -q ' 0 lost' "$T/$ev.err" ||
		fail "-e $ev lost events: $(cat "$T/$ev.err")"
	"$APERTURE" report -i "$T/$ev.data" --events io --format json >"$T/$ev.json" ||
		fail "report $ev"
done
grep -q 'sensor  : io from .*summed in the kernel' "$T/io.err" ||
	"$APERTURE" report -i "$T/io.data" --events io | grep -q '^# sensor  : io from .*summed in the kernel' ||
	fail "sensor line of -e io"
python3 - "$T" $N <<'PY' || fail "json check"
import json, os, sys
t, n = sys.argv[1], int(sys.argv[2])
def load(ev):
    d = json.load(open("%s/%s.json" % (t, ev)))
    io = d["io"]
    lost = d["header"]["lost"] + io["unresolved"] + io["table_full"]
    return {(r["dir"], r["resource"]): r for r in io["rows"]}, lost
for ev in ("io", "io:calls"):
    r, lost = load(ev)
    z, nul = r[("read", "/dev/zero")], r[("write", "/dev/null")]
    print("%-8s /dev/zero %d calls %d bytes, /dev/null %d calls %d bytes, %d lost, file %d bytes" %
          (ev, z["calls"], z["bytes"], nul["calls"], nul["bytes"], lost,
           os.path.getsize("%s/%s.data" % (t, ev))))
    assert z["errors"] == 0, z
    if ev == "io" or not lost:
        assert lost == 0
        assert z["calls"] == n and z["bytes"] == n, z
        assert nul["calls"] == n and nul["bytes"] == n, nul
        recorded = 2 * n
    else:
        # one byte per call; every call not recorded was counted lost
        assert z["calls"] <= n and z["bytes"] == z["calls"], z
        assert nul["calls"] <= n and nul["bytes"] == nul["calls"], nul
        recorded = z["calls"] + nul["calls"]
        assert 2 * n - recorded <= lost, "%d calls missing, %d lost" % (
            2 * n - recorded, lost)
# a record per call costs at least 20 times the sums' whole file per 2N
a, b = os.path.getsize(t + "/io.data"), os.path.getsize(t + "/io:calls.data")
assert a * 20 * recorded <= b * 2 * n, (a, b, recorded)
PY
"$APERTURE" script -i "$T/io.data" >"$T/script" 2>&1 || fail "script: $(tail -3 "$T/script")"
grep -q ' calls=[0-9]* bytes=[0-9]* errors=0 type=chardev resource=/dev/zero' "$T/script" || fail "script shows no sums: $(head -5 "$T/script")"
exit 0
