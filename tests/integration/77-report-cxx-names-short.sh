#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# C++ names: --no-params drops the parameter lists, --no-demangle prints
# the mangled names; on a terminal the table is cut to its width (COLUMNS)
# while a pipe gets whole lines.
. tests/integration/lib.sh
need_bpf
need_cmd script

"$APERTURE" record -F 4999 -o "$T/c.data" -- "$WL/cxxsym" 300000000 \
	>/dev/null 2>"$T/err" || fail "record: $(cat "$T/err")"
"$APERTURE" report -i "$T/c.data" --no-children >"$T/full" || fail "report"
grep -q 'cxxsym::inner::work(unsigned long)' "$T/full" ||
	fail "no full name: $(grep cxxsym "$T/full")"
"$APERTURE" report -i "$T/c.data" --no-children --no-params >"$T/short" ||
	fail "report --no-params"
grep -q '\[\.\] cxxsym::inner::work$' "$T/short" ||
	fail "--no-params: $(grep cxxsym:: "$T/short")"
grep 'cxxsym::' "$T/short" | grep -q '(' && fail "--no-params left a parameter list"
"$APERTURE" report -i "$T/c.data" --no-children --no-demangle >"$T/raw" ||
	fail "report --no-demangle"
grep -q '_ZN6cxxsym5inner4workEm' "$T/raw" || fail "--no-demangle"

# a 60-column terminal: no line longer; through a pipe, longer lines stay
awk 'length > 60' "$T/full" | grep -q . || fail "the test needs lines over 60"
COLUMNS=60 script -qec "'$APERTURE' report -i '$T/c.data'" /dev/null |
	tr -d '\r' >"$T/tty"
grep -q "of event 'cpu'" "$T/tty" || fail "no table on the terminal: $(head -3 "$T/tty")"
long=$(awk 'length > 60' "$T/tty")
[ -z "$long" ] || fail "lines over 60 columns on a terminal: $long"
exit 0
