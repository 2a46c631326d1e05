#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A recording killed with SIGKILL still reports every complete block, with
# a warning; a SIGTERM'd one is finished cleanly.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -o "$T/k.data" -- "$WL/cpu_split" 6 2>/dev/null &
rec=$!
sleep 2.5
kill -KILL "$rec"
wait "$rec" 2>/dev/null
pkill -f "$WL/cpu_split 6" 2>/dev/null
"$APERTURE" report -i "$T/k.data" --format folded >"$T/folded" 2>"$T/err" ||
	fail "report of a killed recording: $(cat "$T/err")"
grep -q 'cut short' "$T/err" || fail "no warning about the cut: $(cat "$T/err")"
n=$(awk '{ s += $NF } END { print s + 0 }' "$T/folded")
[ "$n" -gt 500 ] || fail "only $n samples recovered"

"$APERTURE" record -o "$T/t.data" -- "$WL/cpu_split" 6 2>"$T/rec.err" &
rec=$!
sleep 1.5
kill -TERM "$rec"
wait "$rec" || fail "record after SIGTERM exited non-zero"
"$APERTURE" report -i "$T/t.data" >/dev/null 2>"$T/err" || fail "report"
grep -q 'cut short' "$T/err" && fail "SIGTERM left an unfinished file"
exit 0
