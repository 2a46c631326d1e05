#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -o creates its file without following a link planted by someone
# else and without truncating anything; FILE.old is a rename of the file
# itself; /dev/null is written to, never chmod'ed.
. tests/integration/lib.sh
need_bpf

run() {
	"$APERTURE" record -o "$1" -- "$WL/cpu_split" n20 >"$T/out" 2>&1
}

# a link to a file of someone else's: refused, the file untouched
echo precious >"$T/victim"
chmod 0644 "$T/victim"
ln -s "$T/victim" "$T/link.data"
run "$T/link.data" && fail "record -o LINK succeeded"
grep -q "symbolic link" "$T/out" || fail "record -o LINK: $(cat "$T/out")"
[ "$(cat "$T/victim")" = precious ] || fail "the link's target was written"
[ "$(stat -c %a "$T/victim")" = 644 ] || fail "the link's target was chmod'ed"
# a dangling link: nothing created where it points
ln -s "$T/nowhere" "$T/dangling.data"
run "$T/dangling.data" && fail "record -o DANGLING succeeded"
[ ! -e "$T/nowhere" ] || fail "a dangling link was followed"

# FILE.old: the previous file renamed; a link planted as FILE.old is
# replaced, its target untouched
run "$T/r.data" || fail "record: $(cat "$T/out")"
ln -s "$T/victim" "$T/r.data.old"
run "$T/r.data" || fail "record again: $(cat "$T/out")"
[ -f "$T/r.data.old" ] && [ ! -L "$T/r.data.old" ] ||
	fail "FILE.old is not the previous recording"
[ "$(cat "$T/victim")" = precious ] || fail "FILE.old link followed"
"$APERTURE" report -i "$T/r.data.old" >/dev/null 2>&1 ||
	fail "FILE.old does not read"
[ "$(stat -c %a "$T/r.data")" = 600 ] || fail "new file not 0600"

# a hard link to the old file keeps its bytes: replaced, not truncated
ln "$T/r.data" "$T/hard"
size=$(stat -c %s "$T/hard")
run "$T/r.data" || fail "record over a hard-linked file"
[ "$(stat -c %s "$T/hard")" = "$size" ] || fail "an existing file was truncated"

# /dev/null as root: written, its mode kept
mode=$(stat -c %a /dev/null)
run /dev/null || fail "record -o /dev/null: $(cat "$T/out")"
[ "$(stat -c %a /dev/null)" = "$mode" ] || {
	chmod "$mode" /dev/null
	fail "/dev/null was chmod'ed"
}
[ -c /dev/null ] || fail "/dev/null is no longer a device"
exit 0
