#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A separate debug file with compressed DWARF (as libc6-dbg's) is read
# through an uncompressed copy in the debug cache: the first report makes
# it, later ones inflate nothing, and the stacks, inline frames and source
# lines are those read from the compressed file.  The cache is the user's
# own (0700, files 0600), a link planted in it is not followed, and a
# debug file whose compressed sections claim more than they can hold is
# refused with one line: report goes on with ELF symbols.  Counts from
# report -v, no timing.
. tests/integration/lib.sh
need_bpf
need_cmd objcopy
need_cmd readelf

"$APERTURE" record -F 999 -o "$T/i.data" -- "$WL/inline_hot" 1 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"

# a root with the mapped files, the workload stripped of its DWARF, which
# is in a compressed separate debug file found by build-id
mkroot() {
	for f in $(realpath "$WL/inline_hot") $(ldd "$WL/inline_hot" |
		   awk '$1 ~ /^\// { print $1 } $3 ~ /^\// { print $3 }'); do
		for p in "$f" "$(realpath "$f")"; do
			mkdir -p "$1$(dirname "$p")" && cp "$p" "$1$p" ||
				fail "cannot copy $p"
		done
	done
	wl=$(realpath "$WL/inline_hot")
	id=$(readelf -n "$wl" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	[ -n "$id" ] || fail "inline_hot has no build-id"
	dbg=$1/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
	mkdir -p "$(dirname "$dbg")"
	objcopy --only-keep-debug --compress-debug-sections=zlib "$wl" "$dbg" ||
		fail "objcopy --only-keep-debug"
	objcopy --strip-debug "$wl" "$1$wl" || fail "objcopy --strip-debug"
	readelf -S -W "$dbg" 2>/dev/null | grep -q '\.debug_info .* C ' ||
		fail "the debug file's .debug_info is not compressed"
}
mkroot "$T/root"

# "DWARF read for N (B bytes of debug sections, I bytes inflated); debug
# cache: M files inflated into it, R read from it; X debug files refused"
counts() {
	sed -n 's/.*DWARF read for \([0-9]*\) .*, \([0-9]*\) bytes inflated); debug cache: \([0-9]*\) files inflated into it, \([0-9]*\) read from it; \([0-9]*\) debug files refused.*/\1 \2 \3 \4 \5/p' "$1"
}
# report's warnings, less its -v line and the files the root lacks: a
# sample of the child before its exec is in aperture's own image
# (libasan under SANITIZE=1)
warnings() {
	grep -v -e '^aperture report: [0-9]* user lookups' \
		-e "warning: cannot open '.*': No such file or directory, nor its build-id in the cache" \
		"$1"
}
folded() {
	"$APERTURE" report -v --format folded --folded-srcline --symfs "$T/root" \
		-i "$T/i.data" "$@"
}

export APERTURE_DEBUG_CACHE="$T/cache"
folded --no-debug-cache >"$T/c0" 2>"$T/c0.err" ||
	fail "report --no-debug-cache: $(cat "$T/c0.err")"
folded >"$T/c1" 2>"$T/c1.err" || fail "report (cold): $(cat "$T/c1.err")"
folded >"$T/c2" 2>"$T/c2.err" || fail "report (warm): $(cat "$T/c2.err")"
echo "no cache: $(counts "$T/c0.err"); cold: $(counts "$T/c1.err"); warm: $(counts "$T/c2.err") (modules, bytes inflated, made, read, refused)"
grep -q ';hot_host (.*inline_hot.c:[0-9]*);hot_step (.*inline_hot.c:[0-9]*) ' "$T/c0" ||
	fail "no inline frame with its line from the debug file: $(head -3 "$T/c0")"
cmp -s "$T/c0" "$T/c1" && cmp -s "$T/c0" "$T/c2" || {
	diff "$T/c0" "$T/c2" | head -10
	fail "stacks through the debug cache differ"
}
set -- $(counts "$T/c0.err")
[ "${2:-0}" -gt 0 ] && [ "$3" = 0 ] && [ "$4" = 0 ] ||
	fail "--no-debug-cache: libdw inflates, no cache: $(counts "$T/c0.err")"
inflated=$2
set -- $(counts "$T/c1.err")
[ "${2:-0}" = "$inflated" ] && [ "$3" = 1 ] && [ "$4" = 0 ] ||
	fail "cold: the debug file inflated once into the cache: $(counts "$T/c1.err")"
set -- $(counts "$T/c2.err")
[ "${2:-x}" = 0 ] && [ "$3" = 0 ] && [ "$4" = 1 ] ||
	fail "warm: nothing inflated, the copy read: $(counts "$T/c2.err")"
warnings "$T/c1.err" | grep . && fail "warnings making the cache"

entry=$T/cache/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
[ -f "$entry" ] || fail "no cache entry $entry: $(ls -lR "$T/cache")"
[ "$(stat -c %a "$T/cache")" = 700 ] &&
	[ "$(stat -c %a "$(dirname "$entry")")" = 700 ] &&
	[ "$(stat -c %a "$entry")" = 600 ] ||
	fail "cache modes: $(ls -ld "$T/cache" "$(dirname "$entry")" "$entry")"
readelf -S -W "$entry" 2>/dev/null | grep -q '\.debug_info .* C ' &&
	fail "the cached copy's .debug_info is still compressed"

# an entry of another build-id is not used: remade
cp "$WL/cpu_split" "$entry"
folded >"$T/c3" 2>"$T/c3.err" || fail "report (bad entry)"
cmp -s "$T/c0" "$T/c3" || fail "stacks through a replaced entry differ"
set -- $(counts "$T/c3.err")
[ "$3" = 1 ] || fail "an entry of another build-id was used: $(counts "$T/c3.err")"

# by default, the user's own: $XDG_CACHE_HOME/aperture/debug, else
# ~/.cache/aperture/debug
mkdir -m 700 "$T/home" "$T/xdg"
(unset APERTURE_DEBUG_CACHE XDG_CACHE_HOME; export HOME="$T/home"
 folded >"$T/c6" 2>"$T/c6.err") ||
	fail "report (default cache): $(cat "$T/c6.err")"
[ -n "$(find "$T/home/.cache/aperture/debug" -type f 2>/dev/null)" ] ||
	fail "nothing cached in ~/.cache/aperture/debug: $(counts "$T/c6.err")"
(unset APERTURE_DEBUG_CACHE; export XDG_CACHE_HOME="$T/xdg" HOME="$T/home"
 folded >"$T/c7" 2>"$T/c7.err") ||
	fail "report (XDG_CACHE_HOME): $(cat "$T/c7.err")"
[ -n "$(find "$T/xdg/aperture/debug" -type f 2>/dev/null)" ] ||
	fail "nothing cached in \$XDG_CACHE_HOME/aperture/debug: $(counts "$T/c7.err")"
cmp -s "$T/c0" "$T/c6" && cmp -s "$T/c0" "$T/c7" ||
	fail "stacks through the default cache differ"

# a link planted where a cache directory goes is not followed
mkdir "$T/elsewhere"
APERTURE_DEBUG_CACHE="$T/cache2"
mkdir -m 700 "$T/cache2"
ln -s "$T/elsewhere" "$T/cache2/$(echo "$id" | cut -c1-2)"
folded >"$T/c4" 2>"$T/c4.err" || fail "report (link in the cache)"
cmp -s "$T/c0" "$T/c4" || fail "stacks with a link in the cache differ"
grep -q "debug cache: cannot keep an uncompressed copy of .*: a symbolic link, not followed" \
	"$T/c4.err" || fail "no word of the link: $(cat "$T/c4.err")"
[ -z "$(ls -A "$T/elsewhere")" ] || fail "wrote through the link"

# a directory others can write is not used, and its mode is left alone
# (the cache pointed at /tmp must not close /tmp)
APERTURE_DEBUG_CACHE="$T/shared"
mkdir -m 1777 "$T/shared"
folded >"$T/c5" 2>"$T/c5.err" || fail "report (shared cache directory)"
cmp -s "$T/c0" "$T/c5" || fail "stacks with a shared cache directory differ"
grep -q "debug cache: cannot keep .*no one else can write" "$T/c5.err" ||
	fail "no word of the shared directory: $(cat "$T/c5.err")"
[ "$(stat -c %a "$T/shared")" = 1777 ] ||
	fail "the shared directory's mode changed: $(stat -c %a "$T/shared")"
[ -z "$(ls -A "$T/shared")" ] || fail "wrote into the shared directory"
export APERTURE_DEBUG_CACHE="$T/cache"

# hostile: .debug_info claims SIZE (8 bytes, little-endian, octal escapes)
# inflated, from a few kilobytes (512 MiB, 1 TiB)
# in the debug file (1) or in the module itself (2)
claim() {
	rm -rf "$T/hroot"
	cp -a "$T/root" "$T/hroot"
	h=$T/hroot${dbg#$T/root}
	if [ "$2" = 2 ]; then
		rm -f "$h"
		h=$T/hroot$wl
		objcopy --compress-debug-sections=zlib "$wl" "$h" ||
			fail "objcopy --compress-debug-sections"
	fi
	off=$(readelf -S -W "$h" 2>/dev/null |
	      sed -n 's/.*\] \.debug_info *PROGBITS *[0-9a-f]* \([0-9a-f]*\) .*/\1/p')
	[ -n "$off" ] || fail "no .debug_info in $h"
	printf "$1" | dd of="$h" bs=1 seek=$((0x$off + 8)) conv=notrunc \
		2>/dev/null || fail "dd"
}
for how in '\000\000\000\040\000\000\000\000 1' \
	   '\000\000\000\000\000\001\000\000 1' \
	   '\000\000\000\000\000\001\000\000 2'; do
	claim $how
	for opt in "" --no-debug-cache; do
		rm -rf "$T/hcache"
		APERTURE_DEBUG_CACHE="$T/hcache" "$APERTURE" report -v \
			--format folded --symfs "$T/hroot" -i "$T/i.data" $opt \
			>"$T/h" 2>"$T/h.err" ||
			fail "report of a hostile debug file failed: $(cat "$T/h.err")"
		warnings "$T/h.err" >"$T/h.lines"
		[ "$(wc -l <"$T/h.lines")" = 1 ] &&
			grep -q "debug file '.*' refused: its compressed section [0-9]* claims [0-9]* bytes once inflated" \
				"$T/h.lines" ||
			fail "hostile ($opt): not one clear line: $(cat "$T/h.err")"
		set -- $(counts "$T/h.err")
		[ "$5" = 1 ] && [ "$2" = 0 ] ||
			fail "hostile ($opt): $(counts "$T/h.err")"
		grep -q ';hot_host ' "$T/h" ||
			fail "hostile ($opt): no ELF symbols: $(head -3 "$T/h")"
		[ -z "$(ls -A "$T/hcache" 2>/dev/null | grep -v '^$')" ] ||
			[ -z "$(find "$T/hcache" -type f)" ] ||
			fail "hostile ($opt): something was cached"
	done
done
echo "hostile debug files refused: $(cat "$T/h.lines")"
exit 0
