#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What perf users type: record -g (accepted, stacks are always on), -q
# (nothing on stderr), -v, -p PID -- CMD (the command is the clock),
# cycles:pp, --call-graph dwarf,SIZE; report -s with perf's "symbol", -n
# (a Samples column), --percent-limit, --stdio, -q, --header,
# --header-only, --children, -g none and perf's callchain syntax, and
# -i from a pipe (/dev/stdin).
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -g -q -o "$T/g.data" -- "$WL/cpu_split" 1 2 >/dev/null 2>"$T/err" ||
	fail "record -g -q: $(cat "$T/err")"
[ -s "$T/err" ] && fail "-q printed: $(cat "$T/err")"
"$APERTURE" record -v -o "$T/v.data" -- true >/dev/null 2>&1 || fail "record -v"

"$APERTURE" report -i "$T/g.data" --sort sym >"$T/a" || fail "--sort sym"
"$APERTURE" report -i "$T/g.data" -s symbol >"$T/b" || fail "-s symbol"
cmp -s "$T/a" "$T/b" || fail "-s symbol differs from --sort sym"
"$APERTURE" report -i "$T/g.data" -n --no-children >"$T/n" || fail "-n"
grep -q '^#  *Self  *Samples ' "$T/n" || fail "-n: no Samples column: $(grep Self "$T/n")"
# the Samples column adds up to the samples in the header
total=$(sed -n "s/^# Samples: \([0-9]*\) of event 'cpu'.*/\1/p" "$T/n")
sum=$(grep -v '^#' "$T/n" | awk 'NF { s += $2 } END { print s + 0 }')
[ "$sum" = "$total" ] || fail "-n: Samples add up to $sum, header says $total"
"$APERTURE" report -i "$T/g.data" --no-children --percent-limit 20 >"$T/p" ||
	fail "--percent-limit"
rows=$(grep -v '^#' "$T/p" | grep -c .)
[ "$rows" -ge 1 ] || fail "--percent-limit 20 left no row"
grep -v '^#' "$T/p" | awk 'NF { sub("%", "", $1); if ($1 + 0 < 20) exit 1 }' ||
	fail "--percent-limit 20 kept a row under 20%: $(cat "$T/p")"

# record -p PID -- CMD: PID recorded for as long as CMD runs, CMD not
"$WL/cpu_split" 30 >/dev/null &
burn=$!
start=$(date +%s%N)
"$APERTURE" record -q -o "$T/p.data" -p $burn -- sleep 1 ||
	fail "record -p PID -- sleep 1"
took=$(( ($(date +%s%N) - start) / 1000000 ))
kill $burn
wait $burn 2>/dev/null
[ $took -lt 20000 ] || fail "record -p -- sleep 1 took $took ms"
"$APERTURE" report -i "$T/p.data" --sort comm >"$T/pc" || fail "report -p"
grep -q "^# target  : pid $burn\$" "$T/pc" || fail "target: $(grep target "$T/pc")"
grep -v '^#' "$T/pc" | grep -q 'cpu_split' || fail "-p -- sleep: no cpu_split"
grep -v '^#' "$T/pc" | grep -q ' sleep' && fail "-p -- sleep: sleep recorded"
# cycles:pp and --call-graph dwarf,16384: taken, each with what it means
"$APERTURE" record -e cycles:pp --call-graph dwarf,16384 -o "$T/pp.data" \
	-- true 2>"$T/pp.err" >/dev/null || fail "cycles:pp: $(cat "$T/pp.err")"
grep -q "precise modifiers" "$T/pp.err" ||
	grep -q "^# sensor  : cpu from cycles" "$("$APERTURE" report -i "$T/pp.data" >"$T/pr"; echo "$T/pr")" ||
	fail "cycles:pp on cpu-clock said nothing: $(cat "$T/pp.err")"

# report: perf's spellings
"$APERTURE" report -i "$T/g.data" --stdio >"$T/stdio" || fail "--stdio"
"$APERTURE" report -i "$T/g.data" >"$T/plain"
cmp -s "$T/stdio" "$T/plain" || fail "--stdio differs from the table"
"$APERTURE" report -i "$T/g.data" -q >"$T/q" 2>"$T/q.err" || fail "-q"
grep -q '^#' "$T/q" && fail "-q: header lines: $(grep '^#' "$T/q" | head -3)"
[ -s "$T/q.err" ] && fail "-q printed: $(cat "$T/q.err")"
"$APERTURE" report -i "$T/g.data" --header-only >"$T/ho" || fail "--header-only"
grep -v '^#' "$T/ho" | grep -q . && fail "--header-only: rows"
grep -q '^# unwind  : cfi.* rows (' "$T/ho" || fail "--header-only: not whole"
grep -q '^# unwind  : cfi.* rows (' "$T/plain" && fail "the plain header is not folded"
"$APERTURE" report -i "$T/g.data" --children >"$T/ch" || fail "--children"
cmp -s "$T/ch" "$T/plain" || fail "--children differs from the default"
"$APERTURE" report -i "$T/g.data" -g none >"$T/gn" || fail "-g none"
cmp -s "$T/gn" "$T/plain" || fail "-g none drew a graph"
"$APERTURE" report -i "$T/g.data" --sort sym -g graph,0.5,caller >"$T/gp" ||
	fail "-g graph,0.5,caller"
"$APERTURE" report -i "$T/g.data" --sort sym -g caller >"$T/gc"
cmp -s "$T/gp" "$T/gc" || fail "-g graph,0.5,caller differs from -g caller"
# -G under a row of self time: the chain from the root to it, as perf's
"$APERTURE" report -i "$T/g.data" --sort sym --symbols burn_60 -G >"$T/G"
grep -q '^ *--[0-9.]*%-- main$' "$T/G" || fail "-G: no chain under burn_60: $(cat "$T/G")"
cat "$T/g.data" | "$APERTURE" report -i /dev/stdin >"$T/pipe" ||
	fail "-i /dev/stdin from a pipe"
grep -v '^#' "$T/pipe" | cmp -s - "$(grep -v '^#' "$T/plain" >"$T/pl"; echo "$T/pl")" ||
	fail "-i /dev/stdin: other rows"
exit 0
