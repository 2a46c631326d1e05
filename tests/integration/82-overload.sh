#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Under overload (two threads making syscalls flat out, recorded with
# their stacks system-wide: more than the recorder can keep), -d still
# ends the recording, and a second Ctrl-C ends it at once; the file is
# finished either way.  The recorder used to drain with the sensors still
# attached and take minutes (-d 2: over 600 s here).
. tests/integration/lib.sh
need_bpf

"$WL/syscall_exact" 100000000 0 2 &
storm=$!
trap 'kill $storm 2>/dev/null; rm -rf "$T"' EXIT

# waits up to $2 seconds for pid $1; 1 if it is still running
wait_for() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		[ $i -ge $(($2 * 10)) ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 0
}

finished() {
	"$APERTURE" report -i "$1" >/dev/null 2>"$T/rep.err" ||
		fail "report of $1: $(cat "$T/rep.err")"
	! grep -q "cut short" "$T/rep.err" || fail "$1 not finished: $(cat "$T/rep.err")"
}

"$APERTURE" record -a -e syscall,sched,cpu --syscall-stacks -d 1 \
	-o "$T/d.data" 2>"$T/d.err" &
rec=$!
wait_for $rec 90 || { kill -9 $rec; fail "record -d 1 still running after 90 s"; }
wait $rec || fail "record -d 1: $(cat "$T/d.err")"
finished "$T/d.data"
dur=$("$APERTURE" report -i "$T/d.data" --format json 2>/dev/null |
	sed -n 's/.*"duration_s": \([0-9.]*\).*/\1/p' | head -1)
# one second asked; the drain of what the ring held comes on top
within "$dur" 0.9 30 || fail "record -d 1 lasted $dur s"

"$APERTURE" record -a -e syscall,sched,cpu --syscall-stacks \
	-o "$T/i.data" 2>"$T/i.err" &
rec=$!
sleep 3
kill -INT $rec
sleep 0.2
kill -INT $rec
wait_for $rec 30 || { kill -9 $rec; fail "record still running 30 s after a second Ctrl-C"; }
wait $rec
finished "$T/i.data"
exit 0
