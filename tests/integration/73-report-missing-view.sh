#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --events for an event the file does not hold: one line naming
# what the file holds and how to record the missing one; non-zero exit
# when none of the asked views exist, the others printed when some do.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -o "$T/c.data" -- true 2>/dev/null || fail "record"
"$APERTURE" report -i "$T/c.data" --events syscall >"$T/out" 2>"$T/err"
rc=$?
[ $rc -ne 0 ] || fail "--events syscall on a cpu file exits 0"
grep -q "holds no syscall events (it holds: cpu)" "$T/err" || fail "message: $(cat "$T/err")"
grep -q "aperture record -e syscall" "$T/err" || fail "no hint: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "more than one line: $(cat "$T/err")"
grep -q '^# Syscalls' "$T/out" && fail "an empty syscall table was printed"

"$APERTURE" report -i "$T/c.data" --events cpu,lock >"$T/out" 2>"$T/err" ||
	fail "--events cpu,lock: exit $?"
grep -q "holds no lock events" "$T/err" || fail "no note on lock: $(cat "$T/err")"
grep -q "of event 'cpu'" "$T/out" || fail "cpu table missing"
exit 0
