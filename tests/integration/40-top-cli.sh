#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture top's command line: usage errors are one line and exit 64;
# what stops it from starting is one line and exit 1 (no such process, no
# terminal without -b).  None of this needs BPF.
. tests/integration/lib.sh

"$APERTURE" top --help >"$T/help" || fail "top --help"
grep -q '^Usage: aperture top' "$T/help" || fail "help usage line"
grep -q 'Keys: q quit, p pause' "$T/help" || fail "help lists the keys"

usage_error() {
	"$APERTURE" top "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ $rc -eq 64 ] || fail "'top $*' exited $rc, want 64: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" -eq 1 ] ||
		fail "'top $*' printed $(wc -l <"$T/err") lines: $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "'top $*' wrote to stdout"
}
usage_error --bogus
usage_error stray
usage_error -d 0
usage_error -d 0.05
usage_error -d abc
usage_error -n 0
usage_error -n -3
usage_error -F 0
usage_error -F 100000000
usage_error -e nosuchevent
grep -q "valid events: cpu" "$T/err" || fail "unknown event: $(cat "$T/err")"
usage_error -e cpu,cpu,syscall
grep -q "one event at a time" "$T/err" || fail "two events: $(cat "$T/err")"
usage_error -p 1 -a
usage_error -p 0
usage_error -p abc
usage_error --limit 0
usage_error -o nosuchorder
grep -q "give self, children, comm, symbol" "$T/err" ||
	fail "bad order: $(cat "$T/err")"
usage_error -p

one_line_error() {
	"$APERTURE" top "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ $rc -eq 1 ] || fail "'top $*' exited $rc, want 1: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" -eq 1 ] ||
		fail "'top $*': $(cat "$T/err")"
}
one_line_error -b -p 999999999
grep -q 'no such process: 999999999' "$T/err" || fail "no such pid: $(cat "$T/err")"
# interactive without a terminal: says what to do instead
one_line_error -p $$
grep -q 'needs a terminal.*give -b' "$T/err" || fail "no tty: $(cat "$T/err")"
exit 0
