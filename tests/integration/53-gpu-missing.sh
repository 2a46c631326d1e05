#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# No CUDA library in the target: one clear line, and the other events go
# on.  A --cuda-lib that is not a CUDA library makes the sensor
# unavailable with the reason, and the others still record.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -e cpu,gpu -o "$T/cpu.data" -- "$WL/cpu_split" 1 \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
n=$(grep -c 'gpu: no CUDA runtime or driver library mapped in PID [0-9]' "$T/rec.err")
[ "$n" = 1 ] || fail "want one 'no CUDA' line, got $n: $(cat "$T/rec.err")"
grep -q ' [1-9][0-9]* samples' "$T/rec.err" || fail "no cpu samples: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/cpu.data" >"$T/table" || fail "report"
grep -q 'burn_60' "$T/table" || fail "cpu view missing"
grep -q '^# no GPU kernel launches recorded' "$T/table" || fail "gpu view: $(cat "$T/table")"
grep -q '^# sensor  : gpu from uprobe.*no CUDA runtime or driver library mapped' "$T/table" ||
	fail "the file does not say why: $(grep sensor "$T/table")"

# -p on a process without CUDA: said at once
# long enough to outlive a slow start of record on a loaded machine
"$WL/cpu_split" 30 >/dev/null &
wl=$!
trap 'kill $wl 2>/dev/null; rm -rf "$T"' EXIT INT TERM
"$APERTURE" record -e cpu,gpu -p $wl -d 0.5 -o "$T/pid.data" 2>"$T/pid.err" ||
	fail "record -p: $(cat "$T/pid.err")"
grep -q "^aperture: gpu: no CUDA runtime or driver library mapped in PID $wl;" "$T/pid.err" ||
	fail "-p: $(cat "$T/pid.err")"

# list: the gpu sensor says when this machine has no device
if ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
	"$APERTURE" list >"$T/list" 2>&1 || fail "list: $(cat "$T/list")"
	grep -q '^  gpu  .*no NVIDIA GPU (no /dev/nvidiaN device)' "$T/list" ||
		fail "list: $(grep gpu "$T/list")"
fi

# --cuda-lib naming a file without the launch functions
"$APERTURE" record -e cpu,gpu --cuda-lib "$WL/cpu_split" -o "$T/bad.data" -- \
	"$WL/cpu_split" 1 2>"$T/bad.err" || fail "record: $(cat "$T/bad.err")"
grep -q "^aperture: gpu: unavailable: --cuda-lib .*cpu_split defines none of cudaLaunchKernel" "$T/bad.err" ||
	fail "--cuda-lib: $(cat "$T/bad.err")"
grep -q ' [1-9][0-9]* samples' "$T/bad.err" || fail "cpu stopped: $(cat "$T/bad.err")"
exit 0
