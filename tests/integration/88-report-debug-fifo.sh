#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# FIFOs planted where report looks for a program's separate debug file
# (its build-id path under /usr/lib/debug, and the debuglink's name beside
# it) must not hang report, which reads the real debug file further on
# (.debug/ beside it): the program is stripped, so its function names
# come only from there.  With no real debug file left and DEBUGINFOD_URLS
# set (libdwfl's own search, which report used to run before asking the
# servers, opened the same paths with a plain open()), report still ends,
# with the frames as offsets.
. tests/integration/lib.sh
need_bpf
need_cmd objcopy
need_cmd readelf

export APERTURE_BUILDID_DIR="$T/bid"
cp "$WL/cpu_split" "$T/app.full"
(cd "$T" && objcopy --only-keep-debug app.full app.debug &&
	objcopy --strip-all --add-gnu-debuglink=app.debug app.full app) ||
	fail "objcopy"
id=$(readelf -n "$T/app" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "no build-id in cpu_split"
"$APERTURE" record -F 499 -o "$T/r.data" -- "$T/app" 1 >/dev/null \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"

bdir=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)
bfifo=$bdir/$(echo "$id" | cut -c3-).debug
[ -e "$bfifo" ] && skip "$bfifo exists"
made=
for d in /usr/lib/debug /usr/lib/debug/.build-id "$bdir"; do
	[ -d "$d" ] || { mkdir "$d" && made="$d $made"; } || fail "mkdir $d"
done
trap 'rm -f "$bfifo"; for d in $made; do rmdir "$d"; done; rm -rf "$T"' EXIT INT TERM
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
exit 0
