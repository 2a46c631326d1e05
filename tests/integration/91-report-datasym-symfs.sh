#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A lock's variable is named from the file the symbolizer reads for its
# mapping, not from the recorded path as it is: the binary moved under a
# --symfs root names contended_mutex there; without --symfs, or with
# another file planted at the recorded path, nothing names it.  A copy
# with no variables at all (objcopy --strip-all: qsort of no table, which
# UBSan refuses for NULL) leaves the lock named by its region.
. tests/integration/lib.sh
need_bpf
need_cmd objcopy
need_cmd python3

mkdir -p "$T/bin" "$T/root$T/bin" "$T/bare$T/bin"
cp "$WL/lock_contend" "$T/bin/lc"
"$APERTURE" record --no-buildid-cache -e lock -o "$T/lock.data" -- \
	"$T/bin/lc" 10 20 >"$T/wl.out" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
mv "$T/bin/lc" "$T/root$T/bin/lc"
objcopy --strip-all "$T/root$T/bin/lc" "$T/bare$T/bin/lc" ||
	fail "objcopy --strip-all"
readelf -s -W "$T/bare$T/bin/lc" | grep -q OBJECT &&
	fail "the stripped copy still has variables"
# libc in both roots: its frames tell a mutex's waits from others'
for f in $(ldd "$WL/lock_contend" |
	   awk '$1 ~ /^\// { print $1 } $3 ~ /^\// { print $3 }'); do
	for p in "$f" "$(realpath "$f")"; do
		for r in root bare; do
			mkdir -p "$T/$r$(dirname "$p")" && cp "$p" "$T/$r$p" ||
				fail "cannot copy $p"
		done
	done
done

# the top lock's name and region, or "-" for none
top() {
	"$APERTURE" report -i "$T/lock.data" --events lock --format json "$@" \
		>"$T/json" 2>"$T/err" || fail "report $*: $(cat "$T/err")"
	python3 - "$T/json" <<'PY' || fail "json of report $*"
import json, sys
locks = [l for l in json.load(open(sys.argv[1]))["lock"]["locks"]
         if l["kind"] == "futex"]
if not locks:
    print("none")
else:
    print(locks[0].get("name") or "-", locks[0].get("region") or "-")
PY
}

got=$(top --symfs "$T/root")
echo "symfs: $got"
[ "$got" = "contended_mutex lc" ] || fail "--symfs: $got ($(cat "$T/err"))"

got=$(top)
echo "moved away: $got"
case $got in contended_mutex*) fail "named without the file: $got" ;; esac

# another binary where the recorded one was: not read for its variables
cp "$WL/futex_loop" "$T/bin/lc"
got=$(top)
echo "another file at the path: $got"
case $got in contended_mutex*) fail "named from another file: $got" ;; esac
grep -q "build-id mismatch for '$T/bin/lc'" "$T/err" ||
	fail "no word of the mismatch: $(cat "$T/err")"

got=$(top --symfs "$T/bare")
echo "no variables: $got"
[ "$got" != "${got#* }" ] && [ "${got%% *}" != contended_mutex ] ||
	fail "a copy without variables: $got ($(cat "$T/err"))"
exit 0
