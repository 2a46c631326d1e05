#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The mem tables keep their columns in line: a mapping named by a long
# file name is cut with a '+' at its column's width, and every data line
# of every table starts each column where its header's label starts
# (right-aligned numbers: ends where the label ends).
. tests/integration/lib.sh
need_bpf
need_cmd awk

d=$T/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/bbbbbbbbbbbbbbbbbbbbbbbb
long=mem_touch_named_well_past_the_forty_columns_of_a_name
mkdir -p "$d" && cp "$WL/mem_touch" "$d/$long" || fail "copy mem_touch"
"$APERTURE" record -e mem -o "$T/mem.data" -- "$d/$long" 1 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/mem.data" >"$T/table" 2>"$T/err" ||
	fail "report: $(cat "$T/err")"
sed -n '/^# Top data objects/,$p' "$T/table" | head -16

grep -q "^  .*  0x[0-9a-f]*  $(echo "$long" | cut -c1-39)+  (anonymous" \
	"$T/table" || fail "no mapping row cut with a '+' at 40 columns"

# header: "#  Weight Samples ... Label ..."; a label's start (or, for the
# right-aligned Weight and Samples, end) is where each row's value is
awk '
function check(line,   i, c, p, q) {
	for (i = 1; i <= nl; i++) {
		if (right[i]) {
			p = substr(line, end[i], 1)
			q = substr(line, end[i] + 1, 1)
			if (p == " " || q != " ")
				return lab[i]
			continue
		}
		if (length(line) < start[i] && i == nl)
			continue
		p = substr(line, start[i] - 2, 2)
		c = substr(line, start[i], 1)
		if (p != "  " || c == " " || c == "")
			return lab[i]
	}
	return ""
}
/^# Top |^# Data source/ { table = $0; next }
/^#  / && table != "" {
	nl = 0
	for (i = 2; i <= length($0); i++) {
		if (substr($0, i, 1) != " " && substr($0, i - 1, 1) == " ") {
			nl++
			start[nl] = i
			lab[nl] = substr($0, i)
			sub(/ .*/, "", lab[nl])
			end[nl] = i + length(lab[nl]) - 1
			right[nl] = lab[nl] == "Weight" || lab[nl] == "Samples"
		}
	}
	rows[table] = 0
	next
}
/^#/ { table = ""; next }
table != "" && nl {
	bad = check($0)
	if (bad != "") {
		printf "%s: column %s out of line:\n%s\n", table, bad, $0
		err = 1
	}
	rows[table]++
}
END {
	for (t in rows)
		if (!rows[t]) {
			printf "%s: no rows\n", t
			err = 1
		}
	if (length(rows) < 3) {
		print "fewer than 3 tables"
		err = 1
	}
	exit err
}' "$T/table" >"$T/check" || fail "$(cat "$T/check")"
exit 0
