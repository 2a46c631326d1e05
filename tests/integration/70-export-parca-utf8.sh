#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Exports that their consumers take whole: the pprof of a recording with
# stacks meets Parca's validator's rules (ids in table order: mapping N
# is mapping[N-1]; tests/integration/pprof_rules.py), and a program whose
# name the kernel cuts inside a character (15 bytes of "aaaaaaaaaaaaaa€")
# gives a pprof that protoc decodes (proto3 strings are UTF-8), an svg
# that xmllint parses, and JSON that is UTF-8, with U+FFFD for the byte.
# The kernel's mapping carries the kernel's build-id, as perf knows it.
. tests/integration/lib.sh
need_bpf
need_cmd protoc
need_cmd xmllint
need_cmd python3
need_cmd perf

name=$(printf 'aaaaaaaaaaaaaa\342\202\254')	# 14 bytes + a 3-byte euro
cp "$WL/cpu_split" "$T/$name" || fail "copy"
"$APERTURE" record -F 499 -e cpu,syscall -o "$T/u.data" -- "$T/$name" 1 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
for ev in cpu syscall; do
	"$APERTURE" report -i "$T/u.data" --events $ev --format pprof \
		>"$T/$ev.pb.gz" 2>"$T/rep.err" || fail "pprof $ev: $(cat "$T/rep.err")"
	python3 tests/integration/pprof_rules.py "$T/$ev.pb.gz" ||
		fail "$ev: pprof breaks Parca's rules"
	gzip -dc "$T/$ev.pb.gz" | protoc --decode=perftools.profiles.Profile \
		-Iproto proto/profile.proto >"$T/$ev.txt" 2>"$T/protoc.err" ||
		fail "protoc refuses the $ev pprof: $(cat "$T/protoc.err")"
done
kbid=$(perf buildid-list -k 2>/dev/null)
[ -n "$kbid" ] || fail "perf buildid-list -k names no kernel build-id"
# off-CPU stacks start in the kernel's switch path: a kernel mapping
"$APERTURE" record -e sched -o "$T/k.data" -- "$WL/offcpu_sleep" n3 \
	>/dev/null 2>&1 || fail "record -e sched"
"$APERTURE" report -i "$T/k.data" --format pprof 2>/dev/null |
	gzip -dc | protoc --decode=perftools.profiles.Profile -Iproto \
	proto/profile.proto >"$T/k.txt" || fail "protoc: sched pprof"
python3 - "$T/k.txt" "$kbid" <<'PY' || fail "kernel mapping's build-id"
import re, sys
t = open(sys.argv[1]).read()
strs = [s.encode().decode("unicode_escape")
        for s in re.findall(r'^string_table: "(.*)"$', t, re.M)]
maps = re.findall(r'^mapping \{\n(.*?)^\}', t, re.M | re.S)
for m in maps:
    f = re.search(r'filename: (\d+)', m)
    if f and strs[int(f.group(1))] == "[kernel.kallsyms]":
        b = re.search(r'build_id: (\d+)', m)
        got = strs[int(b.group(1))] if b else ""
        assert got == sys.argv[2], (got, sys.argv[2])
        break
else:
    raise SystemExit("no kernel mapping")
PY
grep -q 'aaaaaaaaaaaaaa\\357\\277\\275' "$T/cpu.txt" ||
	fail "the cut name is not aaaaaaaaaaaaaa U+FFFD in pprof: $(grep -o 'aaaa[^"]*' "$T/cpu.txt" | head -1)"
"$APERTURE" report -i "$T/u.data" --events cpu --format svg >"$T/u.svg" ||
	fail "svg"
xmllint --noout "$T/u.svg" 2>"$T/xml.err" ||
	fail "xmllint refuses the svg: $(head -3 "$T/xml.err")"
"$APERTURE" report -i "$T/u.data" --format json >"$T/u.json" || fail "json"
python3 - "$T/u.json" <<'PY' || fail "json is not UTF-8"
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw.decode("utf-8"))	# strict: no invalid byte
assert "aaaaaaaaaaaaaa\ufffd" in raw.decode("utf-8"), "no U+FFFD"
PY
# the text outputs too: table, folded lines, script (perf script's text)
for out in "report --events cpu" "report --events cpu,syscall --format folded" \
	"script --events cpu,syscall"; do
	# shellcheck disable=SC2086
	"$APERTURE" $out -i "$T/u.data" >"$T/text" 2>/dev/null ||
		fail "$out"
	python3 - "$T/text" <<'PY' || fail "$out: not UTF-8"
import sys
d = open(sys.argv[1], "rb").read().decode("utf-8")
assert "aaaaaaaaaaaaaa\ufffd" in d, "no U+FFFD"
PY
done
exit 0
