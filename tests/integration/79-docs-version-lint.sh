#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Docs: every man page passes mandoc -Tlint and carries a date and the
# version --version prints; --version and `aperture help CMD` work for
# every command; top's --help and man page name all eight views;
# aperture(1) has an ENVIRONMENT section.
. tests/integration/lib.sh
need_cmd mandoc

ver=$("$APERTURE" --version) || fail "--version"
for m in man/*.1 man/*.5; do
	out=$(mandoc -Tlint "$m" 2>&1)
	[ -z "$out" ] || fail "mandoc -Tlint $m: $out"
	grep -q "^\.TH [^ ]* [0-9] 20[0-9][0-9]-[01][0-9]-[0-3][0-9] \"$ver\"" "$m" ||
		fail "$m: .TH without a date and \"$ver\": $(grep '^\.TH' "$m")"
done
for c in record report top; do
	[ "$("$APERTURE" $c --version)" = "$ver" ] || fail "$c --version"
	[ "$("$APERTURE" $c -V)" = "$ver" ] || fail "$c -V"
	"$APERTURE" help $c | grep -q "Usage: aperture $c" || fail "help $c"
done
for e in cpu syscall lock lock:pthread gpu mem sched io; do
	"$APERTURE" top --help | grep -q -- "$e" || fail "top --help lacks $e"
	sed 's/\\-/-/g' man/aperture-top.1 | grep -q "^\.B $e\$" ||
		fail "aperture-top(1) does not describe $e"
done
sed -n '/^\.SH ENVIRONMENT/,/^\.SH [^E]/p' man/aperture.1 >"$T/env"
for v in APERTURE_DEBUG DEBUGINFOD_URLS build; do
	grep -q "$v" "$T/env" || fail "ENVIRONMENT lacks $v"
done
exit 0
