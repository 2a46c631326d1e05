#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture diff OLD NEW: a file against itself changes nothing; cpu_split
# against offcpu_sleep moves burn_60's share (about 60 %) to zero and
# burn's from zero, sorted by the size of the change; difffolded lines
# carry both recordings' counts; the differential SVG is well-formed,
# shrinking frames blue and growing ones red, titles in the recordings'
# own units.  Rows are ELF functions: inline_hot's hot path moving from
# parse() to encode(), both inlining hot_step(), is parse shrinking and
# encode growing (the report tables' self counts, and perf diff's signs
# where perf records here), hot_step only with --inline.  With no files,
# perf diff's defaults; report --diff is the same command.
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$APERTURE" record -F 999 -o "$T/old.data" -- "$WL/cpu_split" 2 \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" record -F 999 -o "$T/new.data" -- "$WL/offcpu_sleep" 1 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"

"$APERTURE" diff "$T/old.data" "$T/old.data" >"$T/same" || fail "diff same"
grep -v '^#' "$T/same" | awk '$3 != "+0.00%" { bad = 1 } END { exit bad }' ||
	fail "a file against itself: $(head -12 "$T/same")"

"$APERTURE" diff --user-only "$T/old.data" "$T/new.data" >"$T/table" ||
	fail "diff"
head -12 "$T/table"
"$APERTURE" diff --user-only --format json "$T/old.data" "$T/new.data" \
	>"$T/json" || fail "diff --format json"
python3 - "$T/json" <<'PY' || fail "json check"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
by = {r["sym"]: r for r in rows}
b60, burn = by["burn_60"], by["burn"]
assert 50 <= b60["old"] <= 70 and b60["new"] == 0, b60
assert abs(b60["delta"] + b60["old"]) < 1e-6, b60
assert burn["old"] == 0 and burn["new"] >= 60, burn
assert {rows[0]["sym"], rows[1]["sym"]} == {"burn", "burn_60"}, rows[:2]
deltas = [abs(r["delta"]) for r in rows]
assert deltas == sorted(deltas, reverse=True), deltas[:5]
PY

"$APERTURE" diff --format folded "$T/old.data" "$T/new.data" >"$T/folded" ||
	fail "diff --format folded"
awk 'NF < 3 || $(NF - 1) !~ /^[0-9]+$/ || $NF !~ /^[0-9]+$/ { bad = 1 }
	END { exit bad }' "$T/folded" || fail "difffolded lines malformed"
old=$(awk '{ s += $(NF - 1) } END { print s }' "$T/folded")
new=$(awk '{ s += $NF } END { print s }' "$T/folded")
olds=$("$APERTURE" report -i "$T/old.data" --format folded | awk '{ s += $NF } END { print s }')
news=$("$APERTURE" report -i "$T/new.data" --format folded | awk '{ s += $NF } END { print s }')
[ "$old" = "$olds" ] && [ "$new" = "$news" ] ||
	fail "difffolded sums $old/$new, folded $olds/$news"
grep -q '^cpu_split;.*burn_60 [0-9]* 0$' "$T/folded" || fail "no burn_60 OLD 0 line"

"$APERTURE" diff --format svg "$T/old.data" "$T/new.data" >"$T/diff.svg" ||
	fail "diff --format svg"
xmllint --noout "$T/diff.svg" 2>/dev/null || [ ! -x "$(command -v xmllint)" ] ||
	fail "diff.svg is not well-formed"
grep -q '>Differential flame graph<' "$T/diff.svg" || fail "svg title"
grep -q 'data-n="burn"><title>[^<]*</title><rect [^>]*fill="rgb(255,' \
	"$T/diff.svg" || fail "burn (grew) is not red"
# the old recording's weights in its own samples, not scaled to the new
# total
tot=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print("%.0f %.0f" % (d["new_total"], d["old_total"]))' "$T/json")
grep -q "<title>all (${tot% *} samples, 100.00%; before ${tot#* } samples, 100.00%; +0.00 points)</title>" \
	"$T/diff.svg" || fail "svg totals are not $tot samples: $(grep -o '<title>all [^<]*' "$T/diff.svg")"

# the hot path moves between two callers of one inlined helper: 3:1
# parse:encode, then 1:3
"$APERTURE" record -F 999 -o "$T/iold.data" -- "$WL/inline_hot" 0.25 \
	parse parse parse encode >/dev/null 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
"$APERTURE" record -F 999 -o "$T/inew.data" -- "$WL/inline_hot" 0.25 \
	parse encode encode encode >/dev/null 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
