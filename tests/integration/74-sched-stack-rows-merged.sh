#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The off-CPU stack table has one row per thing printed (state, command,
# stack): stacks that differ only in addresses are merged, and the merged
# times still add up to the folded output's.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -e sched -o "$T/s.data" -- "$WL/offcpu_sleep" 20 \
	>/dev/null 2>"$T/err" || fail "record: $(cat "$T/err")"
"$APERTURE" report -i "$T/s.data" --limit 1000 >"$T/out" || fail "report"
sed -n '/^# Off-CPU time by stack/,$p' "$T/out" | grep -v '^#' |
	awk '{ $1 = $2 = $3 = $4 = ""; print }' >"$T/rows"
[ -s "$T/rows" ] || fail "no stack rows"
dups=$(sort "$T/rows" | uniq -d)
[ -z "$dups" ] || fail "rows printed twice: $dups"
grep -q 'sleepy_wait' "$T/rows" || fail "no sleepy_wait row"
exit 0
