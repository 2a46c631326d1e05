#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -a -d 1 while processes built without frame pointers were already
# running: their chains are whole from the first second on.  Under -a the
# tables are compiled as stacks need them, within a share of the time, and
# with no table on disk yet these processes' chains were cut for the first
# 0.4 s (55 of 253 whole); the processes on a CPU at the start now have
# their tables before the sensors attach.  Judged on those processes'
# samples only (their pids, from the shell), each of which must go from
# leaf_spin through main to _start in libc.
. tests/integration/lib.sh
need_bpf
need_cmd python3

W="$WL/nofp_chains"
"$W" cpu 60 & p1=$!
"$W" cpu 60 & p2=$!
"$W" qsort 60 & p3=$!
trap 'kill $p1 $p2 $p3 2>/dev/null; rm -rf "$T"' EXIT INT TERM

# running: each has used CPU time (utime, field 14 of /proc/PID/stat)
for p in $p1 $p2 $p3; do
	i=0
	while [ "$(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null)" = 0 ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "workload $p does not run"
		sleep 0.05
	done
done

"$APERTURE" record -a -d 1 -F 499 -o "$T/a.data" >/dev/null 2>"$T/a.err" ||
	fail "record: $(cat "$T/a.err")"
for p in $p1 $p2 $p3; do
	kill -0 $p 2>/dev/null || fail "workload $p ended during the recording"
done
"$APERTURE" script -i "$T/a.data" --format jsonl >"$T/a.jsonl" ||
	fail "script"

# "N OK": samples of the pids ending in leaf_spin, those that reach _start
set -- $(python3 - "$T/a.jsonl" $p1 $p2 $p3 <<'EOF'
import json, sys
pids = set(int(p) for p in sys.argv[2:])
n = ok = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("pid") not in pids:
        continue
    u = [f.get("sym") for f in r.get("stack", []) if not f.get("kernel")]
    if not u or u[0] != "leaf_spin":
        continue
    n += 1
    ok += "main" in u and u[-1] == "_start"
print(n, ok)
EOF
)
echo "$2 of $1 samples of the running processes reach _start"
[ "$1" -ge 30 ] || fail "too few samples of the workloads: $1"
[ $(($2 * 100)) -ge $(($1 * 95)) ] || {
	"$APERTURE" report -i "$T/a.data" --header | grep '^# unwind'
	fail "$2 of $1 samples whole, want 95 %"
}
exit 0
