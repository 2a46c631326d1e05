#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The recorder's memory is mostly its BPF maps mapped into it: the ring
# buffer, whose data pages the kernel maps twice (RSS counts them twice),
# and the unwinder's rows map, every page of which the kernel maps at
# mmap.  The ring of a command's recording is sized by the CPUs (1 MiB
# each, 8 to 16 MiB; system-wide 16 MiB; -m as perf's), the rows map
# mapped only where a table is written: while
# record -e lock runs, the BPF maps take at most twice the ring and 1 MiB
# of our RSS (it was 48 MiB: a 16 MiB ring twice and 16 MiB of rows).
# The zero-loss bursts under the default rings are tests 39 and 87.
. tests/integration/lib.sh
need_bpf

"$APERTURE" record -m 3M -o "$T/x.data" -- true >/dev/null 2>"$T/m.err" &&
	fail "-m 3M (not a power of two) accepted"
grep -q "bad --mmap-pages '3M'" "$T/m.err" || fail "-m 3M: $(cat "$T/m.err")"
"$APERTURE" record -m 64K -o "$T/x.data" -- true >/dev/null 2>"$T/m.err" ||
	fail "-m 64K: $(cat "$T/m.err")"

ring=8192
while [ $ring -lt $(($(nproc) * 1024)) ] && [ $ring -lt 16384 ]; do
	ring=$((ring * 2))
done

# kB of RSS in the process's BPF map mappings, and in all
maps_kb() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { bpf = ($6 ~ /^anon_inode:bpf-map/) }
	     $1 == "Rss:" { all += $2; if (bpf) m += $2 }
	     END { print m + 0, all + 0 }' "/proc/$1/smaps" 2>/dev/null
}

"$APERTURE" record -e lock -o "$T/l.data" -- "$WL/lock_contend" mutex 2 \
	>/dev/null 2>"$T/rec.err" &
rec=$!
max=0
all=0
# sample until the recorder is gone, once its command runs
while kill -0 $rec 2>/dev/null; do
	if pgrep -P $rec >/dev/null; then
		set -- $(maps_kb $rec)
		[ "${1:-0}" -gt $max ] && max=$1 && all=$2
	fi
	sleep 0.1
done
wait $rec || fail "record: $(cat "$T/rec.err")"
cat "$T/rec.err"
grep -q ' 0 lost' "$T/rec.err" || fail "events lost: $(cat "$T/rec.err")"
echo "ring ${ring} kB: BPF maps ${max} kB of RSS, the recorder ${all} kB"
[ $max -gt 0 ] || fail "no sample of the recorder's memory"
[ $max -le $((2 * ring + 1024)) ] ||
	fail "BPF maps take ${max} kB of RSS, over twice the ${ring} kB ring and 1 MiB"
exit 0
