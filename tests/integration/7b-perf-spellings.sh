#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What perf users type: record -g (accepted, stacks are always on), -q
# (nothing on stderr), -v; report -s with perf's "symbol", -n (a Samples
# column), --percent-limit (rows under the limit left out).
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -g -q -o "$T/g.data" -- "$WL/cpu_split" 1 2 >/dev/null 2>"$T/err" ||
	fail "record -g -q: $(cat "$T/err")"
[ -s "$T/err" ] && fail "-q printed: $(cat "$T/err")"
"$APERTURE" record -v -o "$T/v.data" -- true >/dev/null 2>&1 || fail "record -v"

"$APERTURE" report -i "$T/g.data" --sort sym >"$T/a" || fail "--sort sym"
"$APERTURE" report -i "$T/g.data" -s symbol >"$T/b" || fail "-s symbol"
cmp -s "$T/a" "$T/b" || fail "-s symbol differs from --sort sym"
"$APERTURE" report -i "$T/g.data" -n --no-children >"$T/n" || fail "-n"
grep -q '^#  *Self  *Samples ' "$T/n" || fail "-n: no Samples column: $(grep Self "$T/n")"
# the Samples column adds up to the samples in the header
total=$(sed -n "s/^# Samples: \([0-9]*\) of event 'cpu'.*/\1/p" "$T/n")
sum=$(grep -v '^#' "$T/n" | awk 'NF { s += $2 } END { print s + 0 }')
[ "$sum" = "$total" ] || fail "-n: Samples add up to $sum, header says $total"
"$APERTURE" report -i "$T/g.data" --no-children --percent-limit 20 >"$T/p" ||
	fail "--percent-limit"
rows=$(grep -v '^#' "$T/p" | grep -c .)
[ "$rows" -ge 1 ] || fail "--percent-limit 20 left no row"
grep -v '^#' "$T/p" | awk 'NF { sub("%", "", $1); if ($1 + 0 < 20) exit 1 }' ||
	fail "--percent-limit 20 kept a row under 20%: $(cat "$T/p")"
exit 0
