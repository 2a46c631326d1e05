#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Compressed .debug_frame: the unwinder takes its rules from it.
# - a Go program (its linker compresses its DWARF and writes no
#   .eh_frame): the caller of the frameless main.leaf is main.middle in at
#   least 95 % of main.leaf's samples, frame pointers miss it (the control);
#   95 % of its stacks reach a known root (runtime.goexit);
# - nofp_zdwarf: .eh_frame for the C runtime's start files only, its own
#   rules in its compressed .debug_frame;
# - nofp_zdebug: its .debug_frame in a separate debug file compressed by
#   objcopy --compress-debug-sections.
# The truth is the workloads' source: each leaf has one caller chain.
. tests/integration/lib.sh
need_bpf
need_cmd go

share() {	# folded file, ERE of the whole chain, ERE of the leaf
	awk -v want="$2" -v base="$3" '$0 ~ base { n = $NF; all += n;
		if ($0 ~ want) ok += n }
		END { printf "%.1f", all ? 100 * ok / all : 0 }' "$1"
}

rec() {	# name, record options.. -- command
	n=$1
	shift
	"$APERTURE" record -F 999 -o "$T/$n.data" "$@" 2>"$T/$n.err" \
		>/dev/null || fail "$n: record: $(cat "$T/$n.err")"
	"$APERTURE" report -i "$T/$n.data" --format folded >"$T/$n.folded" ||
		fail "$n: report"
}

check() {	# name, lo, hi, ERE of the whole chain, ERE of the leaf
	c=$(share "$T/$1.folded" "$4" "$5")
	n=$(awk -v base="$5" '$0 ~ base { n += $NF } END { print n + 0 }' \
		"$T/$1.folded")
	echo "$1: complete chains in $c % of $n samples"
	within "$c" "$2" "$3" || {
		sort -k2 -nr "$T/$1.folded" | head -5 | cut -c1-300
		"$APERTURE" report -i "$T/$1.data" --header | grep '^# unwind'
		fail "$1: complete in $c %, want $2 to $3"
	}
}

# (a cache of its own: the test runs as root, whose cache may be elsewhere)
GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS= GO111MODULE=off \
	go build -o "$T/frameless" tests/workloads/go/frameless.go \
	2>"$T/go.err" || fail "go build: $(cat "$T/go.err")"
readelf -W -S "$T/frameless" 2>/dev/null | grep -q 'debug_frame .* C ' ||
	fail "the Go program's .debug_frame is not compressed"
readelf -W -S "$T/frameless" 2>/dev/null | grep -q 'eh_frame' &&
	fail "the Go program has an .eh_frame"

GO_CHAIN='main\.main;main\.middle;main\.leaf( |$)'
rec go -- "$T/frameless" 2
check go 95 100 "$GO_CHAIN" ';main\.leaf( |$)'
# its chains end at runtime.goexit (or a thread's runtime.mstart): roots
root=$("$APERTURE" report -i "$T/go.data" |
	sed -n 's/^# Stacks : \([0-9.]*\)% reach a known root.*/\1/p')
echo "go: ${root:-?} % reach a known root"
within "${root:-0}" 95 100 ||
	fail "go: $("$APERTURE" report -i "$T/go.data" | grep '^# Stacks')"
rec gofp --call-graph fp -- "$T/frameless" 1
check gofp 0 50 "$GO_CHAIN" ';main\.leaf( |$)'

C_CHAIN='main;mode_cpu;chain_a;chain_b;leaf_spin( |;)'
readelf -W -S "$WL/nofp_zdwarf" 2>/dev/null | grep -q 'debug_frame .* C ' ||
	fail "nofp_zdwarf's .debug_frame is not compressed"
rec zdwarf -- "$WL/nofp_zdwarf" cpu 2
check zdwarf 95 100 "$C_CHAIN" ';leaf_spin( |;)'

cp "$WL/nofp_zdebug" "$WL/nofp_zdebug.debug" "$T/" || fail "copy"
readelf -W -S "$T/nofp_zdebug.debug" 2>/dev/null | grep -q 'debug_frame .* C ' ||
	fail "nofp_zdebug.debug's .debug_frame is not compressed"
rec zdebug -- "$T/nofp_zdebug" cpu 2
check zdebug 95 100 "$C_CHAIN" ';leaf_spin( |;)'
"$APERTURE" report -i "$T/zdebug.data" --header |
	grep -q '^# unwind  : cfi.*([1-9][0-9]* tables from debug files)' ||
	fail "header: $("$APERTURE" report -i "$T/zdebug.data" --header | grep unwind)"
# the control: without its debug file, the chains are lost (and without
# the table the runs above kept for its build-id)
rm "$T/nofp_zdebug.debug"
APERTURE_UNWIND_CACHE=none rec zdebugless -- "$T/nofp_zdebug" cpu 1
check zdebugless 0 50 "$C_CHAIN" ';leaf_spin( |;)'
exit 0
