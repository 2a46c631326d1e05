#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The debug cache's bounds: entries beyond --debug-cache-files or
# --debug-cache-size are removed least recently used first (atime, set on
# each use), never a file that is not an entry (not 0600, or misnamed);
# a temporary file a dead report left is removed; a copy larger than the
# cache is not made (libdw reads the file as it is); --debug-inflate
# bounds what one report inflates (past it, ELF symbols only); reports
# started at once on a cold cache inflate the file once between them.
# Sizes from stat, counts from report -v.
. tests/integration/lib.sh
need_bpf
need_cmd readelf
need_cmd objcopy

"$APERTURE" record -F 499 -o "$T/i.data" -- "$WL/inline_hot" 1 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
wl=$(realpath "$WL/inline_hot")
id=$(readelf -n "$wl" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "inline_hot has no build-id"
sub=$(echo "$id" | cut -c1-2)
rest=$(echo "$id" | cut -c3-)
# the workload stripped under a root, its DWARF compressed beside it
mkdir -p "$T/root$(dirname "$wl")" "$T/root/usr/lib/debug/.build-id/$sub"
objcopy --strip-debug "$wl" "$T/root$wl" || fail "objcopy --strip-debug"
objcopy --only-keep-debug --compress-debug-sections=zlib "$wl" \
	"$T/root/usr/lib/debug/.build-id/$sub/$rest.debug" ||
	fail "objcopy --only-keep-debug"

export APERTURE_DEBUG_CACHE="$T/cache"
entry=$T/cache/$sub/$rest.debug
# "inflated made read refused" from report -v's line
counts() {
	sed -n 's/.*, \([0-9]*\) bytes inflated); debug cache: \([0-9]*\) files inflated into it, \([0-9]*\) read from it; \([0-9]*\) debug files refused.*/\1 \2 \3 \4/p' "$1"
}
folded() {
	"$APERTURE" report -v --format folded --folded-srcline \
		--symfs "$T/root" -i "$T/i.data" "$@"
}
# a fake entry of N MiB last used at DATE
fake() {
	mkdir -p -m 700 "$T/cache/$1"
	head -c $(($3 * 1048576)) /dev/zero >"$T/cache/$1/$2.debug"
	chmod 600 "$T/cache/$1/$2.debug"
	touch -a -d "$4" "$T/cache/$1/$2.debug"
}
left() {
	(cd "$T/cache" && find . -type f ! -name '*.lock' | sort | tr '\n' ' ')
}
# the same for the files named
want() {
	printf '%s\n' "$@" | sort | tr '\n' ' '
}

folded --no-debug-cache >"$T/ref" 2>"$T/ref.err" ||
	fail "report --no-debug-cache: $(cat "$T/ref.err")"
grep -q ';hot_host (.*inline_hot.c:[0-9]*);hot_step ' "$T/ref" ||
	fail "no inline frame from the debug file: $(head -3 "$T/ref")"

# reports at once on a cold cache: one inflates, the others read its copy
for i in 1 2 3; do
	folded >"$T/p$i" 2>"$T/p$i.err" &
done
wait
made=0 read=0
for i in 1 2 3; do
	cmp -s "$T/ref" "$T/p$i" || fail "report $i at once: other stacks"
	set -- $(counts "$T/p$i.err")
	[ -n "$3" ] || fail "report $i: no counts: $(cat "$T/p$i.err")"
	made=$((made + $2)) read=$((read + $3))
done
echo "three reports at once: $made made, $read read from the cache"
[ "$made" = 1 ] && [ "$read" = 2 ] ||
	fail "reports at once inflated $made times, read $read"
size=$(stat -c %s "$entry") || fail "no entry"

# last use: a warm report sets the entry's atime
touch -a -d 2001-01-01 "$entry"
folded >/dev/null 2>"$T/w.err" || fail "warm report: $(cat "$T/w.err")"
[ "$(stat -c %X "$entry")" -gt "$(date -d 2002-01-01 +%s)" ] ||
	fail "a use left the entry's atime at $(stat -c %x "$entry")"

# --debug-cache-files: the least recently used entries go, not others'
rm -rf "$T/cache"
fake aa 0001 1 2003-01-01
fake bb 0002 1 2002-01-01
fake cc 0003 1 2004-01-01
fake dd 0004.debug.4242.0 1 2001-01-01 && mv "$T/cache/dd/0004.debug.4242.0.debug" \
	"$T/cache/dd/0004.debug.4242.0.tmp"
fake ee 0005 1 2000-01-01 && chmod 644 "$T/cache/ee/0005.debug"
fake ee 0006x 1 2000-01-01 && mv "$T/cache/ee/0006x.debug" "$T/cache/ee/0006"
folded --debug-cache-files 3 >"$T/f" 2>"$T/f.err" ||
	fail "report --debug-cache-files: $(cat "$T/f.err")"
cmp -s "$T/ref" "$T/f" || fail "--debug-cache-files: other stacks"
got=$(left)
echo "--debug-cache-files 3 left: $got"
[ "$got" = "$(want ./aa/0001.debug ./cc/0003.debug ./ee/0005.debug \
	     ./ee/0006 "./$sub/$rest.debug")" ] ||
	fail "--debug-cache-files 3: $got"

# --debug-cache-size: as many as the new entry needs, oldest first
rm -rf "$T/cache"
fake aa 0001 1 2003-01-01
fake bb 0002 1 2002-01-01
fake cc 0003 1 2004-01-01
folded --debug-cache-size $((2 * 1048576 + size + 4096)) >"$T/s" \
	2>"$T/s.err" || fail "report --debug-cache-size: $(cat "$T/s.err")"
cmp -s "$T/ref" "$T/s" || fail "--debug-cache-size: other stacks"
got=$(left)
echo "--debug-cache-size 2M+$size left: $got"
[ "$got" = "$(want ./aa/0001.debug ./cc/0003.debug "./$sub/$rest.debug")" ] ||
	fail "--debug-cache-size: $got"

# a copy larger than the whole cache: not made, DWARF read as it is
rm -rf "$T/cache"
folded --debug-cache-size $((size - 1)) >"$T/b" 2>"$T/b.err" ||
	fail "report, small cache: $(cat "$T/b.err")"
cmp -s "$T/ref" "$T/b" || fail "small cache: other stacks"
grep -q "debug cache: cannot keep .*more than the cache may hold" "$T/b.err" ||
	fail "no word of the small cache: $(cat "$T/b.err")"
[ -e "$entry" ] && fail "an entry larger than the cache was made"
set -- $(counts "$T/b.err")
[ "${1:-0}" -gt 0 ] && [ "$2" = 0 ] ||
	fail "small cache: libdw inflates: $(counts "$T/b.err")"

# --debug-inflate below what the file inflates to: refused, symbols only
for opt in "" --no-debug-cache; do
	rm -rf "$T/cache"
	folded --debug-inflate 1K $opt >"$T/d" 2>"$T/d.err" ||
		fail "report --debug-inflate $opt: $(cat "$T/d.err")"
	grep -q "debug file '.*' refused: its compressed sections claim [0-9]* bytes once inflated, more than the 1024 left of the 1024 one report may inflate" \
		"$T/d.err" || fail "--debug-inflate $opt: $(cat "$T/d.err")"
	set -- $(counts "$T/d.err")
	[ "$1" = 0 ] && [ "$2" = 0 ] && [ "$4" = 1 ] ||
		fail "--debug-inflate $opt: $(counts "$T/d.err")"
	grep -q ';hot_host' "$T/d" || fail "--debug-inflate $opt: no symbols"
	grep -q 'inline_hot.c:' "$T/d" && fail "--debug-inflate $opt: DWARF read"
	[ -e "$entry" ] && fail "--debug-inflate $opt: an entry was made"
done

# bad bounds: one line, a usage error
for bad in "--debug-cache-size 12Q" "--debug-cache-files 0" \
	   "--debug-inflate -1"; do
	folded $bad >/dev/null 2>"$T/e.err" && fail "$bad accepted"
	[ "$(wc -l <"$T/e.err")" -le 2 ] && grep -q "bad --" "$T/e.err" ||
		fail "$bad: $(cat "$T/e.err")"
done
APERTURE_DEBUG_CACHE_FILES=many folded >/dev/null 2>"$T/e.err" &&
	fail "APERTURE_DEBUG_CACHE_FILES=many accepted"
grep -q "bad APERTURE_DEBUG_CACHE_FILES='many'" "$T/e.err" ||
	fail "APERTURE_DEBUG_CACHE_FILES=many: $(cat "$T/e.err")"
exit 0
