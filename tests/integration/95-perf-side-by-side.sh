#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A profiler must not break the one next to it: perf record and perf
# report work while aperture record -a runs.  aperture's mapping events
# used to ask the kernel for build-ids (perf_event_attr.build_id), which
# the kernel does for every event once one asks: perf 6.1's MMAP2
# records then came with a build-id flag it had not asked for, and it
# aborted ("assertion failed at util/build-id.c").  The build-ids now
# come from the files (tests 70-export-pprof and 74-maps-mntns check
# them).
. tests/integration/lib.sh
need_bpf
need_cmd perf

# the premise: perf works here without aperture (another program that
# asks for build-ids, an older aperture, breaks it the same way)
perf record -g -o "$T/base.data" -- "$WL/syscall_exact" 1000 >"$T/base.out" 2>&1 ||
	skip "perf record fails without aperture: $(tail -2 "$T/base.out")"

"$APERTURE" record -q -a -o "$T/a.data" 2>"$T/a.err" &
rec=$!
trap 'kill $rec 2>/dev/null; rm -rf "$T"' EXIT
# the file is created once the sensors and the mapping events are on
i=0
until [ -s "$T/a.data" ]; do
	kill -0 $rec 2>/dev/null || fail "record: $(cat "$T/a.err")"
	[ $i -lt 600 ] || fail "record has not started in 60 s"
	sleep 0.1
	i=$((i + 1))
done

perf record -g -o "$T/p.data" -- "$WL/syscall_exact" 1000 >"$T/p.out" 2>&1 ||
	fail "perf record next to aperture: $(tail -3 "$T/p.out")"
perf report -i "$T/p.data" --stdio >"$T/p.rep" 2>&1 ||
	fail "perf report next to aperture: $(tail -3 "$T/p.rep")"
grep -q "assertion failed" "$T/p.out" "$T/p.rep" &&
	fail "perf: $(grep -h "assertion failed" "$T/p.out" "$T/p.rep" | head -1)"

kill -INT $rec
wait $rec || fail "record: $(cat "$T/a.err")"
"$APERTURE" report -i "$T/a.data" >"$T/a.rep" 2>"$T/a.rep.err" ||
	fail "report of the recording: $(cat "$T/a.rep.err")"
exit 0
