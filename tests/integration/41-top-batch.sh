#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# top -b on cpu_split (60/30/10 % in burn_60, burn_30, burn_10): exactly
# -n snapshots of plain text, burn_60 the top row of each with about 60 %,
# a header with rate, lost, targets and the counting mode; decaying counts
# stay near two intervals' worth while -z accumulates; the display options
# (--filter, --order, --user-only, --no-comm, --limit); batch mode ends
# with its target.
. tests/integration/lib.sh
need_bpf

# long enough for every top below on a loaded machine; killed at the end
"$WL/cpu_split" 120 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$T"' EXIT INT TERM
sleep 0.2

# the rows of snapshot N (1-based): lines that are not header, state or '#'
rows() {
	awk -v n="$1" '/^aperture top - / { s++; next }
		s == n && /^order: / { next }
		s == n && !/^#/ && NF { print }' "$2"
}
# "# Samples: N" of snapshot N
samples() {
	awk -v n="$1" '/^aperture top - / { s++ }
		s == n && /^# Samples: / { print $3 }' "$2"
}

timeout 30 "$APERTURE" top -b -n 3 -d 1 -p "$pid" >"$T/out" 2>"$T/err" ||
	fail "top -b: $(cat "$T/err")"
[ "$(grep -c '^aperture top - ' "$T/out")" -eq 3 ] ||
	fail "want 3 snapshots: $(cat "$T/out")"
esc=$(printf '\033')
grep -q "$esc" "$T/out" && fail "escape codes in batch output"
[ ! -s "$T/err" ] || fail "stderr: $(cat "$T/err")"
head -1 "$T/out" | grep -Eq "^aperture top - [0-9]{2}:[0-9]{2}:[0-9]{2}  cpu: [0-9]+ samples/s  lost: 0  targets: pid $pid  decaying 1/2 per 1 s$" ||
	fail "header: $(head -1 "$T/out")"
# (Shared Object is as wide as the longest name shown: [kernel.kallsyms]
# when a kernel row made the list, cpu_split otherwise)
grep -Eq '^#      Self   Samples  Command    Shared Object +Symbol$' "$T/out" ||
	fail "column header: $(grep Symbol "$T/out" | head -1)"
for n in 1 2 3; do
	first=$(rows $n "$T/out" | head -1)
	echo "snapshot $n: $first"
	echo "$first" | grep -Eq ' cpu_split +cpu_split +\[\.\] burn_60$' ||
		fail "snapshot $n: top row is not burn_60: $first"
	pct=$(echo "$first" | awk '{ sub("%", "", $1); print $1 }')
	within "$pct" 50 70 || fail "snapshot $n: burn_60 at $pct%, want 60"
done
# the samples per second of one thread at 999 Hz, when it gets a CPU
rate=$(grep '^aperture top' "$T/out" | sed -n '3s/.*cpu: \([0-9]*\) samples.*/\1/p')
within "$rate" 300 1100 || fail "rate $rate samples/s"
# the Samples column counts what the percentages say
rows 3 "$T/out" | awk -v tot="$(samples 3 "$T/out")" '
	{ sub("%", "", $1); if (($1 / 100 * tot - $2) ^ 2 > 1) bad = 1 }
	END { exit bad }' || fail "Samples column does not match Self"
# "cpu: N samples/s" of snapshot N: the events of its interval (1 s)
rate_of() {
	grep '^aperture top - ' "$2" | sed -n "$1s/.*cpu: \([0-9]*\) samples.*/\1/p"
}
# decaying: each snapshot is its interval plus half the one before, so
# the third holds S1/4 + R2/2 + R3 whatever the load did to the rates
d1=$(samples 1 "$T/out")
d3=$(samples 3 "$T/out")
want=$(awk -v s="$d1" -v a="$(rate_of 2 "$T/out")" -v b="$(rate_of 3 "$T/out")" \
	'BEGIN { print s / 4 + a / 2 + b }')
echo "decaying: $d1 then $d3 (want $want)"
within "$(awk -v a="$d3" -v b="$want" 'BEGIN { print a / b }')" 0.9 1.1 ||
	fail "decaying: $d1 then $d3 samples, want $want"

# -z: cumulative, and says so: S1 + R2 + R3
timeout 30 "$APERTURE" top -b -z -n 3 -d 1 -p "$pid" >"$T/z" 2>"$T/err" ||
	fail "top -b -z: $(cat "$T/err")"
head -1 "$T/z" | grep -q ' cumulative$' || fail "-z header: $(head -1 "$T/z")"
z1=$(samples 1 "$T/z")
z3=$(samples 3 "$T/z")
want=$(awk -v s="$z1" -v a="$(rate_of 2 "$T/z")" -v b="$(rate_of 3 "$T/z")" \
	'BEGIN { print s + a + b }')
echo "cumulative: $z1 then $z3 (want $want)"
within "$(awk -v a="$z3" -v b="$want" 'BEGIN { print a / b }')" 0.9 1.1 ||
	fail "cumulative: $z1 then $z3 samples, want $want"

# display options
"$APERTURE" top -b -n 1 -d 0.5 -p "$pid" --filter burn_3 >"$T/f" ||
	fail "--filter"
[ "$(rows 1 "$T/f" | grep -c .)" -ge 1 ] || fail "--filter: no rows"
rows 1 "$T/f" | grep -v 'burn_30$' && fail "--filter burn_3 lets other rows through"
grep -q '^order: self  kernel: shown  comm: shown  filter: burn_3' "$T/f" ||
	fail "--filter state line: $(sed -n 2p "$T/f")"
"$APERTURE" top -b -n 1 -d 0.5 -p "$pid" --order symbol --limit 3 >"$T/o" ||
	fail "--order symbol"
[ "$(rows 1 "$T/o" | wc -l)" -eq 3 ] || fail "--limit 3: $(cat "$T/o")"
rows 1 "$T/o" | awk '{ print $NF }' >"$T/syms"
sort -c "$T/syms" || fail "--order symbol: not sorted: $(cat "$T/syms")"
"$APERTURE" top -b -n 1 -d 0.5 -p "$pid" --order children >"$T/c" ||
	fail "--order children"
grep -q '^#  Children      Self   Samples' "$T/c" || fail "children column"
rows 1 "$T/c" | head -1 | grep -q '100.00%' || fail "children: main is not first"
"$APERTURE" top -b -n 1 -d 0.5 -p "$pid" --user-only --no-comm >"$T/u" ||
	fail "--user-only --no-comm"
rows 1 "$T/u" | grep -q '\[k\] [^[]' && fail "--user-only shows kernel frames"
grep -q 'Command' "$T/u" && fail "--no-comm shows the command column"
rows 1 "$T/u" | head -1 | grep -q 'cpu_split  *\[\.\] burn_60$' ||
	fail "--no-comm rows: $(rows 1 "$T/u" | head -1)"

# without -n, batch mode ends with its target
"$WL/cpu_split" 1 &
short=$!
timeout 20 "$APERTURE" top -b -d 0.5 -p "$short" >"$T/e" 2>"$T/err"
rc=$?
wait "$short"
[ $rc -eq 0 ] || fail "top -b after the target's exit: rc $rc $(cat "$T/err")"
tail -n +1 "$T/e" | grep '^aperture top' | tail -1 | grep -q '(exited)' ||
	fail "last header does not say exited: $(grep '^aperture top' "$T/e" | tail -1)"
exit 0
