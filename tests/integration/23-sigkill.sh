#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A recording killed with SIGKILL still reports every complete block, with
# a warning; a SIGTERM'd one is finished cleanly.
. tests/integration/lib.sh
need_bpf

samples() {
	"$APERTURE" report -i "$1" --format folded 2>/dev/null |
		awk '{ s += $NF } END { print s + 0 }'
}
"$APERTURE" record -o "$T/k.data" -- "$WL/cpu_split" 6 2>/dev/null &
rec=$!
# killed once a copy of the file holds 500 samples (however loaded the
# machine): all of them, at least, must come back
i=0
while :; do
	cp "$T/k.data" "$T/snap.data" 2>/dev/null
	m=$(samples "$T/snap.data")
	[ "$m" -ge 500 ] && break
	i=$((i + 1))
	[ $i -lt 200 ] || fail "no 500 samples in the file after 40 s: $m"
	sleep 0.2
done
kill -KILL "$rec" || fail "record ended before it was killed"
wait "$rec" 2>/dev/null
pkill -f "$WL/cpu_split 6" 2>/dev/null
"$APERTURE" report -i "$T/k.data" --format folded >"$T/folded" 2>"$T/err" ||
	fail "report of a killed recording: $(cat "$T/err")"
grep -q 'cut short' "$T/err" || fail "no warning about the cut: $(cat "$T/err")"
n=$(awk '{ s += $NF } END { print s + 0 }' "$T/folded")
[ "$n" -ge "$m" ] || fail "$n samples recovered, $m were in the file before the kill"

"$APERTURE" record -o "$T/t.data" -- "$WL/cpu_split" 6 2>"$T/rec.err" &
rec=$!
sleep 1.5
kill -TERM "$rec"
wait "$rec" || fail "record after SIGTERM exited non-zero"
"$APERTURE" report -i "$T/t.data" >/dev/null 2>"$T/err" || fail "report"
grep -q 'cut short' "$T/err" && fail "SIGTERM left an unfinished file"
exit 0
