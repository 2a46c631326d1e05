#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Golden outputs: report (table, folded, json) and script (text, jsonl) of
# stored recordings, byte for byte.  Symbols come only from the file (the
# kallsyms snapshot; user frames as file+offset): --symfs names an empty
# directory, so what is installed on the machine cannot change a byte.
#   sh tests/golden/run.sh APERTURE check    compare; exit 1 on a difference
#   sh tests/golden/run.sh APERTURE update   rewrite tests/golden/expected
# Run from the top of the tree (the headers name the files as given).
set -u
AP=$1
MODE=${2:-check}
EXP=tests/golden/expected
TMP=$(mktemp -d /tmp/aperture-golden.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir "$TMP/empty" "$TMP/cache" "$TMP/out"
NOSYM="--symfs=$TMP/empty --no-debuginfod --no-debug-cache --buildid-dir=$TMP/cache"

# name, then the command's arguments after the binary
run() {
	name=$1
	shift
	"$AP" "$@" >"$TMP/out/$name" 2>/dev/null
	echo "exit $?" >>"$TMP/out/$name"
}

for f in tests/golden/*.data tests/fuzz/corpus/*.data; do
	b=$(basename "$f" .data)
	run "$b.table" report -i "$f" $NOSYM
	run "$b.folded" report -i "$f" $NOSYM --format folded
	run "$b.json" report -i "$f" $NOSYM --format json
	run "$b.script" script -i "$f" --symfs="$TMP/empty"
	run "$b.jsonl" script -i "$f" --symfs="$TMP/empty" --format jsonl
done
# several views in one output
f=tests/golden/cpu-syscall-sched.data
run mixed-cpu-syscall.folded report -i "$f" $NOSYM --events cpu,syscall --format folded
run mixed-cpu-sched.folded report -i "$f" $NOSYM --events cpu,sched --format folded
f=tests/golden/cpu-lock-io.data
# every futex class: without symbols no wait is known for a mutex
run mixed-cpu-lock.folded report -i "$f" $NOSYM --events cpu,lock --lock-class all --format folded
# samples beside bytes: no common unit, refused (exit 1, nothing written)
run mixed-cpu-io.folded report -i "$f" $NOSYM --events cpu,io --format folded

if [ "$MODE" = update ]; then
	rm -rf "$EXP" && mkdir -p "$EXP" && cp "$TMP"/out/* "$EXP"/
	echo "golden: $(ls "$EXP" | wc -l) outputs written to $EXP"
	exit 0
fi
bad=0
for o in "$TMP"/out/*; do
	n=$(basename "$o")
	if ! cmp -s "$o" "$EXP/$n"; then
		echo "golden: $n differs:"
		diff -u "$EXP/$n" "$o" | head -20
		bad=$((bad + 1))
	fi
done
[ "$(ls "$EXP" | wc -l)" -eq "$(ls "$TMP/out" | wc -l)" ] ||
	{ echo "golden: $EXP holds other outputs than were made"; bad=$((bad + 1)); }
[ $bad -eq 0 ] || { echo "golden: $bad outputs differ"; exit 1; }
echo "golden: $(ls "$EXP" | wc -l) outputs identical"
