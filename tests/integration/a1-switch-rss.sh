#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --switch-output system-wide over many windows, with processes
# that come and go in each: the recorder's memory stays where it was
# after the first windows (each window's tables begin afresh, exited
# processes are forgotten), and --switch-max-files keeps the last N
# files.  The system is filtered to a cgroup of the test's own (-G, the
# whole system's threads in it), so that what other users run on a
# shared machine does not weigh on the recorder's memory.
. tests/integration/lib.sh
need_bpf
mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$mnt" ] || skip "no cgroup v2 hierarchy mounted"
cg="$mnt/aperture-a1-$$"
mkdir "$cg" || fail "mkdir $cg"
pids=
# the cgroup's processes (an ls the loop had started among them) ended,
# then the cgroup removed
cleanup() {
	kill $pids $(cat "$cg/cgroup.procs") 2>/dev/null
	wait
	i=0
	while [ -s "$cg/cgroup.procs" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rmdir "$cg"
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
# a CPU-bound program and a shell that starts short ones, in the cgroup
"$WL/cpu_split" 600 &
pids="$pids $!"
echo $! >"$cg/cgroup.procs"
sh -c 'echo $$ >"$1/cgroup.procs"; while :; do ls / >/dev/null; done' sh \
	"$cg" &
pids="$pids $!"

# ASan's quarantine holds what is freed (up to 256 MB), which would read
# as growth: none here, so that the sanitized build is judged the same
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}:quarantine_size_mb=0" \
"$APERTURE" record -G "aperture-a1-$$" --switch-output=500ms \
	--switch-max-files=3 -d 18 -o "$T/w.data" 2>"$T/rec.err" &
pid=$!
pids="$pids $pid"

# the recorder's own memory: RssAnon, not VmRSS, which also counts the
# pages of the 32 MiB ring buffer it maps, touched as the kernel fills
# them
rss() { awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2>/dev/null; }
# the least RssAnon seen while windows $1 to $2 were finished (the run's
# own clock, not ours): what is left over when a burst (tables built for
# a new file, records held at a cut) has been given back, which a leak
# raises and a burst does not (a reading at one instant was 53 MB once,
# 11 MB a window later)
least() {
	i=0
	low=
	until [ "$(grep -c '^aperture: dump ' "$T/rec.err")" -ge "$2" ]; do
		kill -0 "$pid" 2>/dev/null || return 1
		[ $i -lt 600 ] || return 1
		if [ "$(grep -c '^aperture: dump ' "$T/rec.err")" -ge "$1" ]; then
			v=$(rss)
			[ -n "$v" ] && { [ -z "$low" ] || [ "$v" -lt "$low" ]; } &&
				low=$v
		fi
		sleep 0.1
		i=$((i + 1))
	done
	echo "$low"
}
first=$(least 10 16) && [ -n "$first" ] ||
	fail "16 windows: $(cat "$T/rec.err")"
last=$(least 28 34) && [ -n "$last" ] ||
	fail "34 windows: $(cat "$T/rec.err")"
wait "$pid" || fail "record: $(cat "$T/rec.err")"
n=$(grep -c '^aperture: dump ' "$T/rec.err")
echo "RssAnon at least $first kB in windows 10-16, $last kB in 28-34; $n windows"
# a fixed margin: half of what the stack tables of these 18 windows
# hold when they are kept (2 MB; 4 kB more here when they are not)
[ "$last" -le $((first + 1024)) ] ||
	fail "RSS grew from $first kB to $last kB over 18 windows"
[ "$(ls "$T" | grep -c '^w\.data\.[0-9]\{16\}$')" -eq 3 ] ||
	fail "--switch-max-files=3: $(ls "$T")"
removed=$((n - 3))
tail -1 "$T/rec.err" |
	grep -q "in $n windows written to $T/w.data\.\* ($removed removed past --switch-max-files)" ||
	fail "summary: $(tail -1 "$T/rec.err")"
exit 0
