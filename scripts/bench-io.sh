#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench section: I/O and IPC bytes (-e io) against bpftrace and strace on
# the same run of io_pair (a parent pushing bytes through a pipe and a
# loopback TCP connection to its child).  Env from scripts/bench.sh:
# BUILD, APERTURE, WL, B.  Ratios, not absolute times.
set -u
PIPE_BYTES=${IO_PIPE_BYTES:-134217728}	# 128 MiB: 32768 writes of 4 KiB
SOCK_BYTES=${IO_SOCK_BYTES:-33554432}	# 32 MiB
RUNS=3

io_best_of() {
	n=$1
	shift
	best=
	i=0
	while [ "$i" -lt "$n" ]; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		best=$(awk -v a="${best:-1e9}" -v s="$s" -v e="$e" \
			'BEGIN { t = e - s; print (t < a) ? t : a }')
		i=$((i + 1))
	done
	echo "$best"
}
io_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "== io: $WL/io_pair $PIPE_BYTES $SOCK_BYTES (best of $RUNS) =="
base=$(io_best_of $RUNS "$WL/io_pair" $PIPE_BYTES $SOCK_BYTES)
ap=$(io_best_of $RUNS "$APERTURE" record -e io -o "$B/io.data" -- \
	"$WL/io_pair" $PIPE_BYTES $SOCK_BYTES)
echo "workload alone            ${base}s"
echo "under aperture record -e io ${ap}s  slowdown x$(io_ratio "$ap" "$base")"

BT='tracepoint:syscalls:sys_exit_read,tracepoint:syscalls:sys_exit_write,
tracepoint:syscalls:sys_exit_sendto,tracepoint:syscalls:sys_exit_recvfrom
/comm == "io_pair" && args->ret > 0/ { @bytes[comm, probe] = sum(args->ret); }'
if command -v bpftrace >/dev/null 2>&1; then
	bt=$(io_best_of $RUNS bpftrace -e "$BT" -c \
		"$WL/io_pair $PIPE_BYTES $SOCK_BYTES")
	echo "under bpftrace (sum only) ${bt}s  slowdown x$(io_ratio "$bt" "$base")"
	echo "aperture / bpftrace wall time: x$(io_ratio "$ap" "$bt") (aperture keeps every call and resolves each fd; bpftrace only sums)"
else
	echo "bpftrace: not installed, skipped"
fi
if command -v strace >/dev/null 2>&1; then
	st=$(io_best_of $RUNS strace -f -c -e trace=read,write,sendto,recvfrom \
		-o "$B/strace.out" "$WL/io_pair" $PIPE_BYTES $SOCK_BYTES)
	echo "under strace -f -c        ${st}s  slowdown x$(io_ratio "$st" "$base")"
	echo "strace / aperture wall time: x$(io_ratio "$st" "$ap")"
else
	echo "strace: not installed, skipped"
fi

# exactness and cost per event of the last aperture run
"$APERTURE" report -i "$B/io.data" --events io --format json >"$B/io.json" 2>/dev/null
pairs=$(grep -c '"written"' "$B/io.json")
calls=$(grep -o '"calls": [0-9]*' "$B/io.json" | head -1 | awk '{ print $2 }')
bytes=$(stat -c %s "$B/io.data")
pipe_ok=$(grep -c "\"written\": $PIPE_BYTES, \"read\": $PIPE_BYTES" "$B/io.json")
sock_ok=$(grep -c "\"written\": $SOCK_BYTES, \"read\": $SOCK_BYTES" "$B/io.json")
echo "aperture.data: $bytes bytes for $calls calls: $(io_ratio "$bytes" "$calls") bytes/call"
echo "pairs found: $pairs; exact pipe pair: $pipe_ok, exact tcp pair: $sock_ok (want 1 and 1)"
