#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -p on a running process with three threads: every thread is
# sampled; recording ends by itself when the target exits.
. tests/integration/lib.sh
need_bpf

"$WL/cpu_split" 4 3 &
pid=$!
sleep 0.5
"$APERTURE" record -p "$pid" -o "$T/p.data" 2>"$T/rec.err" ||
	fail "record -p: $(cat "$T/rec.err")"
# record returned because the target exited: reaping it must not take
# long (the group may still be tearing down when record sees its exit)
s=$(date +%s%N)
wait "$pid"
e=$(date +%s%N)
[ $(((e - s) / 1000000)) -lt 1500 ] ||
	fail "record ended $(((e - s) / 1000000)) ms before its target"

"$APERTURE" report -i "$T/p.data" --sort tid,sym --format json >"$T/json" ||
	fail "report"
tids=$(grep -o '"tid": [0-9]*' "$T/json" | sort -u | wc -l)
[ "$tids" -ge 3 ] || fail "saw $tids threads, want 3"
"$APERTURE" report -i "$T/p.data" --pid "$pid" --format folded |
	grep -q 'main;work;burn_60 ' || fail "main;work;burn_60 missing"
# threads other than main reach work through start_thread
"$APERTURE" report -i "$T/p.data" --format folded |
	grep -q 'start_thread;.*work;burn_30 ' || fail "thread stacks missing"
# filters: no such tid -> nothing
"$APERTURE" report -i "$T/p.data" --tid 1 | grep -q 'no samples match' ||
	fail "--tid filter"
exit 0
