#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# JIT maps: jit_map runs code it generated in an anonymous executable
# mapping, named in /tmp/perf-PID.map, which it deletes when it exits.
# record reads the map while the process lives and stores it; the report,
# made after the file is gone, names the code jitted_spin.
. tests/integration/lib.sh
need_bpf
[ "$(uname -m)" = x86_64 ] || skip "jit_map generates x86_64 code"

"$APERTURE" record -F 999 -o "$T/j.data" -- "$WL/jit_map" 1 >"$T/out" \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
map=$(sed -n 's/^map //p' "$T/out")
[ -n "$map" ] || fail "workload output: $(cat "$T/out")"
[ -e "$map" ] && fail "$map was not deleted"
"$APERTURE" report -i "$T/j.data" --format folded --user-only >"$T/folded" ||
	fail "report"
set -- $(awk '$1 ~ /^jit_map;/ { t += $NF; k = split($1, f, ";");
		if (f[k] == "jitted_spin") j += $NF } END { print t + 0, j + 0 }' "$T/folded")
echo "jit_map samples $1, leaf jitted_spin $2"
[ "$1" -ge 50 ] || fail "too few samples: $1"
within "$(echo "$1 $2" | awk '{ print 100 * $2 / $1 }')" 70 100 ||
	fail "only $2 of $1 samples in jitted_spin"
"$APERTURE" report -i "$T/j.data" --sort dso,sym >"$T/table" || fail "report"
grep -q 'perf-[0-9]*\.map .*jitted_spin' "$T/table" ||
	fail "no jitted_spin row in perf-PID.map: $(grep jitted "$T/table")"
