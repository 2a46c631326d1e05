#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A recording is anyone's file: a header whose host name holds
# Pyroscope's separators, an escape sequence and a byte that is no UTF-8,
# and whose labels are half bad.  push sends what both servers take (the
# host cleaned, the bad labels left out, the good one kept), and report's
# pprof keeps the good label alone.  A header of 20 labels: 16 sent, the
# rest said.
. tests/integration/lib.sh
. tests/integration/push.inc

python3 - tests/golden/cpu-lock-io.data "$T/h.data" <<'PY' || fail "rewrite"
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
L = struct.unpack_from("<I", d, 12)[0]
pay, i, keep = d[16:16 + L], 0, []
while i < len(pay):
    k, n = struct.unpack_from("<HH", pay, i)
    if k not in (7, 9, 12):			# host, cmdline, labels
        keep.append(pay[i:i + 4 + n])
    i += 4 + n
def tlv(k, v):
    return struct.pack("<HH", k, len(v)) + v
new = b"".join(keep) + tlv(7, b"evil,host}{x=y\x1b[31m\xff") + \
    tlv(12, b"ok=1\nbad-name=x\nservice=a,b\n__name__=z\nnl=a\x01b\n")
room = L - len(new) - 4
assert room >= 0, "no room for the rewrite"
new += tlv(9, b"x" * room)
hdr = d[8:12] + struct.pack("<I", L) + new
out = d[:8] + hdr + struct.pack("<I", zlib.crc32(hdr) & 0xffffffff) + \
    d[20 + L:]
open(sys.argv[2], "wb").write(out)
# the same with 20 good labels
new = b"".join(keep) + tlv(12, b"".join(b"l%d=v\n" % i for i in range(20)))
new += tlv(9, b"x" * (L - len(new) - 4))
hdr = d[8:12] + struct.pack("<I", L) + new
open(sys.argv[2] + ".many", "wb").write(
    d[:8] + hdr + struct.pack("<I", zlib.crc32(hdr) & 0xffffffff) +
    d[20 + L:])
PY
"$APERTURE" report -i "$T/h.data" --header-only >/dev/null 2>"$T/err" ||
	fail "the rewritten file does not read: $(cat "$T/err")"

receiver pyroscope "$T/py"
"$APERTURE" push --to "pyroscope+http://127.0.0.1:$PORT" "$T/h.data" \
	2>"$T/err" || fail "push pyroscope: $? $(cat "$T/err")"
[ -s "$T/py/refused.jsonl" ] && fail "refused: $(cat "$T/py/refused.jsonl")"
[ "$(got "$T/py" 'g[0]["series"]["host"]')" = \
	"$(printf 'evil_host__x_y_[31m\357\277\275')" ] ||
	fail "host: $(got "$T/py" 'ascii(g[0]["series"]["host"])')"
[ "$(got "$T/py" 'sorted(k for k in g[0]["series"] if k not in ("__name__", "__delta__", "pyroscope_spy", "service_name"))')" = \
	"['host', 'ok', 'service']" ] ||
	fail "labels: $(got "$T/py" 'g[0]["series"]')"
receiver parca "$T/pa"
"$APERTURE" push --to "parca+http://127.0.0.1:$PORT" "$T/h.data" \
	2>"$T/err" || fail "push parca: $? $(cat "$T/err")"
[ "$(got "$T/pa" 'sorted(g[0]["labels"])')" = "['host', 'ok', 'service']" ] ||
	fail "parca labels: $(got "$T/pa" 'g[0]["labels"]')"
"$APERTURE" push --to "parca+http://127.0.0.1:$PORT" "$T/h.data.many" \
	2>"$T/err" || fail "push 20 labels: $? $(cat "$T/err")"
[ "$(got "$T/pa" 'sorted(g[1]["labels"], key=lambda k: (len(k), k))')" = \
	"['l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7', 'l8', 'l9', 'l10', 'l11', 'l12', 'l13', 'l14', 'l15', 'host', 'service']" ] ||
	fail "20 labels: $(got "$T/pa" 'g[1]["labels"]')"
grep -q 'more than 16 labels' "$T/err" || fail "20 labels: not said: $(cat "$T/err")"
"$APERTURE" report -i "$T/h.data" --format pprof >"$T/h.pb.gz" 2>/dev/null ||
	fail "report pprof"
python3 - "$T/h.pb.gz" <<'PY' || fail "pprof labels"
import sys
sys.path.insert(0, "tests/integration")
import push_receiver as r
p = r.decode(open(sys.argv[1], "rb").read())
for _, lab, _, _ in p["samples"]:
    extra = set(lab) - {"pid", "tid", "comm", "cgroup", "container_id"}
    assert extra == {"ok"} and lab["ok"] == "1", lab
PY
exit 0
