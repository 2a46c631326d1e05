#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e io -- io_file: exact bytes per regular file, by path, through
# write, pwrite64, writev, read, pread64, copy_file_range and sendfile:
#	PATH		written B, read 2 * B
#	PATH.copy	written B (copy_file_range), read B (sendfile)
#	/dev/null	written B (sendfile)
# The table prints human units (B = 120.6K, 2 * B = 241.1K), JSON exact.
. tests/integration/lib.sh
need_bpf

B=123457
F="$T/data.bin"
"$APERTURE" record -e io -o "$T/io.data" -- "$WL/io_file" "$F" $B \
	>"$T/out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err" "$T/out")"
grep -q 'events, 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"

"$APERTURE" report -i "$T/io.data" --events io >"$T/table" || fail "report"
cat "$T/table"
# the path as the kernel names it (a symlinked /tmp resolves)
P=$(readlink -f "$F")
bytes() {	# DIR PATH -> bytes
	awk -v d="$1" -v f="$2" '!/^#/ && $4 == d && $NF == f { print $1 }' \
		"$T/table"
}
syscalls() {
	awk -v d="$1" -v f="$2" '!/^#/ && $4 == d && $NF == f { print $8 }' \
		"$T/table"
}
HB=120.6K H2B=241.1K
[ "$(bytes write "$P")" = $HB ] || fail "$P written: '$(bytes write "$P")'"
[ "$(bytes read "$P")" = $H2B ] || fail "$P read: '$(bytes read "$P")'"
[ "$(bytes write "$P.copy")" = $HB ] || fail "$P.copy written: '$(bytes write "$P.copy")'"
[ "$(bytes read "$P.copy")" = $HB ] || fail "$P.copy read: '$(bytes read "$P.copy")'"
[ "$(bytes write /dev/null)" = $HB ] || fail "/dev/null written: '$(bytes write /dev/null)'"
[ "$(syscalls write "$P")" = write,writev,pwrite64 ] ||
	fail "syscalls writing $P: $(syscalls write "$P")"
[ "$(syscalls read "$P")" = read,pread64,copy_file_range ] ||
	fail "syscalls reading $P: $(syscalls read "$P")"
[ "$(syscalls write /dev/null)" = sendfile ] || fail "sendfile to /dev/null"
grep -q ' chardev .*/dev/null$' "$T/table" || fail "/dev/null is not a chardev"
# files never pair
sed -n '/^# Pairs/,$p' "$T/table" | grep -q "$P" && fail "a file was paired"

"$APERTURE" report -i "$T/io.data" --events io --format json >"$T/json" ||
	fail "json"
need_cmd python3
python3 - "$T/json" "$P" $B <<'PY' || fail "json rows"
import json, sys
d = json.load(open(sys.argv[1]))["io"]
p, b = sys.argv[2], int(sys.argv[3])
got = {(r["resource"], r["dir"]): r["bytes"] for r in d["rows"]}
assert got[(p, "write")] == b and got[(p, "read")] == 2 * b, got
assert got[(p + ".copy", "write")] == b, got
assert got[(p + ".copy", "read")] == b, got
assert got[("/dev/null", "write")] == b, got
assert d["unresolved"] == 0, d
PY
exit 0
