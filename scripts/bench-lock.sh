#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, lock section: kernel lock contention (lock_contend mmap: four
# threads on one mmap_lock) under aperture record -e lock and under perf
# lock record (the tracepoint-based peer; klockstat needs kprobes or
# fentry), in the same run: workload throughput kept, bytes per
# contention, report time.  Then the pthread mutex workload with -e lock
# and -e lock:pthread against its own measure of wait.
# Env from scripts/bench.sh: BUILD APERTURE WL B.
set -u
echo "== lock"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
rounds() { awk '/mmap rounds/ { print $NF }'; }

base=$("$WL/lock_contend" mmap 2 | rounds)
ap=$("$APERTURE" record -e lock -o "$B/lock.data" -- "$WL/lock_contend" mmap 2 2>"$B/lock.err" | rounds)
pf=$(perf lock record -o "$B/plock.data" -- "$WL/lock_contend" mmap 2 2>/dev/null | rounds)
echo "mmap_lock workload throughput kept: aperture $(ratio "$ap" "$base"), perf lock record $(ratio "$pf" "$base")"

ap_n=$("$APERTURE" report -i "$B/lock.data" --events lock --format json |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["lock"]["contentions"])')
pf_n=$(perf lock contention -i "$B/plock.data" -E 100000 2>&1 |
	awk '$1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }')
ap_b=$(stat -c %s "$B/lock.data")
pf_b=$(stat -c %s "$B/plock.data")
echo "contentions: aperture $ap_n (futex + kernel, the target only), perf $pf_n (kernel, system-wide)"
echo "bytes/contention aperture/perf: $(awk -v a="$ap_b" -v b="$ap_n" -v c="$pf_b" -v d="$pf_n" 'BEGIN { printf "%.3f", (a / b) / (c / d) }')"

s=$(date +%s%N); "$APERTURE" report -i "$B/lock.data" --events lock >/dev/null; e=$(date +%s%N)
rap=$(awk -v a="$s" -v b="$e" 'BEGIN { print (b - a) / 1e9 }')
s=$(date +%s%N); perf lock contention -i "$B/plock.data" >/dev/null 2>&1; e=$(date +%s%N)
rpf=$(awk -v a="$s" -v b="$e" 'BEGIN { print (b - a) / 1e9 }')
echo "report: aperture ${rap} s, perf lock contention ${rpf} s: aperture x$(ratio "$rpf" "$rap") faster"

for ev in lock lock:pthread; do
	"$APERTURE" record -e "$ev" -o "$B/m.data" -- "$WL/lock_contend" 25 20 \
		>"$B/m.out" 2>/dev/null
	truth=$(awk '{ for (i = 1; i < NF; i++) if ($i == "wait_ns") print $(i + 1) }' "$B/m.out")
	kind=futex
	[ "$ev" = lock:pthread ] && kind=pthread
	got=$("$APERTURE" report -i "$B/m.data" --events lock --format json |
		python3 -c 'import json,sys; l=[x for x in json.load(sys.stdin)["lock"]["locks"] if x["kind"]==sys.argv[1]]; print(l[0]["total_wait_ns"])' "$kind")
	echo "-e $ev: contended_mutex wait aperture/program $(ratio "$got" "$truth")"
done
