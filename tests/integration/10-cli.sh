#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The command line: help, version, exact command names, usage errors are
# one line on stderr and exit 64.
. tests/integration/lib.sh

"$APERTURE" --help | grep -q '^Usage: aperture' || fail "--help"
"$APERTURE" --version | grep -q '^aperture [0-9]' || fail "--version"
for c in record report top script diff; do
	"$APERTURE" help $c | grep -q "Usage: aperture $c" || fail "help $c"
	"$APERTURE" $c --help | grep -q "Usage: aperture $c" || fail "$c --help"
	"$APERTURE" $c --usage | grep -q "Usage: aperture $c" || fail "$c --usage"
done

# usage errors: exit 64, exactly one line on stderr
usage_error() {
	"$APERTURE" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 64 ] || fail "'$*' exited $rc, want 64"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$*' printed $(wc -l <"$T/err") lines: $(cat "$T/err")"
}
usage_error
usage_error frobnicate
usage_error re			# no prefix guessing
usage_error rec
usage_error --bogus
usage_error record --bogus
usage_error record -F 0 -- true
usage_error record -F abc -- true
usage_error record -F 100000000 -- true
usage_error record -e nosuchevent -- true
usage_error record -d -1 -- true
usage_error record
usage_error record -p 1 -a -- true
usage_error report --format xml
usage_error report --sort nosuchkey
usage_error report --limit 0
usage_error report stray
usage_error help frobnicate
"$APERTURE" record -e nosuchevent -- true 2>&1 | grep -q "valid events: cpu" ||
	fail "unknown event does not list the valid ones"
exit 0
