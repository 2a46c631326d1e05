#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 27's smaller items: a SIGKILLed record takes its command with it;
# with too few descriptors the error names the limit, not the verifier.
. tests/integration/lib.sh
need_bpf
need_cmd python3

wait_for() {
	i=0
	while ! eval "$1"; do
		i=$((i + 1))
		[ $i -lt 200 ] || return 1
		sleep 0.05
	done
}

# record -- CMD, then SIGKILL: the command dies too
"$APERTURE" record -o "$T/k.data" -- \
	sh -c 'echo $$ >"$1.tmp"; mv "$1.tmp" "$1"; exec sleep 100' sh "$T/pid" \
	2>"$T/k.err" & rp=$!
wait_for '[ -s "$T/pid" ]' || fail "the command did not start: $(cat "$T/k.err")"
cp=$(cat "$T/pid")
kill -KILL $rp
wait $rp 2>/dev/null
gone() {
	[ ! -d /proc/$cp ] || grep -q '^State:.*Z' /proc/$cp/status 2>/dev/null
}
wait_for gone || {
	kill -KILL $cp
	fail "the command outlived its SIGKILLed record"
}

# ulimit -n 12
(ulimit -n 12 && "$APERTURE" record -o "$T/n.data" -- true) >"$T/n.err" 2>&1 &&
	fail "record with 12 descriptors succeeded"
[ "$(grep -c . "$T/n.err")" = 1 ] || fail "not one line: $(cat "$T/n.err")"
grep -q "open files limit (ulimit -n) is 12" "$T/n.err" ||
	fail "ulimit -n 12: $(cat "$T/n.err")"
! grep -q verifier "$T/n.err" || fail "blames the verifier: $(cat "$T/n.err")"

exit 0
