#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A program built without .eh_frame for its own code and without frame
# pointers, its .debug_frame in a separate debug file named by its
# .gnu_debuglink (tests/workloads/workloads.mk): the unwinder takes its
# rules from the debug file, and the chains are complete in at least 95 %
# of the samples; without the debug file they are lost (the control), and
# the report header counts the tables made from debug files.
. tests/integration/lib.sh
need_bpf
need_cmd python3

chains() {	# folded file: share of leaf_spin samples under main's chain
	awk '/;leaf_spin( |;)/ { n = $NF; all += n;
		if ($0 ~ /main;mode_cpu;chain_a;chain_b;leaf_spin( |;)/) ok += n }
		END { printf "%.1f", all ? 100 * ok / all : 0 }' "$1"
}
debug_files() {	# data file: tables made from separate debug files
	"$APERTURE" report -i "$1" --format json | python3 -c '
import json, sys
print(json.load(sys.stdin)["header"]["unwind"]["from_debug_files"])'
}

# a copy, so that the control can take the debug file away
cp "$WL/nofp_nocfi" "$WL/nofp_nocfi.debug" "$T/" || fail "copy"
"$APERTURE" record -F 999 -o "$T/d.data" -- "$T/nofp_nocfi" cpu 2 \
	>/dev/null 2>"$T/d.err" || fail "record: $(cat "$T/d.err")"
"$APERTURE" report -i "$T/d.data" --format folded >"$T/d.folded" ||
	fail "report"
c=$(chains "$T/d.folded")
echo "with the debug file: complete chains in $c %"
within "$c" 95 100 || {
	sort -k2 -nr "$T/d.folded" | head -5 | cut -c1-300
	fail "complete in $c % of the samples, want >= 95"
}
[ "$(debug_files "$T/d.data")" -ge 1 ] || fail "no table from a debug file"
"$APERTURE" report -i "$T/d.data" --header | grep -q '^# unwind  : cfi.*([1-9][0-9]* tables from debug files)' ||
	fail "header: $("$APERTURE" report -i "$T/d.data" | grep unwind)"

# the control: no debug file, no chains (the table kept from the first
# recording, by build-id, would still unwind it: none kept)
rm "$T/nofp_nocfi.debug"
APERTURE_UNWIND_CACHE=none "$APERTURE" record -F 999 -o "$T/n.data" -- "$T/nofp_nocfi" cpu 1 \
	>/dev/null 2>"$T/n.err" || fail "record: $(cat "$T/n.err")"
"$APERTURE" report -i "$T/n.data" --format folded >"$T/n.folded"
c=$(chains "$T/n.folded")
echo "without it: complete chains in $c %"
within "$c" 0 50 || fail "chains without the debug file: $c %"
[ "$(debug_files "$T/n.data")" = 0 ] || fail "a debug file counted without one"

# another program's debug file under the link's name is not used
cp "$WL/nofp_chains" "$T/nofp_nocfi.debug"
APERTURE_UNWIND_CACHE=none "$APERTURE" record -F 999 -o "$T/w.data" -- "$T/nofp_nocfi" cpu 1 \
	>/dev/null 2>"$T/w.err" || fail "record: $(cat "$T/w.err")"
[ "$(debug_files "$T/w.data")" = 0 ] || fail "a mismatching debug file was used"

# the table kept from the first recording: read again, not built, it
# still counts as from a debug file and unwinds the program
rm "$T/nofp_nocfi.debug"
"$APERTURE" record -v -F 999 -o "$T/c.data" -- "$T/nofp_nocfi" cpu 1 \
	>/dev/null 2>"$T/c.err" || fail "record: $(cat "$T/c.err")"
"$APERTURE" report -i "$T/c.data" --format folded >"$T/c.folded"
c=$(chains "$T/c.folded")
echo "from the cache: complete chains in $c %"
within "$c" 95 100 || fail "chains with the kept table: $c %"
[ "$(debug_files "$T/c.data")" -ge 1 ] || fail "the kept table does not count as from a debug file"
grep '^aperture: recorder:' "$T/c.err" | grep -q ' [1-9][0-9]* tables read from the cache' ||
	fail "no table read from the cache: $(grep '^aperture: recorder:' "$T/c.err")"
exit 0
