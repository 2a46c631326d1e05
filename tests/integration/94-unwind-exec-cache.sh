#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A program started by exec from a shell (sh -c 'exec PROG', as build
# steps run): record builds the shell's tables before it starts, not the
# program's, so its first samples waited for them (sqlite3 this way had
# 0 of 77 whole chains in its first 0.2 s).  The tables a recording
# builds are kept by build-id and read at the start of the next: there,
# the program's first 100 samples in its hot loop (its first 0.1 s of CPU
# there, at 999 Hz; not wall time, which a loaded machine stretches) have
# the source's whole chain (main;mode_cpu;chain_a;chain_b;leaf_spin,
# built without frame pointers), and the recorder says the tables came
# from the cache.
. tests/integration/lib.sh
need_bpf
need_cmd python3

first() {	# data file: "N OK", the first 100 leaf_spin samples, whole
	"$APERTURE" script -i "$1" --format jsonl | python3 -c '
import json, sys
n = ok = 0
for line in sys.stdin:
    e = json.loads(line)
    if e.get("comm") != "nofp_chains" or e.get("event") != "cpu":
        continue
    u = [str(f.get("sym")) for f in e["stack"] if not f.get("kernel")]
    if n == 100 or "leaf_spin" not in u:
        continue
    n += 1
    ok += ";__libc_start_call_main;main;mode_cpu;chain_a;chain_b;leaf_spin" in \
        ";" + ";".join(reversed(u))
print(n, ok)'
}

cp "$WL/nofp_chains" "$T/nofp_chains" || fail "copy"
for run in cold warm; do
	"$APERTURE" record -v -F 999 -o "$T/$run.data" -- \
		sh -c "exec '$T/nofp_chains' cpu 1" >/dev/null 2>"$T/$run.err" ||
		fail "record: $(cat "$T/$run.err")"
	set -- $(first "$T/$run.data")
	echo "$run cache: $2 of the first $1 samples in the loop with the whole chain"
done
ls "$APERTURE_UNWIND_CACHE" | grep -q '\.tab$' || fail "nothing kept in $APERTURE_UNWIND_CACHE"
grep '^aperture: recorder:' "$T/warm.err" | grep -q ' [1-9][0-9]* tables read from the cache' ||
	fail "no table read from the cache: $(grep '^aperture: recorder:' "$T/warm.err")"
[ "$1" -ge 50 ] || fail "too few samples in the loop: $1"
[ $(($2 * 100)) -ge $(($1 * 95)) ] ||
	fail "with the tables kept: $2 of the first $1 samples whole, want 95 %"
exit 0
