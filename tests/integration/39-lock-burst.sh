#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A burst: futex_loop makes 200,000 futex waits that return at once, as
# fast as it can, from its first instruction.  record -e lock keeps every
# one (records sized by their stacks' depth, the ring drained from before
# the command runs): 0 lost, and exactly 200,000 waits on loop_word, of
# class "other" (no mutex: not in the default table).
# Then the same burst right after kernel lock contentions (futex_loop
# kernel: two threads on one memfd's inode lock): the recorder read the
# kernel's data symbols on the first kernel lock record, 40 to 130 ms in
# which the burst overflowed the ring (2,000 to 17,000 lost every run).
. tests/integration/lib.sh
need_bpf
need_cmd python3

N=200000
# burst NAME [futex_loop's second argument]
burst() {
	"$APERTURE" record -e lock -o "$T/$1.data" -- "$WL/futex_loop" $N $2 \
		>"$T/$1.out" 2>"$T/$1.err" || fail "record $1: $(cat "$T/$1.err")"
	cat "$T/$1.out" "$T/$1.err"
	grep -q "^futex_loop: calls $N eagain $N\$" "$T/$1.out" ||
		fail "workload $1: $(cat "$T/$1.out")"
	grep -q ' 0 lost' "$T/$1.err" ||
		fail "events lost ($1): $(cat "$T/$1.err")"
	"$APERTURE" report -i "$T/$1.data" --events lock --lock-class all \
		--format json >"$T/$1.json" || fail "report $1"
	python3 - "$T/$1.json" $N $1 <<'PY' || fail "json check $1"
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
if sys.argv[3] == "kernel":
    k = sum(l["contentions"] for l in d["locks"] if l["kind"] == "kernel")
    print("kernel lock contentions before the burst: %d" % k)
    assert k > 0, "no kernel lock contended: nothing tested"
PY
}
burst plain
burst kernel kernel
exit 0
