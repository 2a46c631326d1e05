#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# FIFOs planted where report looks for a program's separate debug file
# (its build-id path under /usr/lib/debug, and the debuglink's name beside
# it) must not hang report, which reads the real debug file further on
# (.debug/ beside it): the program is stripped, so its function names
# come only from there.  With no real debug file left and DEBUGINFOD_URLS
# set (libdwfl's own search, which report used to run before asking the
# servers, opened the same paths with a plain open()), report still ends,
# with the frames as offsets.  A debug file whose DWARF shares a dwz file
# (.gnu_debugaltlink) that is a FIFO (at the link's path and at its
# build-id path, both of which libdw's dwarf_getalt() opens itself):
# report ends and names the functions from the ELF symbols, without the
# DWARF's source lines; the same when the file found first with the dwz
# file's build-id holds no DWARF (libdw would then search on its own).
. tests/integration/lib.sh
need_bpf
need_cmd objcopy
need_cmd readelf
need_cmd dwz

export APERTURE_BUILDID_DIR="$T/bid"
cp "$WL/cpu_split" "$T/app.full"
(cd "$T" && objcopy --only-keep-debug app.full app.debug &&
	objcopy --strip-all --add-gnu-debuglink=app.debug app.full app) ||
	fail "objcopy"
id=$(readelf -n "$T/app" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "no build-id in cpu_split"
"$APERTURE" record -F 499 -o "$T/r.data" -- "$T/app" 1 >/dev/null \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
# dz: cpu_split whose DWARF dwz moved partly into dz.alt (two copies
# share all of it)
cp "$WL/cpu_split" "$T/dz.full"
cp "$WL/cpu_split" "$T/dz2.full"
(cd "$T" && dwz -m dz.alt -M dz.alt dz.full dz2.full &&
	objcopy --only-keep-debug dz.full dz.debug &&
	objcopy --strip-all --add-gnu-debuglink=dz.debug dz.full dz) ||
	fail "dwz"
readelf --debug-dump=info "$T/dz.debug" 2>/dev/null |
	grep -q 'alt indirect string' || fail "dz.debug uses no dwz forms"
aid=$(readelf -n "$T/dz.alt" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$aid" ] || fail "no build-id in dz.alt"
"$APERTURE" record -F 499 -o "$T/dz.data" -- "$T/dz" 1 >/dev/null \
	2>"$T/rec.err" || fail "record dz: $(cat "$T/rec.err")"

bdir=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)
bfifo=$bdir/$(echo "$id" | cut -c3-).debug
adir=/usr/lib/debug/.build-id/$(echo "$aid" | cut -c1-2)
afifo=$adir/$(echo "$aid" | cut -c3-).debug
[ -e "$bfifo" ] && skip "$bfifo exists"
[ -e "$afifo" ] && skip "$afifo exists"
made=
for d in /usr/lib/debug /usr/lib/debug/.build-id "$bdir" "$adir"; do
	[ -d "$d" ] || { mkdir "$d" && made="$d $made"; } || fail "mkdir $d"
done
trap 'rm -f "$bfifo" "$afifo"; for d in $made; do rmdir "$d"; done; rm -rf "$T"' EXIT INT TERM
mkdir "$T/.debug"
mv "$T/app.debug" "$T/.debug/app.debug"
mkfifo "$bfifo" "$T/app.debug" || fail "mkfifo"

# timeout: what this guards against is a hang
for fmt in table folded json; do
	env -u DEBUGINFOD_URLS timeout 60 "$APERTURE" report -i "$T/r.data" \
		--format $fmt >"$T/out.$fmt" 2>"$T/rep.err"
	rc=$?
	[ $rc -eq 0 ] || fail "report --format $fmt (exit $rc): $(cat "$T/rep.err")"
done
grep -q '^app;.*main;.*burn_60 [0-9]*$' "$T/out.folded" ||
	fail "no names from the debug file: $(head -5 "$T/out.folded")"

# nothing real left; the servers named (nothing listens there)
rm "$T/.debug/app.debug"
mkfifo "$T/.debug/app.debug"
DEBUGINFOD_URLS=http://127.0.0.1:9 DEBUGINFOD_CACHE_PATH="$T/dcache" \
	timeout 60 "$APERTURE" report -i "$T/r.data" --format folded \
	>"$T/none.folded" 2>"$T/none.err"
rc=$?
[ $rc -eq 0 ] || fail "report with DEBUGINFOD_URLS (exit $rc): $(cat "$T/none.err")"
grep -q '^app;.*app+0x[0-9a-f]* [0-9]*$' "$T/none.folded" ||
	fail "no frames of app: $(head -5 "$T/none.folded")"
grep -q 'burn_60' "$T/none.folded" && fail "names without a debug file"
# the dwz file there: its source lines
env -u DEBUGINFOD_URLS timeout 60 "$APERTURE" report -i "$T/dz.data" \
	--format folded --folded-srcline >"$T/dz.folded" 2>"$T/rep.err" ||
	fail "report dz: $(cat "$T/rep.err")"
grep -q '^dz;.*main (cpu_split\.c:[0-9]*);.*burn_60 (cpu_split\.c:[0-9]*) [0-9]*$' \
	"$T/dz.folded" || fail "no lines through dz.alt: $(head -5 "$T/dz.folded")"
# without a dz.alt that can be read (WHY): names from dz.debug's ELF
# symbols, no source lines, one warning, and no hang
no_alt() {
	env -u DEBUGINFOD_URLS timeout 60 "$APERTURE" report -i "$T/dz.data" \
		--format folded --folded-srcline >"$T/dz.folded" 2>"$T/rep.err"
	rc=$?
	[ $rc -eq 0 ] || fail "report dz, $1 (exit $rc): $(cat "$T/rep.err")"
	grep -q '^dz;.*main;.*burn_60 [0-9]*$' "$T/dz.folded" ||
		fail "$1: no names from dz.debug's symbols: $(head -5 "$T/dz.folded")"
	grep -q 'cpu_split\.c' "$T/dz.folded" && fail "$1: lines without dz.alt"
	grep -q "no dwz file 'dz.alt'" "$T/rep.err" ||
		fail "$1: no warning: $(cat "$T/rep.err")"
}
# FIFOs at its path and its build-id path
mv "$T/dz.alt" "$T/dz.alt.real"
mkfifo "$T/dz.alt" "$afifo" || fail "mkfifo"
no_alt "dz.alt a FIFO"
# a file with dz.alt's build-id and no DWARF where the dwz file is looked
# for first, the FIFO at the link's path: refused, libdw left no search
# of its own to make
rm -f "$afifo"
objcopy --remove-section='.debug_*' "$T/dz.alt.real" "$afifo" ||
	fail "objcopy --remove-section"
no_alt "a dz.alt without DWARF"
exit 0
