#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The build-id cache keeps the files a target mapped and deleted (read
# through /proc/PID/map_files while it lives), within its limits: a
# sparse 1 GiB library is not copied (--buildid-max-file), nor anything
# past --buildid-max-total or below --buildid-min-free; each file left
# out is counted on the summary.
. tests/integration/lib.sh
need_bpf
need_cmd python3
need_cmd readelf

bid() {
	readelf -n "$1" | awk '/Build ID:/ { print substr($3, 1, 2) "/" substr($3, 3) }'
}

nobody_dir
cp "$WL/plugin_alpha.so" "$T/u/libsmall.so"
cp "$WL/plugin_gamma.so" "$T/u/libbig.so"
cp "$T/u/libsmall.so" "$T/small.orig"
small=$(bid "$T/u/libsmall.so")
big=$(bid "$T/u/libbig.so")
[ -n "$small" ] && [ -n "$big" ] && [ "$small" != "$big" ] ||
	fail "the plugins' build-ids: '$small' '$big'"
truncate -s 1G "$T/u/libbig.so"

# maps both (executable), deletes them, says so, then burns CPU in the
# small one's alpha_spin until killed
cat >"$T/map.py" <<'EOF'
import ctypes, os, sys
libs = [ctypes.CDLL(p) for p in sys.argv[1:-1]]
for p in sys.argv[1:-1]:
    os.unlink(p)
open(sys.argv[-1], "w").close()
libs[0].alpha_spin.argtypes = [ctypes.c_double]
while True:
    libs[0].alpha_spin(50.0)
EOF
python3 "$T/map.py" "$T/u/libsmall.so" "$T/u/libbig.so" "$T/ready" & wl=$!
trap 'kill $wl 2>/dev/null; rm -rf "$T"' EXIT INT TERM
i=0
while [ ! -e "$T/ready" ]; do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "the workload did not map its libraries"
	sleep 0.05
done
grep -q "libbig.so (deleted)" /proc/$wl/maps || fail "libbig.so not mapped"

rec() {
	cache=$1
	shift
	"$APERTURE" record -p $wl -d 0.3 --buildid-dir "$cache" \
		-o "$T/r.data" "$@" >"$T/out" 2>&1 ||
		fail "record $*: $(cat "$T/out")"
}

# the defaults: the small one kept whole, the big one over 256M
rec "$T/c1"
cmp -s "$T/c1/$small" "$T/small.orig" ||
	fail "the deleted library was not kept: $(ls -R "$T/c1" 2>&1)"
[ ! -e "$T/c1/$big" ] || fail "the 1 GiB library was copied"
grep -q "1 file kept .*, 1 not; 1 over --buildid-max-file 256M" "$T/out" ||
	fail "the summary: $(cat "$T/out")"
# kept: report finds it there, though deleted
"$APERTURE" report -i "$T/r.data" --buildid-dir "$T/c1" --stdio \
	>"$T/rep" 2>&1 || fail "report: $(cat "$T/rep")"
grep -q "alpha_spin" "$T/rep" ||
	fail "report did not symbolize the kept file: $(cat "$T/rep")"

# nothing copied that would leave less than --buildid-min-free
rec "$T/c2" --buildid-max-file 2G --buildid-max-total 2G \
	--buildid-min-free 1000T
[ -z "$(find "$T/c2" -type f 2>/dev/null)" ] ||
	fail "copied below --buildid-min-free: $(find "$T/c2" -type f)"
grep -q "0 files kept .*, 2 not; 2 for --buildid-min-free 1000T" "$T/out" ||
	fail "the summary, min-free: $(cat "$T/out")"

# nor past --buildid-max-total
rec "$T/c3" --buildid-max-total 1K
[ -z "$(find "$T/c3" -type f 2>/dev/null)" ] ||
	fail "copied past --buildid-max-total: $(find "$T/c3" -type f)"
grep -q "2 not; 1 over --buildid-max-file 256M; 1 past --buildid-max-total 1K" "$T/out" ||
	fail "the summary, max-total: $(cat "$T/out")"

"$APERTURE" record -p $wl --buildid-max-file 12Q -- true 2>"$T/out" &&
	fail "--buildid-max-file 12Q accepted"
grep -q "bad --buildid-max-file '12Q'" "$T/out" || fail "bad size: $(cat "$T/out")"
exit 0
