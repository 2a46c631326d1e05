#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# -c 1 samples every fault: when the ring buffer overflows (made small
# with -m so that it does), the lost count is recorded and the period
# doubles (and the estimated total stays near the truth); the lost
# samples' stacks were unwound with them, and the header counts both;
# bad --mem-density and -c values are usage errors.
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$APERTURE" record -e mem -c 1 -m 64K -o "$T/c1.data" -- "$WL/mem_touch" 10 \
	2>"$T/rec.err" || fail "record -c 1: $(cat "$T/rec.err")"
cat "$T/rec.err"
"$APERTURE" report -i "$T/c1.data" --format json >"$T/c1.json" || fail "report"
python3 - "$T/c1.json" "$T/rec.err" <<'PY' || fail "lost/period checks"
import json, re, sys
d = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
m = d["mem"]
print("samples", m["samples"], "weight", m["weight"], "lost", m["lost"],
      "period", m["period"])
assert m["period"]["initial"] == 1
doublings = re.findall(r"period doubled to (\d+)", err)
if m["lost"]:
    # every loss either doubled the period or found it at the bound
    assert m["period"]["changes"] >= 1
    assert m["period"]["final"] == 2 ** m["period"]["changes"]
    assert doublings and int(doublings[-1]) == m["period"]["final"]
    # and the loss is in the file's drop counters, which the header sums
    # (with the task records the ring dropped, if any)
    assert d["header"]["lost"] >= m["lost"], d["header"]["lost"]
    # a lost sample's stack was unwound all the same; no sample lacks one
    u = d["header"]["unwind"]
    assert m["samples"] <= u["stacks"] <= m["samples"] + m["lost"], (u, m)
else:
    assert m["period"]["changes"] == 0 and not doublings
truth = 19456 * 10
if not m["source"].startswith("ibs"):
    # weighted by the period in force: within a few percent of the truth
    # even with losses (those are a fraction of one period's worth)
    assert 0.85 * truth <= m["weight"] <= 1.03 * truth, (m["weight"], truth)
PY

"$APERTURE" record -e mem --mem-density bogus -- true 2>"$T/e1"
[ $? -eq 64 ] || fail "bad --mem-density: exit status"
grep -q "bad density 'bogus'" "$T/e1" || fail "bad --mem-density message"
"$APERTURE" record -e mem -c 0 -- true 2>"$T/e2"
[ $? -eq 64 ] || fail "-c 0: exit status"
"$APERTURE" record --help | grep -q 'mem' || fail "--help does not name mem"
exit 0
