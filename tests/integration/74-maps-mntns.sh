#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A binary that exists only in its own mount namespace: shortlived copied
# into a tmpfs mounted inside `unshare -m`.  record reads it through
# /proc/PID/map_files into the build-id cache (APERTURE_BUILDID_DIR); the
# report, made after the process exited, names its frames from there.
# With -p and with -- CMD.  A file of another build-id at the same path is
# never used.
. tests/integration/lib.sh
need_bpf
need_cmd unshare

export APERTURE_BUILDID_DIR="$T/cache"
mkdir -p "$T/ns"
run_in_ns() {
	exec unshare -m sh -c "mount -t tmpfs none '$T/ns' && cp '$WL/shortlived' '$T/ns/' && exec '$T/ns/shortlived' $1"
}
check() {
	"$APERTURE" report -i "$1" --format folded --user-only >"$T/folded" ||
		fail "report $1"
	set -- $(awk '$1 ~ /^shortlived;/ { t += $NF; if ($1 ~ /;main;short_burn/) b += $NF }
		END { print t + 0, b + 0 }' "$T/folded")
	echo "shortlived samples $1, in main;short_burn $2"
	[ "$1" -ge 20 ] || fail "too few samples: $1"
	within "$(echo "$1 $2" | awk '{ print 100 * $2 / $1 }')" 70 100 ||
		fail "only $2 of $1 samples in main;short_burn"
}

# -p: attach to the running process, report after it exited
run_in_ns 1500 &
pid=$!
i=0
while [ $i -lt 100 ] && ! readlink "/proc/$pid/exe" 2>/dev/null | grep -q "ns/shortlived"; do
	sleep 0.05
	i=$((i + 1))
done
[ -e "$T/ns/shortlived" ] && fail "the tmpfs is visible outside the namespace"
"$APERTURE" record -p $pid -d 1 -o "$T/p.data" 2>"$T/rec.err" ||
	fail "record -p: $(cat "$T/rec.err")"
wait $pid
ls "$T/cache"/*/* >/dev/null 2>&1 || fail "nothing kept in the build-id cache"
check "$T/p.data"

# -- CMD
"$APERTURE" record -o "$T/c.data" -- sh -c "$(command -v unshare) -m sh -c \"mount -t tmpfs none '$T/ns' && cp '$WL/shortlived' '$T/ns/' && exec '$T/ns/shortlived' 300\"" \
	2>"$T/rec2.err" || fail "record --: $(cat "$T/rec2.err")"
check "$T/c.data"

# another file at that path: never used, the cache still is
cp "$WL/cpu_split" "$T/ns/shortlived"
"$APERTURE" report -i "$T/c.data" --format folded --user-only 2>"$T/rep.err" |
	grep -q ';main;short_burn' || fail "the cache lost to a file of another build-id"
rm -rf "$T/cache"
"$APERTURE" report -i "$T/c.data" --format folded --user-only >"$T/folded" 2>"$T/rep.err"
grep -q 'build-id mismatch' "$T/rep.err" || fail "no mismatch warning: $(cat "$T/rep.err")"
grep -q 'short_burn\|burn_60' "$T/folded" && fail "a file of another build-id was used"
exit 0
