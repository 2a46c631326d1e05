#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Short-lived processes: ten 40 ms runs of shortlived from a shell
# loop, each gone before /proc could be read: the loop stops aperture
# (SIGSTOP) while it runs, so nothing is read until all have exited, and
# everything rests in the kernel's buffers.  Their mappings come from
# the kernel's records, so their samples resolve like a long process's:
# at least 95% of shortlived's samples end in a known frame, and
# main;short_burn has the bulk of them.  Samples taken inside execve,
# before the new image ran, have no user stack to resolve (the comm is
# already shortlived): left out, as their number grows with how long the
# kernel takes to load the program (a busy machine, a slower recorder).
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -F 999 -o "$T/s.data" -- sh -c \
	"kill -STOP \$PPID; for i in 1 2 3 4 5 6 7 8 9 10; do '$WL/shortlived' 40; done; kill -CONT \$PPID" \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/s.data" --format folded --user-only >"$T/folded" ||
	fail "report --format folded"
# with kernel frames (names ending in _[k], after the user ones)
"$APERTURE" report -i "$T/s.data" --format folded >"$T/all" ||
	fail "report --format folded"
set -- $(awk '$1 ~ /^shortlived;/ { n = $NF; k = split($1, f, ";");
		leaf = ""; exec = 0;
		for (i = 2; i <= k; i++)
			if (f[i] !~ /_\[k\]$/) leaf = f[i];
			else if (f[i] ~ /^__x64_sys_execve(at)?_\[k\]$/) exec = 1;
		if (leaf == "[unknown]" && exec) { inexec += n; next }
		t += n;
		if (leaf != "" && leaf != "[unknown]") named += n;
		if ($1 ~ /;main;short_burn/) burn += n }
	END { print t + 0, named + 0, burn + 0, inexec + 0 }' "$T/all")
echo "shortlived samples $1, leaf known $2, main;short_burn $3 (and $4 inside execve)"
[ "$1" -ge 100 ] || fail "too few samples of shortlived: $1"
within "$(echo "$1 $2" | awk '{ print 100 * $2 / $1 }')" 95 100 ||
	fail "only $2 of $1 samples known"
within "$(echo "$1 $3" | awk '{ print 100 * $2 / $1 }')" 70 100 ||
	fail "only $3 of $1 samples in main;short_burn"
# short_burn reads its CPU clock through the vDSO: named from the image
# record saved, as perf names it
grep -q ';short_burn;.*__vdso_clock_gettime [0-9]*$' "$T/folded" ||
	fail "no __vdso_clock_gettime frame: $(grep vdso "$T/folded" | head -3)"
