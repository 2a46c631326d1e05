#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The recorder forgets processes that exited: their mappings at the exit,
# their entry once over a thousand exits later.  Its peak RSS for 2,500
# short processes is within 16 MB of that for 250 (it grew by 88 KB a
# process: 440 MB more for 5,000).  Memory, not time, is measured.
. tests/integration/lib.sh
need_bpf
need_cmd python3

# peak RSS in KB of the command (aperture; the workload is far smaller)
peak_rss() {
	python3 - "$@" <<'PY'
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)
if r.returncode:
    sys.stderr.write(r.stderr.decode(errors='replace'))
    sys.exit(1)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

# under ASan (make SANITIZE=1 check), what is freed waits in its
# quarantine (256 MB) before it is used again: none, so that peak RSS
# says what the recorder holds (other builds ignore the variable)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
run() {
	peak_rss "$APERTURE" record -o "$T/r$1.data" -- sh -c \
		"n=0; while [ \$n -lt $1 ]; do /bin/true; n=\$((n + 1)); done" ||
		fail "record of $1 processes"
}

small=$(run 250) || exit 1
big=$(run 2500) || exit 1
echo "peak RSS: 250 processes $small KB, 2500 processes $big KB"
[ $((big - small)) -lt 16384 ] ||
	fail "RSS grew by $((big - small)) KB for 2,250 more processes"

# and report reads it (it crashed on a recording of 5,000 processes: the
# parent of a child was looked up before the process table moved)
"$APERTURE" report -i "$T/r2500.data" --sort comm >"$T/rep" 2>"$T/rep.err" ||
	fail "report: $(cat "$T/rep.err")"
grep -q ' true *$' "$T/rep" || fail "no samples of true: $(cat "$T/rep")"
exit 0
