#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -a -F 4999 on a busy machine (one CPU hog per CPU): every sample
# is kept (records sized by their stacks' depth; perf record -a -g loses
# none there either): 0 lost, and samples of the hogs.
. tests/integration/lib.sh
need_bpf

hogs=
for i in $(seq "$(nproc)"); do
	"$WL/cpu_split" 30 >/dev/null &
	hogs="$hogs $!"
done
trap 'kill $hogs 2>/dev/null; rm -rf "$T"' EXIT
"$APERTURE" record -a -F 4999 -d 2 -o "$T/a.data" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
kill $hogs 2>/dev/null
cat "$T/rec.err"
grep -q ' 0 lost' "$T/rec.err" || fail "samples lost: $(cat "$T/rec.err")"
n=$(sed -n 's/^aperture: \([0-9]*\) samples.*/\1/p' "$T/rec.err")
[ "${n:-0}" -ge 1000 ] || fail "only ${n:-0} samples"
"$APERTURE" report -i "$T/a.data" --comm cpu_split --format folded |
	grep -q 'burn_60 ' || fail "no cpu_split samples"
exit 0
