#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report reads DWARF only for an output that shows what it gives (inline
# frames, source lines): libdw inflates compressed debug sections whole,
# megabytes for libc6-dbg's libc.  The default CPU table (rows are ELF
# functions) reads none and prints the same rows as --no-inline; folded
# stacks and --inline still show the inline frame.  --symfs holds the
# separate debug files too, as perf's: a root without /usr/lib/debug has
# none to read.  A compressed debug file is read through an uncompressed
# copy kept in the debug cache, with the same result.  report -v counts
# what was read.
. tests/integration/lib.sh
need_bpf
# DWARF read from the debug files as installed, until the cache's part
export APERTURE_DEBUG_CACHE=off

"$APERTURE" record -F 999 -o "$T/i.data" -- "$WL/inline_hot" 1 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"

# "... DWARF read for N (B bytes of debug sections)": N B
dwarf() {
	sed -n 's/.*DWARF read for \([0-9]*\) (\([0-9]*\) bytes.*/\1 \2/p' "$1"
}

"$APERTURE" report -v -i "$T/i.data" >"$T/table" 2>"$T/table.err" ||
	fail "report: $(cat "$T/table.err")"
set -- $(dwarf "$T/table.err")
echo "table: DWARF read for ${1:-?} modules, ${2:-?} bytes"
[ "${1:-x}" = 0 ] && [ "${2:-x}" = 0 ] ||
	fail "the default table read DWARF: $(cat "$T/table.err")"
"$APERTURE" report -v --no-inline -i "$T/i.data" >"$T/noinl" 2>/dev/null ||
	fail "report --no-inline"
cmp -s "$T/table" "$T/noinl" || {
	diff "$T/noinl" "$T/table" | head -20
	fail "the default table differs from --no-inline's"
}
grep -q ' hot_host *$' "$T/table" || fail "no hot_host row: $(head -30 "$T/table")"
grep -q 'hot_step' "$T/table" && fail "an inline row in the default table"

"$APERTURE" report -v --inline -i "$T/i.data" >"$T/inl" 2>"$T/inl.err" ||
	fail "report --inline"
grep -q ' hot_step *$' "$T/inl" || fail "--inline: no hot_step row"
set -- $(dwarf "$T/inl.err")
[ "${1:-0}" -ge 1 ] || fail "--inline read no DWARF: $(cat "$T/inl.err")"

"$APERTURE" report -v --format folded -i "$T/i.data" >"$T/folded" \
	2>"$T/folded.err" || fail "report --format folded"
grep -q ';hot_host;hot_step ' "$T/folded" ||
	fail "folded lines lost the inline frame"
set -- $(dwarf "$T/folded.err")
mods=${1:-0}
bytes=${2:-0}
echo "folded: DWARF read for $mods modules, $bytes bytes"
[ "$mods" -ge 1 ] || fail "folded read no DWARF"

# compressed separate debug files (libc6-dbg's) are read through an
# uncompressed copy in the debug cache, made once: the same stacks, lines
# and inline frames as from the compressed file
export APERTURE_DEBUG_CACHE="$T/dcache"
"$APERTURE" report -v --format folded --folded-srcline -i "$T/i.data" \
	>"$T/c1" 2>"$T/c1.err" || fail "report (cache made)"
"$APERTURE" report -v --format folded --folded-srcline -i "$T/i.data" \
	>"$T/c2" 2>"$T/c2.err" || fail "report (cache read)"
"$APERTURE" report -v --format folded --folded-srcline --no-debug-cache \
	-i "$T/i.data" >"$T/c0" 2>"$T/c0.err" || fail "report --no-debug-cache"
made() { sed -n 's/.*debug cache: \([0-9]*\) files inflated into it, \([0-9]*\) read.*/\1 \2/p' "$1"; }
echo "debug cache: $(made "$T/c1.err") then $(made "$T/c2.err"), --no-debug-cache $(made "$T/c0.err") (made, read)"
[ "$(made "$T/c0.err")" = "0 0" ] || fail "--no-debug-cache used the cache"
cmp -s "$T/c0" "$T/c1" && cmp -s "$T/c0" "$T/c2" || {
	diff "$T/c0" "$T/c2" | head -10
	fail "stacks through the debug cache differ"
}
grep -q ';hot_host (.*inline_hot.c:[0-9]*);hot_step (.*inline_hot.c:[0-9]*) ' "$T/c2" ||
	fail "no inline frame with its line: $(head -3 "$T/c2")"
set -- $(made "$T/c1.err") $(made "$T/c2.err")
[ "$2" = 0 ] && [ "$3" = 0 ] && [ "$4" = "$1" ] ||
	fail "the second report did not read what the first made"
if [ "$mods" -gt 1 ]; then
	# libc6-dbg: its debug files are compressed
	[ "$1" -ge 1 ] || fail "no debug file inflated: $(cat "$T/c1.err")"
fi
export APERTURE_DEBUG_CACHE=off

# the same recording under a root holding the mapped files and no debug
# files: only the workload's own DWARF
sfs=$T/root
for f in $(realpath "$WL/inline_hot") $(ldd "$WL/inline_hot" |
	   awk '$1 ~ /^\// { print $1 } $3 ~ /^\// { print $3 }'); do
	for p in "$f" "$(realpath "$f")"; do
		mkdir -p "$sfs$(dirname "$p")" && cp "$p" "$sfs$p" ||
			fail "cannot copy $p"
	done
done
"$APERTURE" report -v --format folded --symfs "$sfs" -i "$T/i.data" \
	>"$T/sfs" 2>"$T/sfs.err" || fail "report --symfs: $(cat "$T/sfs.err")"
grep -q ';hot_host;hot_step ' "$T/sfs" ||
	fail "--symfs: folded lines lost the inline frame"
set -- $(dwarf "$T/sfs.err")
echo "folded --symfs: DWARF read for ${1:-?} modules, ${2:-?} bytes"
[ "${1:-x}" = 1 ] || fail "--symfs: DWARF of ${1:-?} modules, not only the workload's"
if [ "$mods" -gt 1 ]; then
	# libc6-dbg's libc: read without --symfs, not under it
	[ "$2" -lt "$bytes" ] || fail "--symfs read as much DWARF"
fi
exit 0
