#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Honest ends: deep_stack burns CPU 300 frames down, past the 127 a stack
# keeps; its stacks get a [truncated] root frame (folded: first after the
# comm), the table's stack-quality line counts them, and a shallow
# workload's stacks reach a known root.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -F 999 -o "$T/d.data" -- "$WL/deep_stack" 2 300 \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/d.data" --format folded --user-only >"$T/folded" ||
	fail "report --format folded"
set -- $(awk '/;deep_leaf [0-9]+$/ { t += $NF; if ($1 ~ /^deep_stack;\[truncated\];recurse;/) n += $NF }
	END { print t + 0, n + 0 }' "$T/folded")
echo "deep_leaf samples $1, with a [truncated] root $2"
[ "$1" -ge 20 ] || fail "too few deep_leaf samples: $1"
[ "$1" = "$2" ] || fail "$2 of $1 deep_leaf stacks end in [truncated]"
"$APERTURE" report -i "$T/d.data" >"$T/table" || fail "report"
q=$(grep '^# Stacks : ' "$T/table") || fail "no stack-quality line"
echo "$q"
pct=$(echo "$q" | sed 's/.* \([0-9.]*\)% truncated.*/\1/')
within "$pct" 80 100 || fail "truncated share $pct%"

"$APERTURE" record -F 499 -o "$T/s.data" -- "$WL/cpu_split" 1 \
	2>"$T/rec2.err" || fail "record: $(cat "$T/rec2.err")"
"$APERTURE" report -i "$T/s.data" --user-only >"$T/table2" || fail "report"
q=$(grep '^# Stacks : ' "$T/table2") || fail "no stack-quality line"
echo "$q"
pct=$(echo "$q" | sed 's/.*: \([0-9.]*\)% reach a known root.*/\1/')
within "$pct" 90 100 || fail "known roots $pct%"
