#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The report's header: the start time with its zone, and the command line
# quoted as a shell would need it, so that an argument with a newline or
# spaces stays inside the '#' block and can be pasted back.
. tests/integration/lib.sh
need_bpf

nl='
'
"$APERTURE" record -o "$T/q.data" -- true "a${nl}b" "c d" "it's" 2>/dev/null ||
	fail "record"
TZ=UTC "$APERTURE" report -i "$T/q.data" >"$T/out" || fail "report"
sed -n '1,/^#$/p' "$T/out" >"$T/head"
grep -v '^#' "$T/head" | grep -q . && fail "header lines outside the # block: $(cat "$T/head")"
grep -q '^# recorded: 20[0-9-]* [0-9:]* UTC, ' "$T/head" ||
	fail "no zone: $(grep recorded "$T/head")"
grep -qF "# cmdline : aperture record -o $T/q.data -- true \$'a\\nb' 'c d' 'it'\\''s'" "$T/head" ||
	fail "cmdline: $(grep cmdline "$T/head")"
exit 0
