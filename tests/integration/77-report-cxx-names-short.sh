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

# pprof: a function's name demangled, its system_name the symbol's own,
# its start_line where the source declares it (cxxsym.cc: work, line 14)
if command -v protoc >/dev/null 2>&1; then
	"$APERTURE" report -i "$T/c.data" --format pprof 2>/dev/null | gzip -dc |
		protoc --decode=perftools.profiles.Profile -Iproto \
		proto/profile.proto >"$T/pb.txt" || fail "protoc"
	want=$(grep -n 'unsigned long work(unsigned long n)' \
		tests/workloads/cxxsym.cc | cut -d: -f1)
	python3 - "$T/pb.txt" "$want" <<'PY' || fail "pprof function of work"
import re, sys
t = open(sys.argv[1]).read()
strs = re.findall(r'^string_table: "(.*)"$', t, re.M)
for m in re.findall(r'^function \{\n(.*?)^\}', t, re.M | re.S):
    d = dict((k, int(v)) for k, v in re.findall(r'(\w+): (-?\d+)', m))
    if strs[d.get("name", 0)] == "cxxsym::inner::work(unsigned long)":
        assert strs[d.get("system_name", 0)] == "_ZN6cxxsym5inner4workEm", m
        assert d.get("start_line") == int(sys.argv[2]), m
        break
else:
    raise SystemExit("no function cxxsym::inner::work")
PY
fi
exit 0
