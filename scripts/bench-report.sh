#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, report section: report's CPU time per sample against perf
# report --stdio's, each on its own recording of the same workload (stacks
# through libc), with the separate debug info installed (libc6-dbg) and
# without it (both tools under --symfs, a root holding the mapped files
# and no /usr/lib/debug).  The table reads no DWARF; folded stacks (inline
# frames) read it through the debug cache, filled by the first report.
# CPU time (perf stat's task-clock), best of 3: the machine is shared.
# Goal: at most 0.2 of perf's, both ways, warm (perf's own build-id cache
# is filled by perf record).
# Env from scripts/bench.sh: BUILD APERTURE WL B.
set -u
echo "== report time per sample"
FREQ=4999
W="$WL/cpu_split n3000 2"

# CPU milliseconds of a command, best of 3
cpu_ms() {
	best=
	for i in 1 2 3; do
		perf stat -x, -e task-clock -o "$B/stat" -- "$@" >/dev/null 2>&1 ||
			return 1
		t=$(awk -F, '/task-clock/ { print $1 }' "$B/stat")
		best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
	done
	echo "$best"
}

"$APERTURE" record -F $FREQ -o "$B/r.data" -- $W 2>"$B/r.err" >/dev/null
# perf 6.1 aborts in its build-id pass now and then here (an assertion in
# util/build-id.c, seen with other BPF tools loaded): then without it
perf record -F $FREQ -g -o "$B/r.perf" -- $W 2>"$B/r.perr" >/dev/null ||
perf record --no-buildid -F $FREQ -g -o "$B/r.perf" -- $W 2>"$B/r.perr" \
	>/dev/null || {
	echo "perf record failed: $(tail -1 "$B/r.perr")"
	exit 0
}
ap_n=$(awk '/samples,/ { print $2 }' "$B/r.err")
pf_n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$B/r.perr")
for i in 1 2 3; do
	[ -n "$pf_n" ] && break
	n=$(perf script -i "$B/r.perf" -F tid 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] && pf_n=$n
done
[ -n "$pf_n" ] || { echo "perf script read no samples"; exit 0; }

# a root with the files the workload maps and no separate debug files
sfs=$B/root
for f in $(realpath "$WL/cpu_split") $(ldd "$WL/cpu_split" |
	   awk '$1 ~ /^\// { print $1 } $3 ~ /^\// { print $3 }'); do
	for p in "$f" "$(realpath "$f")"; do
		mkdir -p "$sfs$(dirname "$p")" && cp "$p" "$sfs$p"
	done
done

# aperture's time per sample over perf's, for aperture's ms
ratio() {
	awk -v a="$1" -v b="$ap_n" -v c="$pf" -v d="$pf_n" \
		'BEGIN { printf "%.3f", (a / b) / (c / d) }'
}

dbg="libc6-dbg installed"
dpkg -s libc6-dbg >/dev/null 2>&1 || dbg="libc6-dbg NOT installed"
for how in debug symfs; do
	set --
	[ $how = symfs ] && set -- --symfs "$sfs"
	ap=$(cpu_ms "$APERTURE" report -i "$B/r.data" "$@")
	# folded stacks show inline frames: DWARF, through the debug cache
	# (the first report fills it: cold)
	export APERTURE_DEBUG_CACHE="$B/dcache.$how"
	perf stat -x, -e task-clock -o "$B/stat" -- "$APERTURE" report \
		-i "$B/r.data" --format folded "$@" >/dev/null 2>&1
	cold=$(awk -F, '/task-clock/ { print $1 }' "$B/stat")
	apf=$(cpu_ms "$APERTURE" report -i "$B/r.data" --format folded "$@")
	unset APERTURE_DEBUG_CACHE
	pf=$(cpu_ms perf report -i "$B/r.perf" --stdio "$@")
	label="with separate debug info ($dbg)"
	[ $how = symfs ] && label="without separate debug info (--symfs)"
	echo "$label:"
	echo "  aperture report ${ap} ms for $ap_n samples, --format folded ${apf} ms warm, ${cold} ms cold (filling the debug cache); perf report --stdio ${pf} ms for $pf_n samples"
	echo "  time per sample aperture/perf: table $(ratio "$ap"), folded $(ratio "$apf") warm, $(ratio "$cold") cold (goal <= 0.2, warm)"
done
