#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The interactive screen under tmux on cpu_split: header, burn_60 on top,
# the keys (s order, p pause freezes the table, k kernel, c comm, /
# filter, scrolling, h help, q quit), a redraw on resize, and a terminal
# given back as it was: same stty settings, the shell's screen back,
# typed input echoed again.
. tests/integration/lib.sh
need_bpf
need_cmd tmux

sock="aperture-test-$$"
"$WL/cpu_split" 30 &
pid=$!
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	kill "$pid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

tm() { tmux -L "$sock" "$@"; }
screen() { tm capture-pane -t t -p; }
# wait until the screen matches an extended regexp
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		screen >"$T/screen"
		grep -Eq -- "$1" "$T/screen" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "--- screen:"
	cat "$T/screen"
	fail "waited 10 s for: $1"
}
# the first table row: the line after the column names
first_row() {
	screen | awk 'f { print; exit } /Symbol$/ { f = 1 }'
}
key() { tm send-keys -t t "$@"; }

tm -f /dev/null new-session -d -s t -x 120 -y 14 "env PS1='$ ' sh" ||
	skip "tmux cannot start a session"
key "stty -g >$T/before" Enter
key "$APERTURE top -p $pid -d 0.5; echo rc=\$? >$T/rc; stty -g >$T/after" Enter

wait_for "^aperture top - .*cpu: [0-9]+ samples/s  lost: [0-9]+  targets: pid $pid  decaying"
wait_for "burn_60$"
wait_for "^h help  q quit"
first_row | grep -Eq '%.*cpu_split +cpu_split +\[\.\] burn_60$' ||
	fail "first row: $(first_row)"
grep -q '^order: self  kernel: shown  comm: shown  filter: none  rows 1-' "$T/screen" ||
	fail "state line: $(sed -n 2p "$T/screen")"

# s: the next order, children, with its column; main (100 %) leads
key s
wait_for "^order: children"
wait_for "Children +Self +Samples"
first_row | grep -q '100.00%' || fail "children order: $(first_row)"
# with 14 rows there are more rows than the screen holds: scroll
i=0
while :; do
	screen >"$T/screen"
	total=$(grep -o 'rows 1-[0-9]* of [0-9]*' "$T/screen" | awk '{ print $4 }')
	page=$(grep -o 'rows 1-[0-9]*' "$T/screen" | sed 's/rows 1-//')
	[ "${total:-0}" -gt "${page:-0}" ] && break
	i=$((i + 1))
	[ $i -lt 100 ] || fail "no scrolling possible: $total rows, page $page"
	sleep 0.1
done
# the table may grow between two screens: pause it for the scrolling
key p
wait_for "PAUSED"
screen >"$T/screen"
total=$(grep -o 'rows 1-[0-9]* of [0-9]*' "$T/screen" | awk '{ print $4 }')
page=$(grep -o 'rows 1-[0-9]*' "$T/screen" | sed 's/rows 1-//')
key Down
wait_for "rows 2-"
key NPage
wait_for "rows $((page + 2))-|rows $((total - page + 1))-$total of"
key Home
wait_for "rows 1-"
key End
wait_for "rows $((total - page + 1))-$total of"
key Up
wait_for "rows $((total - page))-"
key s s s
wait_for "^order: self"
key p
wait_for "^order: self.*rows 1-[0-9]+ of [0-9]+\$"

# p: paused, the table does not change while the intervals pass
key p
wait_for "PAUSED \\([0-9]+ events not shown\\)"
sleep 0.3
screen | sed -n '3,$p' | grep -v PAUSED >"$T/p1"
sleep 1.2
screen | sed -n '3,$p' | grep -v PAUSED >"$T/p2"
cmp -s "$T/p1" "$T/p2" || fail "the table changed while paused"
key p
i=0
while screen | grep -q PAUSED; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "still paused"
	sleep 0.1
done

# k, c: kernel frames and the command column
key k
wait_for "kernel: hidden"
sleep 0.2
screen | grep -q '\[k\] [a-z_]' && fail "k: kernel frames still shown"
key c
wait_for "comm: hidden"
screen | grep -q 'Command' && fail "c: the command column is still shown"
key k c
wait_for "kernel: shown  comm: shown"

# /: a filter typed at the prompt
key /
wait_for "^Filter by symbol: _"
key b u r n _ 3
wait_for "^Filter by symbol: burn_3_"
key Enter
wait_for "filter: burn_3"
sleep 0.2
screen | awk 'f && /%/ { print } /Symbol$/ { f = 1 }' >"$T/rows"
[ -s "$T/rows" ] || fail "no rows with the filter"
grep -v 'burn_30$' "$T/rows" && fail "filter let other rows through"
key / BSpace BSpace BSpace BSpace BSpace BSpace Enter
wait_for "filter: none"
# Esc cancels
key / x Escape
wait_for "filter: none"
screen | grep -q '^Filter by symbol' && fail "Esc did not close the prompt"

# h: help, any key returns
key h
wait_for "^aperture top: keys"
key x
wait_for "^aperture top - "

# a resize redraws to the new size
tm resize-window -t t -x 100 -y 24 2>/dev/null || tm resize-pane -t t -y 24
i=0
until screen | sed -n 24p | grep -q '^h help  q quit'; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "not redrawn to 24 rows: $(screen | tail -3)"
	sleep 0.1
done

# q: quits, the terminal is as it was
key q
i=0
while [ ! -s "$T/after" ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "top did not quit on q"
	sleep 0.1
done
grep -q '^rc=0$' "$T/rc" || fail "exit status: $(cat "$T/rc")"
diff "$T/before" "$T/after" >"$T/diff" || fail "stty changed: $(cat "$T/diff")"
screen | grep -q '^aperture top - ' && fail "the alternate screen was not left"
key "echo typed-back" Enter
wait_for "\\$ echo typed-back$"
wait_for "^typed-back"
exit 0
