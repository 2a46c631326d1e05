#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Pipes: record -o - writes the stream to standard output (the command's
# own output goes to standard error, so it cannot corrupt the stream) and
# report -i - reads it from standard input; the same bytes read from a
# file and from a pipe give the same report.  -o - to a terminal is a
# usage error.
. tests/integration/lib.sh
need_bpf
need_cmd script

"$APERTURE" record -F 999 -o - -- "$WL/cpu_split" 1 2 2>"$T/err" |
	"$APERTURE" report -i - --format folded >"$T/folded" ||
	fail "record -o - | report -i -: $(cat "$T/err")"
grep -q 'main;work;burn_60 ' "$T/folded" || fail "no main;work;burn_60 in the piped report"
grep -q 'written to standard output' "$T/err" || fail "summary: $(cat "$T/err")"

# the command's standard output does not go into the stream
# (the text is made at run time: the command line is in the stream)
"$APERTURE" record -o - -- sh -c 'echo from-the-$((20 + 22))-command' \
	>"$T/s.data" 2>"$T/err" || fail "record -o - > file"
grep -q from-the-42-command "$T/err" || fail "the command's output is lost"
grep -aq from-the-42-command "$T/s.data" && fail "the command's output is in the stream"
"$APERTURE" report -i "$T/s.data" --format folded >"$T/a" || fail "report -i file"
"$APERTURE" report -i - --format folded <"$T/s.data" >"$T/b" || fail "report -i - < file"
cmp -s "$T/a" "$T/b" || fail "file and pipe reports differ"

"$APERTURE" report -i - </dev/null 2>"$T/err" && fail "empty stdin exits 0"
grep -q 'standard input is empty' "$T/err" || fail "empty stdin: $(cat "$T/err")"

script -qec "'$APERTURE' record -o - -- true; echo rc=\$?" /dev/null | tr -d '\r' >"$T/tty"
grep -q 'rc=64' "$T/tty" || fail "-o - on a terminal: $(cat "$T/tty")"
exit 0
