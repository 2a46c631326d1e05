#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture diff --events sched weighs each off-CPU stack at its first
# user frame, as the sched view's table shows it, not at the kernel's
# switch path (__schedule, the same for every stack): offcpu_sleep's
# sleepy_wait and burn against cpu_split's burn_* with the shares the
# report gives.  Against a file without the view: one error line and a
# non-zero exit, not every row at -100 %.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -e sched -o "$T/a.data" -- "$WL/offcpu_sleep" 1 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
# cpu_split is off the CPU only when something else wants it: a busy
# loop on its CPU, so that it waits runnable in each burn_* by its share
# (alone on a quiet machine it was preempted a few times, none in
# burn_60, in a CI run)
need_cmd taskset
taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null; rm -rf "$T"' EXIT INT TERM
"$APERTURE" record -e sched,cpu -o "$T/b.data" -- \
	taskset -c 0 "$WL/cpu_split" 1 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
kill $hog
"$APERTURE" diff --events sched "$T/a.data" "$T/b.data" >"$T/diff" ||
	fail "diff --events sched"
head -12 "$T/diff"
grep -q '\[k\]' "$T/diff" && fail "kernel frames: $(grep '\[k\]' "$T/diff")"
# sleepy_wait's share as the report's stack table gives it
"$APERTURE" report -i "$T/a.data" --events sched >"$T/report" || fail "report"
# (rows: TIME UNIT SHARE COUNT STATE COMMAND LEAF <- ...)
want=$(awk '$7 == "sleepy_wait" { s += $3 } END { printf "%.2f", s }' \
	"$T/report")
got=$(awk '$NF == "sleepy_wait" { printf "%.2f", $1 }' "$T/diff")
echo "sleepy_wait: diff $got %, report $want %"
[ "$want" != 0.00 ] && awk -v a="$got" -v b="$want" \
	'BEGIN { d = a - b; exit !(d < 0.03 && d > -0.03) }' ||
	fail "sleepy_wait: diff $got %, report $want %"
grep -q ' burn_60$' "$T/diff" || fail "no burn_60 row"

# the old file has no cpu events
"$APERTURE" diff "$T/b.data" "$T/a.data" >"$T/out" 2>"$T/err" &&
	fail "diff against a file without the view succeeded"
cat "$T/err"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "error lines: $(cat "$T/err")"
grep -q "holds no cpu events" "$T/err" || fail "error: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "rows printed: $(head -3 "$T/out")"
exit 0
