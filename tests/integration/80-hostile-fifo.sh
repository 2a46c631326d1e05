#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A target's mapped file replaced by a FIFO (what an unprivileged user can
# do to a library it maps) must not hang record nor report: every file
# named by a target or a record file is opened non-blocking and checked to
# be a regular file.  A FIFO given as the record file is read only when a
# recording comes into it within seconds; a silent one is refused.
. tests/integration/lib.sh
need_bpf

cp "$WL/cpu_split" "$T/victim"
"$T/victim" 60 2 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$T"' EXIT
sleep 0.3
rm -f "$T/victim"
mkfifo "$T/victim" "$T/victim (deleted)"

# timeout: the failure this guards against is a hang, not an error.  The
# file mapped is kept in a cache of the test's own (read through
# /proc/PID/map_files); report looks in another, empty, so that it meets
# the FIFOs
timeout 60 "$APERTURE" record -p "$pid" -d 2 -o "$T/f.data" \
	--buildid-dir "$T/cache" 2>"$T/rec.err"
rc=$?
[ $rc -eq 0 ] || fail "record -p (exit $rc): $(cat "$T/rec.err")"
kill "$pid"
wait "$pid"
for fmt in table folded json; do
	timeout 60 "$APERTURE" report -i "$T/f.data" --format $fmt \
		--buildid-dir "$T/none" >"$T/out.$fmt" 2>"$T/rep.err"
	rc=$?
	[ $rc -eq 0 ] || fail "report --format $fmt (exit $rc): $(cat "$T/rep.err")"
done
grep -q "not a regular file" "$T/rep.err" ||
	fail "report does not say why the FIFO was not read: $(cat "$T/rep.err")"
# the samples are there, as victim+offset
grep -q 'victim' "$T/out.folded" || fail "no frames of victim"
# the file mapped, kept while the target lived, names them
"$APERTURE" report -i "$T/f.data" --format folded --buildid-dir "$T/cache" \
	2>"$T/rep.err" | grep -q 'burn_60' ||
	fail "the mapped file was not kept: $(cat "$T/rep.err")"

# -i FIFO as perf takes it: read when a recording comes into it; a FIFO
# nothing writes to (one another user planted) is refused within seconds
mkfifo "$T/rec.fifo"
timeout 20 "$APERTURE" report -i "$T/rec.fifo" >/dev/null 2>"$T/fifo.err"
rc=$?
[ $rc -ne 124 ] || fail "report of a FIFO hangs"
[ $rc -ne 0 ] || fail "report of a silent FIFO succeeds"
grep -q "not a regular file" "$T/fifo.err" ||
	fail "report of a FIFO: $(cat "$T/fifo.err")"
cat "$T/f.data" >"$T/rec.fifo" &
timeout 20 "$APERTURE" report -i "$T/rec.fifo" --format folded \
	--buildid-dir "$T/none" >"$T/fifo.folded" 2>"$T/fifo.err" ||
	fail "report of a FIFO with a writer: $(cat "$T/fifo.err")"
wait
cmp -s "$T/fifo.folded" "$T/out.folded" ||
	fail "report of a FIFO: not the file's report"
exit 0
