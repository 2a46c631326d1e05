#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# -e given twice adds up, as in perf: `-e cpu -e syscall` records both.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -e cpu -e syscall -o "$T/a.data" -- "$WL/syscall_exact" 1000 10 \
	>/dev/null 2>"$T/err" || fail "record: $(cat "$T/err")"
"$APERTURE" report -i "$T/a.data" >"$T/out" || fail "report"
grep -q '^# sensor  : cpu ' "$T/out" || fail "no cpu sensor: $(grep sensor "$T/out")"
grep -q '^# sensor  : syscall ' "$T/out" || fail "no syscall sensor: $(grep sensor "$T/out")"
grep -q "of event 'cpu'" "$T/out" || fail "no cpu table"
grep -q '^# Syscalls:' "$T/out" || fail "no syscall table"
exit 0
