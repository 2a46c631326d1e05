#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad input: one clear line and a non-zero exit; an earlier recording is
# kept as .old.
. tests/integration/lib.sh
need_cmd python3

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
# (major 255, with the header CRC such a writer computes: over version,
# length and payload)
cp "$T/o.data" "$T/v.data"
python3 - "$T/v.data" <<'EOF'
import struct, sys, zlib
with open(sys.argv[1], 'r+b') as f:
    h = bytearray(f.read(16))
    h[8:10] = struct.pack('<H', 255)
    n = struct.unpack('<I', h[12:16])[0]
    body = f.read(n)
    f.seek(0)
    f.write(h)
    f.seek(16 + n)
    f.write(struct.pack('<I', zlib.crc32(bytes(h[8:16]) + body)))
EOF
one_line_error report -i "$T/v.data"
grep -q 'newer' "$T/err" || fail "newer version: $(cat "$T/err")"
# the version flipped with no CRC to match: corruption, not a version
cp "$T/o.data" "$T/c.data"
printf '\377' | dd of="$T/c.data" bs=1 seek=8 conv=notrunc 2>/dev/null
one_line_error report -i "$T/c.data"
grep -q 'header CRC mismatch' "$T/err" || fail "flipped version: $(cat "$T/err")"
exit 0
