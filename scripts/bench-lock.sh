#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, lock section: kernel lock contention (lock_contend mmap: four
# threads on one mmap_lock) under aperture record -e lock and under perf
# lock record (the tracepoint-based peer; klockstat needs kprobes or
# fentry), in the same run: workload throughput kept, bytes per
# contention, report time.  Then the pthread mutex workload with -e lock
# and -e lock:pthread against its own measure of wait.  Then a contended
# mutex's throughput (lock_contend mutex: many short futex waits) kept
# under -e lock and -e lock:pthread, against perf lock record and a
# bpftrace futex wait-time histogram, paired in each of 3 rounds (the
# median kept); goal: -e lock keeps at least what perf lock keeps.
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

# throughput kept, paired: each round runs the workload alone and under
# every tool back to back, so that the machine's load is shared alike
MS=2
mrounds() { awk '/mutex rounds/ { print $NF }'; }
median3() { sort -n | sed -n 2p; }
BT='tracepoint:syscalls:sys_enter_futex /pid == cpid/ { @s[tid] = nsecs; }
tracepoint:syscalls:sys_exit_futex /@s[tid]/ { @wait_ns = hist(nsecs - @s[tid]); delete(@s[tid]); }'
: >"$B/k.lock"; : >"$B/k.pthread"; : >"$B/k.perf"; : >"$B/k.bt"
for i in 1 2 3; do
	base=$("$WL/lock_contend" mutex $MS | mrounds)
	a=$("$APERTURE" record -e lock -o "$B/mx.data" -- "$WL/lock_contend" mutex $MS 2>"$B/mx.err" | mrounds)
	ratio "$a" "$base" >>"$B/k.lock"; echo >>"$B/k.lock"
	a=$("$APERTURE" record -e lock:pthread -o "$B/mx.data" -- "$WL/lock_contend" mutex $MS 2>/dev/null | mrounds)
	ratio "$a" "$base" >>"$B/k.pthread"; echo >>"$B/k.pthread"
	a=$(perf lock record -o "$B/mx.perf" -- "$WL/lock_contend" mutex $MS 2>/dev/null | mrounds)
	ratio "$a" "$base" >>"$B/k.perf"; echo >>"$B/k.perf"
	if command -v bpftrace >/dev/null; then
		a=$(bpftrace -e "$BT" -c "$WL/lock_contend mutex $MS" 2>/dev/null | mrounds)
		ratio "${a:-0}" "$base" >>"$B/k.bt"; echo >>"$B/k.bt"
	fi
done
k_lock=$(median3 <"$B/k.lock")
k_pf=$(median3 <"$B/k.perf")
echo "mutex throughput kept (median of 3 paired): aperture -e lock $k_lock, -e lock:pthread $(median3 <"$B/k.pthread"), perf lock record $k_pf, bpftrace futex histogram $(median3 <"$B/k.bt")"
echo "-e lock / perf lock record throughput kept: $(ratio "$k_lock" "$k_pf") (goal >= 1); $(grep -o '[0-9]* events, [0-9]* lost' "$B/mx.err")"

# the recorders' memory one second into a 3 s run: Rss counts the BPF
# ring buffer's pages twice (the kernel maps them twice in a row so that a
# record never wraps; record -m sizes it, 1 MiB per CPU by default), Pss
# shares them out: the memory they take
mem_of() {	# PATTERN: "RSS_KB PSS_KB" of the newest matching process
	pid=$(pgrep -n -f "$1")
	[ -n "$pid" ] && awk '$1 == "Rss:" { r = $2 } $1 == "Pss:" { p = $2 }
		END { print r + 0, p + 0 }' "/proc/$pid/smaps_rollup"
}
"$APERTURE" record -e lock -o "$B/mem.data" -- "$WL/lock_contend" mutex 3 >/dev/null 2>&1 &
sleep 1
ap_mem=$(mem_of "aperture record -e lock -o $B/mem.data")
wait
perf lock record -o "$B/mem.perf" -- "$WL/lock_contend" mutex 3 >/dev/null 2>&1 &
sleep 1
pf_mem=$(mem_of "perf lock record -o $B/mem.perf")
wait
echo "recorder memory, kB (Rss Pss): aperture record -e lock $ap_mem, perf lock record $pf_mem"
