#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Mappings in time: plugin_swap loads plugin_alpha.so, runs it, unloads
# it and loads plugin_gamma.so at the same address, twice.  Each plugin
# burns the same CPU time in its own function: both names get their share
# of the samples (one address space per pid would give all to one).
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -F 499 -o "$T/p.data" -- "$WL/plugin_swap" 200 2 \
	>"$T/out" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
# the premise: the two plugins shared an address
[ "$(awk '{ print $2 }' "$T/out" | sort -u | wc -l)" = 1 ] ||
	skip "the plugins did not load at one address: $(cat "$T/out")"
"$APERTURE" report -i "$T/p.data" --format folded >"$T/folded" ||
	fail "report --format folded"
set -- $(awk '/;alpha_spin( |;)/ { a += $NF } /;gamma_spin( |;)/ { g += $NF }
	END { print a + 0, g + 0 }' "$T/folded")
echo "alpha_spin $1 gamma_spin $2"
[ $(($1 + $2)) -ge 100 ] || fail "too few plugin samples: $1 + $2"
within "$(echo "$1 $2" | awk '{ print 100 * $1 / ($1 + $2) }')" 30 70 ||
	fail "alpha_spin $1 vs gamma_spin $2 samples: want about half each"
grep -q '^plugin_swap;.*main;run;plugin_run;gamma_spin' "$T/folded" ||
	fail "no chain main;run;plugin_run;gamma_spin"
