#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -a --switch-output over many windows: the recorder's memory
# stays where it was after the first windows (each window's tables begin
# afresh), and --switch-max-files keeps the last N files.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -a --switch-output=500ms --switch-max-files=3 -d 18 \
	-o "$T/w.data" 2>"$T/rec.err" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$T"' EXIT INT TERM

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null; }
# until N windows are finished (the run's own clock, not ours)
windows() {
	i=0
	until [ "$(grep -c '^aperture: dump ' "$T/rec.err")" -ge "$1" ]; do
		kill -0 "$pid" 2>/dev/null || return 1
		[ $i -lt 600 ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
}
windows 16 || fail "16 windows: $(cat "$T/rec.err")"
first=$(rss)
windows 34 || fail "34 windows: $(cat "$T/rec.err")"
last=$(rss)
wait "$pid" || fail "record: $(cat "$T/rec.err")"
n=$(grep -c '^aperture: dump ' "$T/rec.err")
echo "RSS after 16 windows: $first kB, after 34: $last kB; $n windows"
# a fixed margin: what -a meets on a shared machine apart from the
# windows (the processes other users start, their mappings and unwind
# tables: 2 to 4 MB over these 9 s here, as much without windows)
[ "$last" -le $((first + 8192)) ] ||
	fail "RSS grew from $first kB to $last kB over 18 windows"
[ "$(ls "$T" | grep -c '^w\.data\.[0-9]\{16\}$')" -eq 3 ] ||
	fail "--switch-max-files=3: $(ls "$T")"
removed=$((n - 3))
tail -1 "$T/rec.err" |
	grep -q "in $n windows written to $T/w.data\.\* ($removed removed past --switch-max-files)" ||
	fail "summary: $(tail -1 "$T/rec.err")"
exit 0
