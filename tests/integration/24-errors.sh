#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad input: one clear line and a non-zero exit; an earlier recording is
# kept as .old.
. tests/integration/lib.sh

one_line_error() {
	"$APERTURE" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -ne 0 ] || fail "'$*' exited 0"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$*': $(cat "$T/err")"
}

one_line_error report -i "$T/nonexistent"
grep -q 'No such file' "$T/err" || fail "missing file: $(cat "$T/err")"
echo "hello world, not a recording" >"$T/junk"
one_line_error report -i "$T/junk"
grep -q 'not an aperture' "$T/err" || fail "junk file: $(cat "$T/err")"
: >"$T/empty"
one_line_error report -i "$T/empty"
chmod 000 "$T/junk"
if [ "$(id -u)" -ne 0 ]; then
	one_line_error report -i "$T/junk"
fi

need_bpf
one_line_error record -p 999999999 -o "$T/x.data"
grep -q 'no such process' "$T/err" || fail "no such pid: $(cat "$T/err")"
one_line_error record -o "$T/x.data" -- /nonexistent/command
grep -q "cannot run" "$T/err" || fail "bad command: $(cat "$T/err")"

# -o on an existing file keeps it as .old
"$APERTURE" record -o "$T/o.data" -- "$WL/cpu_split" 0.3 2>/dev/null ||
	fail "record 1"
"$APERTURE" record -o "$T/o.data" -- "$WL/cpu_split" 0.3 2>/dev/null ||
	fail "record 2"
[ -s "$T/o.data.old" ] || fail "no .old kept"
# a newer major version is refused with one line
cp "$T/o.data" "$T/v.data"
printf '\377' | dd of="$T/v.data" bs=1 seek=8 conv=notrunc 2>/dev/null
one_line_error report -i "$T/v.data"
grep -q 'newer' "$T/err" || fail "newer version: $(cat "$T/err")"
exit 0
