#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The terminal is always given back: after SIGTERM, Ctrl-C, a crash
# (SIGSEGV) and Ctrl-Z, the stty settings are those from before, the
# alternate screen is left, and after fg top takes the screen again.
. tests/integration/lib.sh
need_bpf
need_cmd tmux
need_cmd bash

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
key() { tm send-keys -t t "$@"; }
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
wait_file() {
	i=0
	while [ ! -s "$1" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "waited 10 s for $1 ($2)"
		sleep 0.1
	done
}
# runs top in the pane with its pid in $T/top.$1, then the exit status
# and the terminal settings in $T/rc.$1 and $T/after.$1
start_top() {
	key "sh -c 'echo \$\$ >$T/top.$1; exec $APERTURE top -p $pid -d 0.5'; echo rc=\$? >$T/rc.$1; stty -g >$T/after.$1" Enter
	wait_for "^aperture top - .*targets: pid $pid"
	wait_for "burn_60"
}
# top ended with status $2 and left the terminal as it was
check_restored() {
	wait_file "$T/after.$1" "$1"
	grep -q "^rc=$2\$" "$T/rc.$1" || fail "$1: exit status $(cat "$T/rc.$1"), want $2"
	cmp -s "$T/before" "$T/after.$1" ||
		fail "$1: stty changed: $(cat "$T/before") -> $(cat "$T/after.$1")"
	screen | grep -q '^aperture top - ' && fail "$1: alternate screen not left"
	key "echo back-$1" Enter
	wait_for "^back-$1\$"
}

tm -f /dev/null new-session -d -s t -x 120 -y 30 \
	"env PS1='$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session"
key "stty -g >$T/before" Enter
wait_file "$T/before" "stty"

start_top term
kill -TERM "$(cat "$T/top.term")"
check_restored term 0

start_top int
key C-c
check_restored int 0

start_top segv
kill -SEGV "$(cat "$T/top.segv")"
check_restored segv 139

# Ctrl-Z: the shell gets its terminal back (the rest of its command
# line runs: 147 is a stopped job); fg gives it to top again
start_top tstp
key C-z
wait_for "Stopped"
check_restored tstp 147
key "fg; echo rc=\$? >$T/rc.fg; stty -g >$T/after.fg" Enter
wait_for "^aperture top - "
wait_for "burn_60"
key q
check_restored fg 0
exit 0
