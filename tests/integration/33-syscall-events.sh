#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# -e syscall,cpu records both; an unknown event name is a usage error
# (exit 64) that lists the valid ones, syscall among them.
. tests/integration/lib.sh

"$APERTURE" record -e syscall,nosuchevent -o "$T/x.data" -- true \
	>"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 64 ] || fail "unknown event: exit $rc, want 64"
grep -q "unknown event 'nosuchevent'" "$T/err" || fail "message: $(cat "$T/err")"
grep -q 'valid events: .*syscall' "$T/err" || fail "no list: $(cat "$T/err")"
"$APERTURE" report -i /dev/null --events nosuchevent >/dev/null 2>&1
[ $? -ne 0 ] || fail "report --events nosuchevent exited 0"

need_bpf
"$APERTURE" record -e syscall,cpu -F 499 -o "$T/both.data" -- \
	"$WL/syscall_exact" 200000 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
grep -q ' 0 lost' "$T/rec.err" || fail "summary: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/both.data" >"$T/all" || fail "report"
awk '$1 == "read" && $2 == 200000 { r = 1 } $1 == "write" && $2 == 200000 { w = 1 }
	END { exit !(r && w) }' "$T/all" || fail "syscall counts: $(cat "$T/all")"
grep -q '^# Samples: [1-9][0-9]* of event .cpu.' "$T/all" ||
	fail "no cpu samples: $(head -30 "$T/all")"
grep -q 'sensor  : cpu from ' "$T/all" && grep -q 'sensor  : syscall from raw_syscalls' "$T/all" ||
	fail "sensor lines"
# the CPU view sees the workload's loop
"$APERTURE" report -i "$T/both.data" --events cpu --format folded |
	grep -q 'rw_loop' || fail "no rw_loop in the CPU profile"
exit 0
