#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, -d under overload: a busy loop on every CPU and two threads
# making syscalls flat out; aperture record -a -d 3 with cpu, syscall and
# sched against perf record -a -g -- sleep 3, wall clock of each (best of
# 2), and for aperture the time recorded, its start-up and the time from
# the window's end to its exit (what -d bounds: goal <= 1 s).
# Env from scripts/bench.sh: BUILD, APERTURE, WL, B.
set -u
: "${APERTURE:?run from scripts/bench.sh}" "${WL:?}" "${B:?}"
D=3

wall() {
	s=$(date +%s.%N)
	"$@" >/dev/null 2>"$B/dl.err" || { echo fail; return; }
	e=$(date +%s.%N)
	awk -v a="$s" -v b="$e" 'BEGIN { printf "%.2f\n", b - a }'
}
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "fail" || (b != "fail" && b < a)) ? b : a }'; }

echo "== record -d $D under overload: a busy loop per CPU ($(nproc)) + 2 threads of syscalls =="
pids=
i=0
while [ $i -lt "$(nproc)" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
"$WL/syscall_exact" 1000000000 0 2 &
pids="$pids $!"
trap 'kill $pids 2>/dev/null' EXIT

pf=fail
for i in 1 2; do
	pf=$(best "$pf" "$(wall perf record -a -g -o "$B/dl-perf.data" -- sleep $D)")
done
ap=fail
tail=
for i in 1 2; do
	w=$(wall "$APERTURE" record -a -e cpu,syscall,sched -d $D -o "$B/dl.data")
	[ "$w" = fail ] && continue
	line=$(grep ' s recorded; ' "$B/dl.err")
	[ "$(best "$ap" "$w")" = "$w" ] && { ap=$w; tail=$line; }
done
kill $pids 2>/dev/null
trap - EXIT

echo "perf record -a -g -- sleep $D      wall ${pf} s"
echo "aperture record -a -d $D           wall ${ap} s"
echo "$tail" | awk '{
	for (i = 1; i <= NF; i++) {
		if ($(i + 1) == "s" && $(i + 2) == "recorded;") rec = $i
		if ($i == "start-up") up = $(i + 1)
		if ($(i + 1) == "s" && $(i + 2) == "after") after = $i
	}
	printf "  recorded %s s, start-up %s s, window end to exit %s s (goal <= 1)\n", rec, up, after
}'
echo "  $tail" | sed 's/^  aperture: /  /'
