#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, user stack section: a workload built without frame pointers
# (nofp_chains: main;mode_cpu;chain_a;chain_b;leaf_spin, a frameless leaf)
# recorded by aperture (CFI unwinding in BPF), perf record -g (frame
# pointers) and perf record --call-graph dwarf, side by side:
#  1. complete chains: share of leaf_spin samples whose stack reaches main;
#  2. bytes per sample of each file;
#  3. the workload's slowdown under each (its own run time, best of 3);
#  4. BPF time per CPU sample (kernel.bpf_stats_enabled) for 10- and
#     60-frame stacks, CFI against frame pointers;
#  5. the tables: libc's rows, the kernel memory they hold, and the time to
#     make the tables of python3 and the libraries it names;
#  6. code whose rules are only in a compressed .debug_frame (a Go program,
#     nofp_zdwarf, nofp_zdebug and its debug file): how often the leaf's
#     caller is right;
#  7. more code mappings than the mirror once held (300 dlopen'ed copies of
#     a library) and a short program a shell execs (its first samples come
#     before its tables could be built): how often the chain reaches main.
# Env from scripts/bench.sh: BUILD, APERTURE, WL, B.
set -u
FREQ=999
W="$WL/nofp_chains"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

echo "== user stacks: nofp_chains (no frame pointers) at $FREQ Hz =="

# share of folded lines (weights last) ending in leaf_spin that hold the
# whole chain from main
complete_folded() {
	awk '/;leaf_spin$|;leaf_spin / { n = $NF; all += n;
		if ($0 ~ /main;mode_cpu;chain_a;chain_b;leaf_spin/) ok += n }
		END { printf "%.1f", all ? 100 * ok / all : 0 }' "$1"
}

# the same for perf script output: one block per sample, leaf first
complete_perf() {
	perf script -i "$1" -F ip,sym 2>/dev/null | awk '
		function done() { if (leaf) { all++; if (chain) ok++ } leaf = 0; chain = 0; n = 0 }
		/^$/ { done(); next }
		{ n++; s = $2; sub(/\+0x.*/, "", s)
		  if (n == 1 && s == "leaf_spin") leaf = 1
		  if (s == "main" && leaf) chain = 1 }
		END { done(); printf "%.1f", all ? 100 * ok / all : 0 }'
}

"$APERTURE" record -F $FREQ -o "$B/uw.data" -- "$W" cpu n2000 2>"$B/uw.err" >/dev/null
"$APERTURE" report -i "$B/uw.data" --format folded >"$B/uw.folded"
perf record -F $FREQ -g -o "$B/fp.data" -- "$W" cpu n2000 2>"$B/fp.err" >/dev/null
perf record -F $FREQ --call-graph dwarf -o "$B/dw.data" -- "$W" cpu n2000 \
	2>"$B/dw.err" >/dev/null
ap_s=$(awk '/samples,/ { print $2 }' "$B/uw.err")
fp_s=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$B/fp.err")
dw_s=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$B/dw.err")
printf '%-34s %10s %14s\n' "" "complete" "bytes/sample"
printf '%-34s %9s%% %14s\n' "aperture record (cfi)" "$(complete_folded "$B/uw.folded")" \
	"$(ratio "$(stat -c %s "$B/uw.data")" "$ap_s")"
printf '%-34s %9s%% %14s\n' "perf record -g" "$(complete_perf "$B/fp.data")" \
	"$(ratio "$(stat -c %s "$B/fp.data")" "$fp_s")"
printf '%-34s %9s%% %14s\n' "perf record --call-graph dwarf" "$(complete_perf "$B/dw.data")" \
	"$(ratio "$(stat -c %s "$B/dw.data")" "$dw_s")"
echo "goal: aperture at most 30 bytes/sample (stacks interned)"

# the workload's own time, best of 3; $1 names the output file
own_time() {
	out=$1
	shift
	best=
	for i in 1 2 3; do
		rm -f "$B/$out"*
		t=$(NOFP_ELAPSED=1 "$@" 2>&1 >/dev/null | awk '/^elapsed/ { print $2 }')
		[ -n "$t" ] && best=$(min "$best" "$t")
	done
	echo "$best"
}
base=$(own_time none "$W" cpu n1000)
ap=$(own_time t.data "$APERTURE" record -F $FREQ -o "$B/t.data" -- "$W" cpu n1000)
fp=$(own_time t.fp perf record -F $FREQ -g -o "$B/t.fp" -- "$W" cpu n1000)
dw=$(own_time t.dw perf record -F $FREQ --call-graph dwarf -o "$B/t.dw" -- "$W" cpu n1000)
echo "workload alone ${base} s; slowdown: aperture x$(ratio "$ap" "$base"), perf -g x$(ratio "$fp" "$base"), perf dwarf x$(ratio "$dw" "$base")"
echo "slowdown aperture/perf -g: $(ratio "$(ratio "$ap" "$base")" "$(ratio "$fp" "$base")") (goal <= 1)"

