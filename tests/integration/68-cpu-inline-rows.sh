#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Table rows are ELF functions, as perf's Symbol column: inline_hot spends
# its time in hot_step(), always inlined into hot_host().  By default the
# row is hot_host with (nearly) all the self time and hot_step has no row;
# the folded stacks keep the inline frame; --inline gives it its row.
# perf report over the same workload names hot_host too.
. tests/integration/lib.sh
need_bpf
need_cmd python3
need_cmd perf

"$APERTURE" record -F 999 -o "$T/i.data" -- "$WL/inline_hot" 1 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/i.data" --format json >"$T/rows.json" ||
	fail "report --format json"
"$APERTURE" report -i "$T/i.data" --inline --format json >"$T/inl.json" ||
	fail "report --inline --format json"
python3 - "$T/rows.json" "$T/inl.json" <<'PY' || fail "rows"
import json, sys
def rows(path):
    d = json.load(open(path))["cpu"]
    return d["samples"], {r["sym"]: r for r in d["rows"] if r["comm"] == "inline_hot"}
n, r = rows(sys.argv[1])
print("default: %s" % ", ".join("%s %.1f%%" % (k, v["self"]) for k, v in
                                sorted(r.items(), key=lambda x: -x[1]["self"])[:3]))
assert "hot_step" not in r, "an inlined function has a row by default"
assert r["hot_host"]["self"] >= 80, "hot_host self %.1f%%" % r["hot_host"]["self"]
n2, r2 = rows(sys.argv[2])
print("--inline: hot_step %.1f%%, hot_host %.1f%%"
      % (r2["hot_step"]["self"], r2.get("hot_host", {"self": 0})["self"]))
assert n2 == n
assert r2["hot_step"]["self"] >= 80, "--inline: hot_step's row"
assert r2["hot_host"]["self"] < r["hot_host"]["self"] / 4
PY
"$APERTURE" report -i "$T/i.data" --format folded | grep -q ';hot_host;hot_step ' ||
	fail "folded lines lost the inline frame"

# the same rows as perf's Symbol column; perf 6.1 itself sometimes dies
# here ("assertion failed at util/build-id.c:1010", stack smashing: a
# signal), and then there is no peer to compare with
perf_died() {
	[ "$1" -gt 128 ] || return 1
	echo "perf $2 died of signal $(($1 - 128)) ($(tr '\n' ' ' <"$T/perf.err")): no comparison with perf"
}
perf record -q -F 999 -o "$T/perf.data" -- "$WL/inline_hot" 1 >/dev/null 2>"$T/perf.err"
rc=$?
perf_died $rc record && exit 0
[ $rc -eq 0 ] || fail "perf record: $(cat "$T/perf.err")"
perf report -i "$T/perf.data" --stdio --no-children --sort sym >"$T/perf.txt" 2>"$T/perf.err"
perf_died $? report && exit 0
top=$(awk '/^ *[0-9.]+%/ { print $NF; exit }' "$T/perf.txt")
echo "perf report's top symbol: $top"
[ "$top" = hot_host ] || fail "perf's top row is '$top', not hot_host"
exit 0
