#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The header's share of truncated stacks is the share the unwinder cut
# at its 256 frames: nofp_chains recursing 300 deep (the truth: its
# source) has nearly every stack cut, and the report's [truncated] roots
# say the same; 100 deep, none is.
. tests/integration/lib.sh
need_bpf

hdr() {	# data file: the header's truncated share
	"$APERTURE" report -i "$1" | sed -n \
		's/^# unwind  : cfi, .* \([0-9.]*\)% truncated.*/\1/p'
}
marked() {	# data file: the share of samples under a [truncated] root
	"$APERTURE" report -i "$1" --format folded | awk '{ n = $NF; all += n;
		if ($0 ~ /;\[truncated\](;| )/) cut += n }
		END { printf "%.1f", all ? 100 * cut / all : 0 }'
}

for d in 300 100; do
	"$APERTURE" record -F 999 -o "$T/$d.data" -- "$WL/nofp_chains" deep 1 $d \
		>/dev/null 2>"$T/$d.err" || fail "record: $(cat "$T/$d.err")"
	h=$(hdr "$T/$d.data")
	m=$(marked "$T/$d.data")
	echo "depth $d: header ${h:-?} % truncated, [truncated] roots $m %"
	[ -n "$h" ] || fail "no unwind header: $("$APERTURE" report -i "$T/$d.data" | grep unwind)"
	if [ $d = 300 ]; then
		within "$h" 90 100 || fail "depth 300: header says $h % truncated"
	else
		within "$h" 0 5 || fail "depth 100: header says $h % truncated"
	fi
	within "$(awk -v a="$h" -v b="$m" 'BEGIN { print a - b }')" -5 5 ||
		fail "depth $d: header $h %, marks $m %"
done
exit 0