# BPF time per CPU sample, from the kernel's own accounting: the run time
# of this recorder's sampling program (the newest one loaded), read until
# it goes, over the samples it wrote (other processes' samples, which it
# drops at once, count in the time: an idle machine gives the true cost)
bpf_ns_per_sample() {	# call-graph, depth
	old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
	sysctl -q -w kernel.bpf_stats_enabled=1 2>/dev/null || { echo "-"; return; }
	"$APERTURE" record --call-graph "$1" -F $FREQ -o "$B/s.data" -- \
		"$W" deep 3 "$2" >/dev/null 2>"$B/s.err" &
	ap=$!
	last=0
	while kill -0 $ap 2>/dev/null; do
		t=$(bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
p = [x for x in json.load(sys.stdin) if x.get("name") == "ap_cpu_sample"]
print(max(p, key=lambda x: x["id"]).get("run_time_ns", 0) if p else 0)')
		[ "${t:-0}" -gt "$last" ] && last=$t
		sleep 0.2
	done
	wait $ap
	sysctl -q -w kernel.bpf_stats_enabled="$old"
	n=$(awk '/samples,/ { print $2 }' "$B/s.err")
	awk -v t="$last" -v n="${n:-0}" 'BEGIN { if (n) printf "%.0f", t / n; else print "-" }'
}
for d in 5 55; do
	c=$(bpf_ns_per_sample cfi $d)
	f=$(bpf_ns_per_sample fp $d)
	echo "BPF time per sample, $((d + 5))-frame stacks: cfi ${c} ns, fp ${f} ns"
done

# the tables
"$APERTURE" report -i "$B/uw.data" --format json | python3 -c '
import json, sys
u = json.load(sys.stdin)["header"]["unwind"]
print("tables of nofp_chains, ld.so, libc: %d rows, %.0f KiB of kernel memory, built in %.1f ms"
      % (u["rows"], u["rows"] * 8 / 1024, u["build_ns"] / 1e6))'
if command -v python3 >/dev/null; then
	"$APERTURE" record -o "$B/py.data" -- python3 -c pass >/dev/null 2>&1
	"$APERTURE" report -i "$B/py.data" --format json | python3 -c '
import json, sys
u = json.load(sys.stdin)["header"]["unwind"]
print("tables of python3 and its libraries: %d files, %d rows, built in %.1f ms"
      % (u["tables"], u["rows"], u["build_ns"] / 1e6))'
fi

# code whose rules only a compressed .debug_frame has: a Go program (its
# linker compresses DWARF, writes no .eh_frame), nofp_zdwarf (the rules in
# its own compressed .debug_frame) and nofp_zdebug (in a separate debug
# file compressed by objcopy): share of the leaf's samples whose caller
# is the right one, aperture against perf -g and perf --call-graph dwarf
echo "== user stacks from compressed .debug_frame at $FREQ Hz: caller of the leaf right =="

caller_folded() {	# folded file, leaf, caller
	awk -v leaf="$2" -v want="$3" '{ n = $NF; k = split($1, f, ";")
		if (f[k] != leaf) next; all += n; if (k > 1 && f[k - 1] == want) ok += n }
		END { printf "%.1f", all ? 100 * ok / all : 0 }' "$1"
}

caller_perf() {		# perf.data, leaf, caller
	perf script -i "$1" -F ip,sym 2>/dev/null | awk -v leaf="$2" -v want="$3" '
		function done() { if (isleaf) { all++; if (ok1) ok++ } isleaf = 0; ok1 = 0; n = 0 }
		/^$/ { done(); next }
		{ n++; s = $2; sub(/\+0x.*/, "", s)
		  if (n == 1 && s == leaf) isleaf = 1
		  if (n == 2 && isleaf && s == want) ok1 = 1 }
		END { done(); printf "%.1f", all ? 100 * ok / all : 0 }'
}

