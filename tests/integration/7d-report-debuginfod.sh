#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# debuginfod, the last place report looks: a binary whose path is gone
# after the recording is fetched by build-id from a local debuginfod
# server (DEBUGINFOD_URLS), and a stripped binary's DWARF comes from it
# (source lines appear).  Without DEBUGINFOD_URLS, or with --no-debuginfod,
# nothing is asked; a file of another build-id in debuginfod's cache is
# never used.
. tests/integration/lib.sh
need_bpf
need_cmd debuginfod
need_cmd debuginfod-find
need_cmd objcopy

src=tests/workloads/srcline_hot.c
hot=$(grep -n '/\* HOT \*/' "$src" | cut -d: -f1)
bid=$(readelf -n "$WL/srcline_hot" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || fail "srcline_hot has no build-id"

mkdir "$T/srv" "$T/bin" "$T/strip"
cp "$WL/srcline_hot" "$T/srv/srcline_hot"
cp "$WL/srcline_hot" "$T/bin/gone"
objcopy --strip-debug "$WL/srcline_hot" "$T/strip/stripped"
readelf -S "$T/strip/stripped" | grep -q debug_info &&
	fail "objcopy left DWARF in the stripped copy"

# a port of our own: the first one debuginfod can bind
srv=
for try in 1 2 3 4 5; do
	port=$((20000 + ($$ * 7 + try * 331) % 30000))
	debuginfod -F -d "$T/db.sqlite" -p "$port" -t 3600 -g 3600 "$T/srv" \
		>"$T/srv.log" 2>&1 &
	srv=$!
	# served once it has scanned the directory (a fresh cache each
	# time: libdebuginfod caches a miss)
	i=0
	while [ $i -lt 300 ] && kill -0 "$srv" 2>/dev/null; do
		DEBUGINFOD_URLS=http://127.0.0.1:$port \
		DEBUGINFOD_CACHE_PATH=$T/probe$i \
			debuginfod-find executable "$bid" >/dev/null 2>&1 && break
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 "$srv" 2>/dev/null && [ $i -lt 300 ] && break
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	srv=
done
[ -n "$srv" ] || fail "no debuginfod server came up: $(tail -3 "$T/srv.log")"
trap 'kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
url=http://127.0.0.1:$port

"$APERTURE" record --no-buildid-cache -o "$T/gone.data" -- "$T/bin/gone" \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" record --no-buildid-cache -o "$T/strip.data" -- \
	"$T/strip/stripped" >/dev/null 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
rm -rf "$T/bin"

# offline: nothing asked, the file is missing
env -u DEBUGINFOD_URLS "$APERTURE" report -i "$T/gone.data" --no-children \
	--sort sym >"$T/off" 2>"$T/off.err" || fail "report offline"
grep -q 'hot_loop' "$T/off" && fail "hot_loop named without the file"
grep -q "cannot open '$T/bin/gone'" "$T/off.err" ||
	fail "no warning for the missing file: $(cat "$T/off.err")"
grep -q debuginfod "$T/off.err" && fail "debuginfod named while off"

# from the server: the gone binary by its build-id
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/cache \
	"$APERTURE" report -i "$T/gone.data" --no-children --sort sym \
	>"$T/on" 2>"$T/on.err" || fail "report with debuginfod"
first=$(grep -v '^#' "$T/on" | grep . | head -1)
echo "$first" | grep -q 'hot_loop$' ||
	fail "top row is not hot_loop with debuginfod: $first ($(cat "$T/on.err"))"
[ -s "$T/cache/$bid/executable" ] || fail "nothing in debuginfod's cache"

# --no-debuginfod wins over the environment
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/cache2 \
	"$APERTURE" report -i "$T/gone.data" --no-children --sort sym \
	--no-debuginfod >"$T/no" 2>/dev/null || fail "report --no-debuginfod"
grep -q 'hot_loop' "$T/no" && fail "--no-debuginfod still asked"
[ -e "$T/cache2/$bid" ] && fail "--no-debuginfod filled a cache"

# another build-id under this one in the cache: not used
mkdir -p "$T/bad/$bid"
cp "$WL/cpu_split" "$T/bad/$bid/executable"
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/bad \
	"$APERTURE" report -i "$T/gone.data" --no-children --sort sym \
	>"$T/bad.out" 2>"$T/bad.err" || fail "report with a bad cache"
grep -Eq 'burn_|hot_loop' "$T/bad.out" && fail "a file of another build-id was used"
grep -q 'debuginfod servers' "$T/bad.err" ||
	fail "no warning naming debuginfod: $(cat "$T/bad.err")"

# the stripped binary: its DWARF from the server (libdw asks it)
env -u DEBUGINFOD_URLS "$APERTURE" report -i "$T/strip.data" \
	--no-children --sort srcline >"$T/s.off" || fail "report stripped"
grep -q "srcline_hot\.c:$hot\$" "$T/s.off" && fail "lines without DWARF"
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/cache \
	"$APERTURE" report -i "$T/strip.data" --no-children --sort srcline \
	>"$T/s.on" 2>"$T/s.err" || fail "report stripped with debuginfod"
grep -v '^#' "$T/s.on" | grep . | head -1 | grep -q " srcline_hot\.c:$hot\$" ||
	fail "no srcline_hot.c:$hot from debuginfod's DWARF: $(head -12 "$T/s.on")"
exit 0
