#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Short-lived processes: ten 40 ms runs of shortlived from a shell
# loop, each gone before /proc could be read: the loop stops aperture
# (SIGSTOP) while it runs, so nothing is read until all have exited, and
# everything rests in the kernel's buffers.  Their mappings come from
# the kernel's records, so their samples resolve like a long process's:
# at least 90% of shortlived's samples end in a known frame, and
# main;short_burn has the bulk of them.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -F 999 -o "$T/s.data" -- sh -c \
	"kill -STOP \$PPID; for i in 1 2 3 4 5 6 7 8 9 10; do '$WL/shortlived' 40; done; kill -CONT \$PPID" \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/s.data" --format folded --user-only >"$T/folded" ||
	fail "report --format folded"
set -- $(awk '$1 ~ /^shortlived;/ { n = $NF; t += n; k = split($1, f, ";");
		if (f[k] != "[unknown]") named += n;
		if ($1 ~ /;main;short_burn/) burn += n }
	END { print t + 0, named + 0, burn + 0 }' "$T/folded")
echo "shortlived samples $1, leaf known $2, main;short_burn $3"
[ "$1" -ge 100 ] || fail "too few samples of shortlived: $1"
within "$(echo "$1 $2" | awk '{ print 100 * $2 / $1 }')" 90 100 ||
	fail "only $2 of $1 samples known"
within "$(echo "$1 $3" | awk '{ print 100 * $2 / $1 }')" 70 100 ||
	fail "only $3 of $1 samples in main;short_burn"
# short_burn reads its CPU clock through the vDSO: named from the image
# record saved, as perf names it
grep -q ';short_burn;.*__vdso_clock_gettime [0-9]*$' "$T/folded" ||
	fail "no __vdso_clock_gettime frame: $(grep vdso "$T/folded" | head -3)"
