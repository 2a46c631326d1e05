#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --push end to end, against the Pyroscope receiver of the push
# tests: one BPF session cut into 1 s windows, each pushed by its own
# aperture push and removed once sent.  The windows' pushed samples add up
# to the recording's (the summary line's) and to the workload's own CPU
# time at the rate; each window is one series process_cpu with from <=
# until.  Then a server that is down when the recording starts and comes
# up on the same port while it runs: the windows wait in the spool and are
# sent once it is back (by the spool's retries or push's own), none
# rejected or lost; what the end's 5 s did not send is left in place, and
# the samples the server took and those left add up to the recording's.
. tests/integration/lib.sh
. tests/integration/push.inc
need_bpf

F=499
receiver pyroscope "$T/up"
"$APERTURE" record -e cpu -F $F --switch-output=1s \
	--push "pyroscope+http://127.0.0.1:$PORT" -o "$T/w.data" -- \
	"$WL/offcpu_sleep" 3.3 >"$T/wl.out" 2>"$T/rec.err" ||
	fail "record --push: $(cat "$T/rec.err")"
cat "$T/rec.err"
windows=$(grep -c '^aperture: dump ' "$T/rec.err")
samples=$(sed -n 's/^aperture: \([0-9]*\) samples, .*/\1/p' "$T/rec.err")
[ "$windows" -ge 3 ] || fail "$windows windows for a 3.3 s run"
grep -q "push: $windows sent, 0 retried, 0 rejected, 0 lost, 0 unsent" \
	"$T/rec.err" || fail "summary: $(tail -1 "$T/rec.err")"
[ -s "$T/up/refused.jsonl" ] && fail "refused: $(cat "$T/up/refused.jsonl")"
[ "$(got "$T/up" 'len(g)')" = "$windows" ] ||
	fail "$(got "$T/up" 'len(g)') requests for $windows windows"
ls "$T" | grep -q '^w\.data\.' && fail "sent windows left: $(ls "$T")"
[ "$(got "$T/up" 'set(r["series"]["__name__"] for r in g) == {"process_cpu"} and all(int(r["from"]) <= int(r["until"]) for r in g)')" = True ] ||
	fail "series: $(got "$T/up" '[(r["series"], r["from"], r["until"]) for r in g]')"
pushed=$(got "$T/up" 'sum(r["totals"]["samples"]["total"] for r in g)')
[ "$pushed" = "$samples" ] ||
	fail "pushed $pushed samples, the recording has $samples"
# the workload's own CPU time at the rate (ticks at the edges of its
# bursts may go either way)
cpu_ms=$(sed -n 's/.*cpu_ns=\([0-9]*\).*/\1/p' "$T/wl.out" |
	awk '{ print $1 / 1e6 }')
want=$(echo "$cpu_ms" | awk -v f=$F '{ print $1 * f / 1000 }')
within "$pushed" "$(echo "$want" | awk '{ print $1 * 0.9 - 5 }')" \
	"$(echo "$want" | awk '{ print $1 * 1.1 + 5 }')" ||
	fail "pushed $pushed samples, the workload's $cpu_ms ms at $F Hz: $want"

# a server down at the start, up on the same port while it runs
port=$PORT
kill "$RPID"
wait "$RPID" 2>/dev/null
"$APERTURE" record -e cpu -F $F --switch-output=500ms \
	--push "pyroscope+http://127.0.0.1:$port" -o "$T/d.data" -- \
	"$WL/offcpu_sleep" 3 >/dev/null 2>"$T/rec2.err" &
rec=$!
# after two windows have been tried against the closed port
i=0
until [ "$(grep -c '^aperture: dump ' "$T/rec2.err")" -ge 2 ]; do
	kill -0 $rec 2>/dev/null || fail "record ended: $(cat "$T/rec2.err")"
	i=$((i + 1))
	[ $i -lt 300 ] || fail "no 2 windows: $(cat "$T/rec2.err")"
	sleep 0.1
done
receiver pyroscope "$T/back" port=$port
wait $rec || fail "record --push, server back: $(cat "$T/rec2.err")"
cat "$T/rec2.err"
windows=$(grep -c '^aperture: dump ' "$T/rec2.err")
left=$(ls "$T" | grep -c '^d\.data\.')
line=$(tail -1 "$T/rec2.err")
sent=$(echo "$line" | sed -n 's/.*push: \([0-9]*\) sent, .*/\1/p')
echo "$line" | grep -q " 0 rejected, 0 lost, $left unsent" ||
	fail "summary: $line ($left files left)"
[ "$sent" -ge 1 ] && [ $((sent + left)) -eq "$windows" ] ||
	fail "$sent sent and $left left of $windows windows"
# a window with no samples is sent as nothing (push(1)): counted by the
# samples, those the server took and those of the windows left
total=$(sed -n 's/^aperture: \([0-9]*\) samples, .*/\1/p' "$T/rec2.err")
took=$(got "$T/back" 'sum(r["totals"]["samples"]["total"] for r in g)')
kept=0
for f in "$T"/d.data.*; do
	[ -e "$f" ] || continue
	n=$("$APERTURE" report -i "$f" --format folded 2>/dev/null |
		awk '{ s += $NF } END { print s + 0 }')
	kept=$((kept + n))
done
[ $((took + kept)) -eq "$total" ] ||
	fail "the server took $took samples, $kept left, of $total"
exit 0
