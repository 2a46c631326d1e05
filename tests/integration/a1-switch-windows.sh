#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --switch-output: back-to-back windows from one BPF session, each
# a whole file report and script read alone, every event inside its own
# window, the windows' samples adding up to the run's (and to no more than
# the CPUs' timers allow); --switch-max-files keeps N; SIGUSR2 cuts one
# and SIGTERM ends the run cleanly; --push accounts for every window.
. tests/integration/lib.sh
need_bpf
need_cmd python3
check=tests/integration/a1-switch-windows.py
# a program on a CPU all along: -a drops idle samples, and a fresh CI
# machine ran nothing else for 3.5 s (0 samples)
"$WL/offcpu_sleep" 30 >/dev/null &
bg=$!
trap 'kill $bg 2>/dev/null; rm -rf "$T"' EXIT INT TERM

# 3.5 s by the events' clock, cut every second: four windows, always
"$APERTURE" record -a --switch-output=1s -d 3.5 -o "$T/w.data" \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
n=$(ls "$T" | grep -c '^w\.data\.[0-9]\{16\}$')
[ "$n" -eq 4 ] || fail "$n window files, want 4: $(ls "$T")"
[ "$(grep -c '^aperture: dump ' "$T/rec.err")" -eq 4 ] ||
	fail "each window not named: $(cat "$T/rec.err")"
[ ! -e "$T/.w.data.part" ] || fail "the part file is left"
out=$(python3 "$check" "$APERTURE" "$T"/w.data.*) || fail "$out"
set -- $out
sum=$1
freq=$2
said=$(tail -1 "$T/rec.err" | sed -n 's/^aperture: \([0-9]*\) samples.*/\1/p')
[ "$sum" = "$said" ] ||
	fail "windows add up to $sum samples, the run counted $said"
tail -1 "$T/rec.err" | grep -q "in 4 windows written to $T/w.data\.\*" ||
	fail "summary: $(tail -1 "$T/rec.err")"
# no more than the CPUs' timers give at the rate the sensor ran at (the
# header's: under load it may lower -F) for 3.5 s
cpus=$(grep -c '^processor' /proc/cpuinfo)
max=$((cpus * 35 * freq / 10 * 102 / 100 + cpus))
[ "$sum" -gt 0 ] && [ "$sum" -le "$max" ] ||
	fail "$sum samples for $cpus CPUs x 3.5 s x $freq Hz ($max at most)"

# --switch-max-files: the last two kept
rm -f "$T"/w.data.*
"$APERTURE" record -a --switch-output=1s --switch-max-files=2 -d 3.5 \
	-o "$T/w.data" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
[ "$(ls "$T"/w.data.* | wc -l)" -eq 2 ] ||
	fail "--switch-max-files=2 kept $(ls "$T"/w.data.* | wc -l)"
last=$(grep '^aperture: dump ' "$T/rec.err" | tail -2 | sed 's/^aperture: dump //')
[ "$(ls "$T"/w.data.*)" = "$last" ] || fail "not the last two kept: $last"
tail -1 "$T/rec.err" | grep -q '(2 removed past --switch-max-files)' ||
	fail "summary: $(tail -1 "$T/rec.err")"

# signal: a window at SIGUSR2, the last one at SIGTERM (exit 0)
rm -f "$T"/w.data.*
"$APERTURE" record -a --switch-output -o "$T/w.data" 2>"$T/rec.err" &
pid=$!
i=0
until [ -e "$T/.w.data.part" ] || [ $i -ge 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.5
kill -USR2 "$pid"
i=0
until grep -q '^aperture: dump ' "$T/rec.err" || [ $i -ge 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.3
kill -TERM "$pid"
wait "$pid" || fail "SIGTERM: exit $?: $(cat "$T/rec.err")"
[ "$(ls "$T"/w.data.* | wc -l)" -eq 2 ] ||
	fail "SIGUSR2 then SIGTERM: $(ls "$T"/w.data.*), $(cat "$T/rec.err")"
python3 "$check" "$APERTURE" "$T"/w.data.* >/dev/null || fail "signal windows"

# --push to a port nobody listens on: every window is sent, rejected,
# lost or left unsent (the files left), none twice
rm -f "$T"/w.data.*
"$APERTURE" record -a --push http://127.0.0.1:9/ --switch-output=1s -d 2.5 \
	-o "$T/w.data" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
line=$(tail -1 "$T/rec.err")
echo "$line" | grep -q 'in 3 windows written' || fail "push: $line"
set -- $(echo "$line" | sed -n 's/.*push: \([0-9]*\) sent, \([0-9]*\) retried, \([0-9]*\) rejected, \([0-9]*\) lost, \([0-9]*\) unsent$/\1 \3 \4 \5/p')
[ $# -eq 4 ] || fail "push counts: $line"
[ $(($1 + $2 + $3 + $4)) -eq 3 ] || fail "push counts for 3 windows: $line"
left=$(ls "$T" | grep -c '^w\.data\.')
[ "$left" -eq "$4" ] || fail "$left files left, $4 unsent: $line"
exit 0
