#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -- CMD exits with the command's status, as time and strace do
# (128 + signal when it was killed); a recording that ends first (-d, or
# SIGTERM to aperture) ends the command too: no orphan runs on.
. tests/integration/lib.sh
need_bpf

status() {
	want=$1
	shift
	"$APERTURE" record -o "$T/s.data" -- "$@" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "record -- $*: exit $rc, want $want: $(cat "$T/err")"
	[ -s "$T/s.data" ] || fail "record -- $*: no file"
}
status 0 true
status 1 false
status 3 sh -c 'exit 3'
status 137 sh -c 'kill -9 $$'

# -d: the command is ended with the recording, aperture exits 0
marker=$T/marker
"$APERTURE" record -d 1 -o "$T/d.data" -- sh -c "touch '$marker.start'; sleep 30; touch '$marker.end'" \
	>/dev/null 2>"$T/err" || fail "record -d: exit $?: $(cat "$T/err")"
[ -e "$marker.start" ] || fail "record -d: the command did not run"
sleep 0.5
pgrep -f "touch '$marker.end'" >/dev/null && fail "record -d left the command running"

# SIGTERM to aperture: the same rule
"$APERTURE" record -o "$T/t.data" -- sh -c "touch '$marker.t'; exec sleep 31" \
	>/dev/null 2>"$T/err" &
apid=$!
i=0
while [ ! -e "$marker.t" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$marker.t" ] || fail "SIGTERM case: the command did not start"
kill -TERM $apid
wait $apid
rc=$?
[ $rc -eq 0 ] || fail "aperture after SIGTERM: exit $rc: $(cat "$T/err")"
pgrep -x -f "sleep 31" >/dev/null && fail "SIGTERM left the command running"
"$APERTURE" report -i "$T/t.data" >/dev/null || fail "report of the SIGTERM recording"
exit 0
