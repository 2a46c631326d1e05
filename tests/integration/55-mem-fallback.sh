#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e mem where the CPU has no AMD IBS: one line says so and page
# faults are sampled instead.  mem_touch faults 16384 : 1024 : 2048 pages
# per pass on hot_buffer, cold_buffer and a heap block; hot_buffer must
# come out on top by name, shares and the estimated total (samples times
# the period) must match the ground truth, folded stacks must reach the
# touching code, and json must say which source was used.
. tests/integration/lib.sh
need_bpf

PASSES=10
"$APERTURE" record -e mem -o "$T/mem.data" -- "$WL/mem_touch" $PASSES \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
cat "$T/rec.err"
ibs=0
[ -r /sys/bus/event_source/devices/ibs_op/type ] && ibs=1
if [ $ibs -eq 0 ]; then
	grep -qx 'aperture: mem: no AMD IBS op PMU on this CPU: sampling page faults instead' \
		"$T/rec.err" || fail "no fallback line on stderr"
else
	echo "note: this CPU has IBS; the fallback line is not expected"
fi

"$APERTURE" report -i "$T/mem.data" >"$T/table" || fail "report"
sed -n '1,30p' "$T/table"
if [ $ibs -eq 0 ]; then
	grep -q '^# sensor  : mem from page-faults: no AMD IBS op PMU' "$T/table" ||
		fail "report header does not name the fallback source"
	grep -q '^# Memory accesses: [0-9]* samples from page-fault' "$T/table" ||
		fail "mem table does not name its source"
fi
first=$(sed -n '/^# Top data objects/,/^#$/p' "$T/table" | grep -v '^#' | head -1)
echo "$first" | grep -q ' hot_buffer  *mem_touch$' ||
	fail "first data object is not hot_buffer: $first"

"$APERTURE" report -i "$T/mem.data" --format json >"$T/json" || fail "json"
need_cmd python3
python3 - "$T/json" $ibs $PASSES <<'PY' || fail "json checks"
import json, sys
d = json.load(open(sys.argv[1]))
ibs, passes = int(sys.argv[2]), int(sys.argv[3])
m = d["mem"]
objs = {o["object"]: o for o in m["objects"]}
print("source", m["source"], "samples", m["samples"], "weight", m["weight"],
      "lost", m["lost"], "period", m["period"])
assert m["objects"][0]["object"] == "hot_buffer", m["objects"][0]
assert objs["hot_buffer"]["where"] == "mem_touch"
hot = objs["hot_buffer"]["percent"]
cold = objs["cold_buffer"]["percent"]
print("hot %.2f%% cold %.2f%%" % (hot, cold))
if not ibs:
    assert m["source"] == "page-fault", m["source"]
    assert not m["rw_known"]
    # 16384 / 19456 and 1024 / 19456 of the faults
    assert 81.0 <= hot <= 87.5, hot
    assert 4.0 <= cold <= 6.5, cold
    truth = 19456 * passes
    if m["lost"] == 0:
        assert m["period"]["changes"] == 0
        assert 0.97 * truth <= m["weight"] <= 1.02 * truth, (m["weight"], truth)
    sens = [s for s in d["header"]["sensors"] if s["name"] == "mem"]
    assert sens and sens[0]["source"] == "page-faults", sens
    assert "no AMD IBS op PMU" in sens[0]["reason"], sens
    # the sample count is the faults over the period, exactly
    assert m["samples"] * m["period"]["initial"] == m["weight"] or m["lost"]
PY

"$APERTURE" report -i "$T/mem.data" --format folded >"$T/folded" || fail "folded"
cat "$T/folded"
awk 'NF < 2 || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' "$T/folded" ||
	fail "folded lines malformed"
grep -q '^mem_touch;.*main;touch_hot;touch [0-9]*$' "$T/folded" ||
	fail "no folded chain main;touch_hot;touch"
hot=$(awk '/;touch_hot;touch / { h += $NF } { t += $NF } END { printf "%.1f", 100 * h / t }' "$T/folded")
echo "folded touch_hot share $hot%"
[ $ibs -eq 1 ] || within "$hot" 81 87.5 || fail "touch_hot folded share $hot%"
exit 0
