#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# top beyond -p and cpu: system-wide by default (cpu_split seen by name,
# burn_60 its hottest function); -e syscall shows read and write of
# syscall_exact as its rows, -e lock shows contended_mutex of lock_contend
# as the top lock, when this build has those views.
. tests/integration/lib.sh
need_bpf

# long enough for both runs of top on a loaded machine; killed after them
"$WL/cpu_split" 120 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$T"' EXIT INT TERM
sleep 0.2

for mode in default -a; do
	args=
	[ "$mode" = default ] || args=$mode
	timeout 30 "$APERTURE" top -b -n 2 -d 1 $args >"$T/sw" 2>"$T/err" ||
		fail "top -b $args: $(cat "$T/err")"
	grep '^aperture top' "$T/sw" | tail -1 | grep -q 'targets: system-wide  decaying' ||
		fail "$mode: header $(head -1 "$T/sw")"
	# the second snapshot's rows of cpu_split: burn_60 first
	first=$(awk '/^aperture top - / { s++ } s == 2' "$T/sw" |
		grep -E '%.* cpu_split +cpu_split +\[\.\] ' | head -1)
	echo "$mode: $first"
	echo "$first" | grep -q 'burn_60$' ||
		fail "$mode: cpu_split's top row is not burn_60: $first"
done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null

# an event this build has no view or sensor for: one line, then go on
have() {
	"$APERTURE" top -b -n 1 -d 0.1 -e "$1" -p $$ >/dev/null 2>"$T/have" && return 0
	grep -Eq 'unknown event|no live view' "$T/have" && {
		echo "no $1 view in this build: $(cat "$T/have")"
		return 1
	}
	fail "top -e $1: $(cat "$T/have")"
}

if have syscall; then
	# held before its exec until top is attached, so that every call
	# counts: exactly N reads and N writes (-z)
	sh -c 'kill -STOP $$; exec "$0" 200000' "$WL/syscall_exact" &
	wl=$!
	timeout 60 "$APERTURE" top -b -z -d 0.5 -e syscall -p "$wl" >"$T/sc" 2>"$T/err" &
	top=$!
	i=0
	until grep -q '^aperture top - ' "$T/sc" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "top -e syscall shows nothing: $(cat "$T/err")"
		sleep 0.1
	done
	kill -CONT "$wl"
	wait "$top" || fail "top -e syscall: $(cat "$T/err")"
	wait "$wl"
	head -1 "$T/sc" | grep -Eq 'syscall: [0-9]+ calls/s' || fail "syscall header: $(head -1 "$T/sc")"
	# the rate counts calls, not the kernel-summed records carrying
	# them (a few a second): 400000 calls in a few seconds
	peak=$(sed -n 's/.* syscall: \([0-9]*\) calls\/s .*/\1/p' "$T/sc" | sort -n | tail -1)
	[ "${peak:-0}" -gt 1000 ] || fail "syscall rate peaks at $peak calls/s for 400000 calls"
	last=$(awk '/^aperture top - / { s = "" } { s = s $0 "\n" } END { printf "%s", s }' "$T/sc")
	echo "$last" | head -1 | grep -q '(exited)' || fail "last snapshot: $last"
	reads=$(echo "$last" | awk '$1 == "read" { print $2 }')
	writes=$(echo "$last" | awk '$1 == "write" { print $2 }')
	echo "syscall: read $reads write $writes"
	[ "$reads" = 200000 ] && [ "$writes" = 200000 ] ||
		fail "want 200000 reads and writes: $last"
fi

if have lock; then
	"$WL/lock_contend" 240 >/dev/null &
	wl=$!
	timeout 60 "$APERTURE" top -b -d 0.5 -e lock -p "$wl" >"$T/lk" 2>"$T/err" ||
		fail "top -e lock: $(cat "$T/err")"
	wait "$wl"
	head -1 "$T/lk" | grep -Eq 'lock: [0-9]+ events/s' || fail "lock header: $(head -1 "$T/lk")"
	# the first lock row of the second snapshot
	top=$(awk '/^aperture top - / { s++ } s == 2' "$T/lk" |
		grep -E '^ +[0-9]+ ' | head -1)
	echo "lock: $top"
	echo "$top" | grep -q 'contended_mutex$' ||
		fail "the top lock is not contended_mutex: $top"
fi
exit 0
