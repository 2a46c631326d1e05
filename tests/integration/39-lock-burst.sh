#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A burst: futex_loop makes 200,000 futex waits that return at once, as
# fast as it can, from its first instruction.  record -e lock keeps every
# one (records sized by their stacks' depth, the ring drained from before
# the command runs): 0 lost, and exactly 200,000 waits on loop_word, of
# class "other" (no mutex: not in the default table).
. tests/integration/lib.sh
need_bpf
need_cmd python3

N=200000
"$APERTURE" record -e lock -o "$T/b.data" -- "$WL/futex_loop" $N \
	>"$T/wl.out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
cat "$T/wl.out" "$T/rec.err"
grep -q "^futex_loop: calls $N eagain $N\$" "$T/wl.out" ||
	fail "workload: $(cat "$T/wl.out")"
grep -q ' 0 lost' "$T/rec.err" || fail "events lost: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/b.data" --events lock --lock-class all --format json \
	>"$T/json" || fail "report"
python3 - "$T/json" $N <<'PY' || fail "json check"
import json, sys
d = json.load(open(sys.argv[1]))["lock"]
n = int(sys.argv[2])
loop = [l for l in d["locks"] if l["name"] == "loop_word"]
assert len(loop) == 1, [l["name"] for l in d["locks"]]
l = loop[0]
print("loop_word: %d waits, class %s, errors %d" %
      (l["contentions"], l["class"], l["errors"]))
assert l["contentions"] == n, l["contentions"]
assert l["errors"] == n, l["errors"]	# every one EAGAIN
assert l["class"] == "other", l["class"]
PY
exit 0