compressed_row() {	# name, leaf, caller, command...
	name=$1 leaf=$2 want=$3
	shift 3
	"$APERTURE" record -F $FREQ -o "$B/z.data" -- "$@" >/dev/null 2>&1
	"$APERTURE" report -i "$B/z.data" --format folded >"$B/z.folded"
	# (--buildid-mmap: perf 6.1 can die collecting build-ids after -g)
	perf record --buildid-mmap -F $FREQ -g -o "$B/z.fp" -- "$@" >/dev/null 2>&1
	perf record --buildid-mmap -F $FREQ --call-graph dwarf -o "$B/z.dw" -- \
		"$@" >/dev/null 2>&1
	printf '%-28s %9s%% %9s%% %12s%%\n' "$name" \
		"$(caller_folded "$B/z.folded" "$leaf" "$want")" \
		"$(caller_perf "$B/z.fp" "$leaf" "$want")" \
		"$(caller_perf "$B/z.dw" "$leaf" "$want")"
}

printf '%-28s %10s %10s %13s\n' "" "aperture" "perf -g" "perf dwarf"
if command -v go >/dev/null 2>&1 &&
	GOCACHE="$B/gocache" GOPATH="$B/gopath" GOFLAGS= GO111MODULE=off \
	go build -o "$B/frameless" tests/workloads/go/frameless.go 2>/dev/null; then
	compressed_row "Go (frameless leaf)" main.leaf main.middle \
		"$B/frameless" n20000
else
	echo "Go: no go command, or the build failed: left out"
fi
compressed_row "nofp_zdwarf (own)" leaf_spin chain_b "$WL/nofp_zdwarf" cpu n2000
compressed_row "nofp_zdebug (debug file)" leaf_spin chain_b "$WL/nofp_zdebug" cpu n2000

# 7: the leaf's samples whose chain holds main
main_folded() {		# folded file, leaf
	awk -v leaf="$2" '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		k = split(s, f, ";"); if (f[k] != leaf) next; all += n
		for (i = 1; i < k; i++) if (f[i] == "main") { ok += n; break } }
		END { printf "%.1f", all ? 100 * ok / all : 0 }' "$1"
}

main_perf() {		# perf.data, leaf
	perf script -i "$1" -F ip,sym 2>/dev/null | awk -v leaf="$2" '
		function done() { if (isleaf) { all++; if (m) ok++ } isleaf = 0; m = 0; n = 0 }
		/^$/ { done(); next }
		{ n++; s = $2; sub(/\+0x.*/, "", s)
		  if (n == 1 && s == leaf) isleaf = 1
		  if (s == "main") m = 1 }
		END { done(); printf "%.1f", all ? 100 * ok / all : 0 }'
}

main_row() {		# name, leaf, command...
	name=$1 leaf=$2
	shift 2
	APERTURE_UNWIND_CACHE=none "$APERTURE" record -F $FREQ \
		-o "$B/m.data" -- "$@" >/dev/null 2>&1
	"$APERTURE" report -i "$B/m.data" --format folded >"$B/m.folded"
	perf record --buildid-mmap -F $FREQ -g -o "$B/m.fp" -- "$@" \
		>/dev/null 2>&1
	perf record --buildid-mmap -F $FREQ --call-graph dwarf -o "$B/m.dw" -- \
		"$@" >/dev/null 2>&1
	printf '%-28s %9s%% %9s%% %12s%%\n' "$name" \
		"$(main_folded "$B/m.folded" "$leaf")" \
		"$(main_perf "$B/m.fp" "$leaf")" "$(main_perf "$B/m.dw" "$leaf")"
}

echo "== user stacks past 256 mappings and just after exec at $FREQ Hz: chain reaches main (no kept tables) =="
printf '%-28s %10s %10s %13s\n' "" "aperture" "perf -g" "perf dwarf"
mkdir -p "$B/libs"
i=0
while [ $i -lt 300 ]; do
	cp "$WL/dlopen_lib.so" "$B/libs/lib$i.so"
	i=$((i + 1))
done
main_row "300 dlopen'ed libraries" dl_inner "$WL/dlopen_many" 300 "$B/libs" 10 2000
rm -rf "$B/libs"
main_row "exec'd by sh (0.2 s run)" leaf_spin sh -c "exec '$W' cpu 0.2"
echo "goal: aperture at least perf dwarf's share on both"
