#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 27's smaller items: a SIGKILLed record takes its command with it;
# with too few descriptors the error names the limit, not the verifier;
# report says 20 warnings about missing files and counts the rest; gpu-env
# passes over an injection library that another user could have put
# there.
. tests/integration/lib.sh
need_bpf
need_cmd python3

wait_for() {
	i=0
	while ! eval "$1"; do
		i=$((i + 1))
		[ $i -lt 200 ] || return 1
		sleep 0.05
	done
}

# record -- CMD, then SIGKILL: the command dies too
"$APERTURE" record -o "$T/k.data" -- \
	sh -c 'echo $$ >"$1.tmp"; mv "$1.tmp" "$1"; exec sleep 100' sh "$T/pid" \
	2>"$T/k.err" & rp=$!
wait_for '[ -s "$T/pid" ]' || fail "the command did not start: $(cat "$T/k.err")"
cp=$(cat "$T/pid")
kill -KILL $rp
wait $rp 2>/dev/null
gone() {
	[ ! -d /proc/$cp ] || grep -q '^State:.*Z' /proc/$cp/status 2>/dev/null
}
wait_for gone || {
	kill -KILL $cp
	fail "the command outlived its SIGKILLed record"
}

# ulimit -n 12
(ulimit -n 12 && "$APERTURE" record -o "$T/n.data" -- true) >"$T/n.err" 2>&1 &&
	fail "record with 12 descriptors succeeded"
[ "$(grep -c . "$T/n.err")" = 1 ] || fail "not one line: $(cat "$T/n.err")"
grep -q "open files limit (ulimit -n) is 12" "$T/n.err" ||
	fail "ulimit -n 12: $(cat "$T/n.err")"
! grep -q verifier "$T/n.err" || fail "blames the verifier: $(cat "$T/n.err")"

# 30 deleted libraries, each with its samples, none kept: 30 files that
# cannot be opened, 20 warnings said and 10 counted
mkdir "$T/w"
n=0
while [ $n -lt 30 ]; do
	n=$((n + 1))
	cp "$WL/plugin_alpha.so" "$T/w/lib$n.so"
done
cat >"$T/spin.py" <<'EOF'
import ctypes, os, sys
libs = [ctypes.CDLL(p) for p in sys.argv[1:]]
for p in sys.argv[1:]:
    os.unlink(p)
for l in libs:
    l.alpha_spin.argtypes = [ctypes.c_double]
    l.alpha_spin(30.0)
EOF
# shellcheck disable=SC2046
"$APERTURE" record --no-buildid-cache -o "$T/w.data" -- python3 "$T/spin.py" \
	$(n=0; while [ $n -lt 30 ]; do n=$((n + 1)); echo "$T/w/lib$n.so"; done) \
	2>"$T/w.err" || fail "record: $(cat "$T/w.err")"
# an empty cache: the copies share plugin_alpha's build-id, which the
# default one may hold
mkdir "$T/nocache"
DEBUGINFOD_URLS= "$APERTURE" report -i "$T/w.data" --buildid-dir "$T/nocache" \
	--stdio >"$T/w.rep" 2>"$T/w.warn" ||
	fail "report: $(cat "$T/w.warn")"
hit=$(grep -o ' lib[0-9]*\.so ' "$T/w.rep" | sort -u | wc -l)
[ "$hit" -ge 25 ] || fail "only $hit of the 30 libraries sampled"
[ "$(grep -c "cannot open '$T/w/lib" "$T/w.warn")" -ge 15 ] ||
	fail "not the libraries' warnings: $(cat "$T/w.warn")"
more=$(sed -n 's/.* \([0-9]*\) more warnings about the recorded files not shown (20 were)$/\1/p' "$T/w.warn")
[ -n "$more" ] && [ $((more + 20)) -ge "$hit" ] ||
	fail "the rest not counted: $(tail -2 "$T/w.warn")"
[ "$(grep -c . "$T/w.warn")" = 21 ] || fail "more lines: $(cat "$T/w.warn")"

# gpu-env: a library under a directory others can write is passed over
[ -f "$BUILD/libaperture-cupti.so" ] || skip_tool "no libaperture-cupti.so built"
libdir=$(strings "$APERTURE" | grep -m1 '/lib/aperture$' || true)
[ -z "$libdir" ] || [ ! -e "$libdir/libaperture-cupti.so" ] ||
	skip "an installed $libdir/libaperture-cupti.so would be found"
mkdir -p "$T/inst/bin" "$T/inst/lib/aperture"
cp "$APERTURE" "$T/inst/bin/aperture"
cp "$BUILD/libaperture-cupti.so" "$T/inst/lib/aperture/"
lib=$T/inst/lib/aperture/libaperture-cupti.so
"$T/inst/bin/aperture" gpu-env 2>"$T/g.err" | grep -qx "CUDA_INJECTION64_PATH=$lib" ||
	fail "gpu-env, a trusted tree: $(cat "$T/g.err")"
chmod 0777 "$T/inst/lib/aperture"
"$T/inst/bin/aperture" gpu-env >"$T/g.out" 2>"$T/g.err" &&
	fail "gpu-env took a library others can replace: $(cat "$T/g.out")"
grep -q "'$T/inst/lib/aperture' can be written by others" "$T/g.err" ||
	fail "gpu-env, a writable directory: $(cat "$T/g.err")"
# group-writable: by group root only
chmod 0775 "$T/inst/lib/aperture"
"$T/inst/bin/aperture" gpu-env 2>"$T/g.err" | grep -qx "CUDA_INJECTION64_PATH=$lib" ||
	fail "gpu-env, group root's directory: $(cat "$T/g.err")"
chgrp nogroup "$T/inst/lib/aperture"
"$T/inst/bin/aperture" gpu-env >"$T/g.out" 2>"$T/g.err" &&
	fail "gpu-env took a library a group can replace: $(cat "$T/g.out")"
chgrp 0 "$T/inst/lib/aperture"
chmod 0755 "$T/inst/lib/aperture"
chown nobody "$lib"
"$T/inst/bin/aperture" gpu-env >"$T/g.out" 2>"$T/g.err" &&
	fail "gpu-env took another user's library: $(cat "$T/g.out")"
grep -q "'$lib' belongs to uid $(id -u nobody)" "$T/g.err" ||
	fail "gpu-env, another user's library: $(cat "$T/g.err")"
exit 0
