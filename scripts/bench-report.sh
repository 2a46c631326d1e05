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

# Report on a diverse system-wide recording: many processes and modules
# (a compile, compression, python, find | sort, short-lived processes),
# as `record -a` sees a busy machine.  The single workload above has a few
# stacks seen again and again; here most stacks are new and each frame's
# naming and row lookups count.  Both tools record the same mix at once,
# at a rate that gives about N samples over D seconds; CPU time per sample
# and maximum RSS of the report against perf report --stdio's.  Goals:
# time per sample at most 0.05 of perf's, memory at most 0.25.
echo
echo "== report on a diverse system-wide recording (-a)"
NCPU=$(nproc)
SRC=$(pwd)

# the mix for $1 seconds, in the background of the caller
mix() {
	mt=$B/mix
	mkdir -p "$mt"
	end=$(( $(date +%s) + $1 ))
	cat /usr/bin/* 2>/dev/null | head -c 3000000 >"$mt/blob"
	(while [ "$(date +%s)" -lt $end ]; do
		gcc -O2 -c -w -D_GNU_SOURCE -iquote "$SRC/lib" \
			-iquote "$SRC/bpf" -iquote "$BUILD" \
			"$SRC/lib/symbols/symbolizer.c" -o "$mt/s.o"
	done) &
	(while [ "$(date +%s)" -lt $end ]; do
		xz -T1 -3 -c "$mt/blob" >/dev/null
		gzip -c "$mt/blob" >/dev/null
	done) &
	python3 -c "
import json, time
end = time.time() + $1
while time.time() < end:
	json.loads(json.dumps({str(i): [i] * 3 for i in range(20000)}))
" &
	(while [ "$(date +%s)" -lt $end ]; do
		find /usr -type f 2>/dev/null | sort | sed s/a/b/ | wc -l
	done) >/dev/null &
	(while [ "$(date +%s)" -lt $end ]; do
		for i in 1 2 3 4 5 6 7 8 9 10; do
			/bin/true; ls / >/dev/null; echo x | sed s/x/y/
		done
	done) >/dev/null &
}

# "CPU-ms maxRSS-KB" of a command: its run of least CPU time of $1
cpu_rss() {
	runs=$1
	shift
	: >"$B/runs"
	for i in $(seq "$runs"); do
		/usr/bin/time -f '%U %S %M' -o "$B/time" "$@" >/dev/null \
			2>/dev/null || return 1
		awk '{ printf "%.0f %d\n", ($1 + $2) * 1000, $3 }' "$B/time" \
			>>"$B/runs"
	done
	sort -n "$B/runs" | head -1
}

# name, samples wanted, seconds, runs of each report
diverse() {
	hz=$(( $2 / ($NCPU * $3) ))
	[ $hz -gt 19999 ] && hz=19999
	[ $hz -lt 99 ] && hz=99
	mix $(( $3 + 2 ))
	"$APERTURE" record -a -F $hz -d $3 -o "$B/$1.data" 2>"$B/$1.err" \
		>/dev/null &
	# a perf record that fails (perf 6.1 aborts in its build-id pass
	# now and then, see above) gives no count below: the row says so
	perf record -a -g --buildid-mmap -F $hz -o "$B/$1.perf" -- \
		sleep $3 2>"$B/$1.perr" >/dev/null
	wait
	an=$(awk '/samples,/ { print $2 }' "$B/$1.err")
	# perf record -a says no count: perf report --stats does
	pn=$(perf report -i "$B/$1.perf" --stats 2>/dev/null |
	     awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }')
	if [ -z "$an" ] || [ -z "$pn" ]; then
		echo "$1: recording failed: $(tail -1 "$B/$1.err") / $(tail -1 "$B/$1.perr")"
		return
	fi
	set -- "$1" "$4"
	a=$(cpu_rss "$2" "$APERTURE" report -i "$B/$1.data") &&
	p=$(cpu_rss "$2" perf report -i "$B/$1.perf" --stdio) || {
		echo "$1: a report failed"
		return
	}
	# perf report holds about 8 KB a sample (8.5 GB at 1M)
	echo "$a $p" | awk -v an="$an" -v pn="$pn" -v hz=$hz -v n="$1" '{
		printf "%s at %d Hz: aperture report %d ms, %.0f MB for %d samples (%.2f us a sample); perf report --stdio %d ms, %.0f MB for %d samples (%.2f us)\n",
			n, hz, $1, $2 / 1024, an, $1 * 1000 / an, $3, $4 / 1024, pn, $3 * 1000 / pn
		printf "  aperture/perf: time per sample %.3f (goal <= 0.05), max RSS %.3f (goal <= 0.25)\n",
			($1 / an) / ($3 / pn), $2 / $4
	}'
	rm -f "$B/$1.data" "$B/$1.perf"
}

diverse 100k 100000 20 3
diverse 1m 1000000 50 1