"$APERTURE" diff --user-only --format json "$T/iold.data" "$T/inew.data" \
	>"$T/ijson" || fail "diff inline_hot"
"$APERTURE" diff --user-only --format json --inline "$T/iold.data" \
	"$T/inew.data" >"$T/ijson-inline" || fail "diff --inline"
for f in iold inew; do
	"$APERTURE" report -i "$T/$f.data" --user-only --format json \
		>"$T/$f.json" || fail "report $f"
done
perf=
if command -v perf >/dev/null 2>&1 &&
   perf record --buildid-mmap -q -F 999 -o "$T/pold.data" -- \
	"$WL/inline_hot" 0.25 parse parse parse encode >/dev/null 2>&1 &&
   perf record --buildid-mmap -q -F 999 -o "$T/pnew.data" -- \
	"$WL/inline_hot" 0.25 parse encode encode encode >/dev/null 2>&1 &&
   perf diff "$T/pold.data" "$T/pnew.data" >"$T/perf.txt" 2>/dev/null; then
	perf=$T/perf.txt
else
	echo "note: perf does not record or diff here: no comparison with perf diff"
fi
python3 - "$T" "$perf" <<'PY' || fail "inline_hot diff: see above"
import json, re, sys
t, perf = sys.argv[1], sys.argv[2]
rows = json.load(open(t + "/ijson"))["rows"]
by = {r["sym"]: r for r in rows}
print("aperture diff: parse %+.2f, encode %+.2f" %
      (by["parse"]["delta"], by["encode"]["delta"]))
assert "hot_step" not in by, by["hot_step"]
assert {rows[0]["sym"], rows[1]["sym"]} == {"parse", "encode"}, rows[:3]
assert by["parse"]["delta"] < -20 and by["encode"]["delta"] > 20, rows[:2]
# the weights are the report tables' self samples of the ELF functions
for side, f in (("old", "iold"), ("new", "inew")):
    rep = {r["sym"]: r for r in json.load(open("%s/%s.json" % (t, f)))["cpu"]["rows"]
           if r["comm"] == "inline_hot"}
    for sym in ("parse", "encode"):
        assert by[sym][side + "_weight"] == rep[sym]["self_samples"], \
            (side, sym, by[sym], rep[sym])
inl = {r["sym"]: r for r in json.load(open(t + "/ijson-inline"))["rows"]}
assert inl["hot_step"]["old"] > 90 and inl["hot_step"]["new"] > 90, inl["hot_step"]
if perf:
    delta = {}
    for line in open(perf):
        m = re.match(r"^\s*(?:[0-9.]+%)?\s+([+-][0-9.]+)%\s+\S+\s+\[.\]\s+(\S+)", line)
        if m:
            delta[m.group(2)] = float(m.group(1))
    print("perf diff: parse %+.2f, encode %+.2f" %
          (delta.get("parse", 0), delta.get("encode", 0)))
    assert "hot_step" not in delta, delta
    assert delta["parse"] < 0 < delta["encode"], delta
PY

# perf diff's defaults: OLD is aperture.data.old, NEW aperture.data; and
# report --diff[=OLD] -i NEW is the same command
cp "$T/old.data" "$T/aperture.data.old"
cp "$T/new.data" "$T/aperture.data"
grep -v '^#' "$T/table" >"$T/rows"
(cd "$T" && "$APERTURE" diff --user-only) >"$T/t0" || fail "diff, no files"
(cd "$T" && "$APERTURE" diff --user-only old.data) >"$T/t1" || fail "diff OLD"
(cd "$T" && "$APERTURE" report --diff --user-only) >"$T/t2" ||
	fail "report --diff"
"$APERTURE" report --diff="$T/old.data" -i "$T/new.data" --user-only \
	>"$T/t3" || fail "report --diff=OLD -i NEW"
for t in t0 t1 t2 t3; do
	grep -v '^#' "$T/$t" | cmp -s - "$T/rows" ||
		fail "$t differs from diff OLD NEW: $(head -8 "$T/$t")"
done
grep -q "^# old: aperture.data.old, " "$T/t0" || fail "default OLD: $(head -3 "$T/t0")"
"$APERTURE" report --diff -i "$T/new.data" --format trace 2>/dev/null
[ $? -eq 64 ] || fail "report --diff --format trace: not a usage error"
"$APERTURE" diff "$T/a" "$T/b" "$T/c" 2>/dev/null
[ $? -eq 64 ] || fail "three files: not a usage error"
exit 0
