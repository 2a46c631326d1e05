#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# --sort pid on the syscall view: a table per process, as syscount -P
# gives, with each process's own counts (two runs of syscall_exact under
# one shell: N reads and writes per thread, E failing reads and opens);
# --sort tid is --per-thread.  A key a shown view cannot honour is one
# error line and exit 64, not a table sorted some other way.
. tests/integration/lib.sh
need_bpf
need_cmd python3

"$APERTURE" record -e syscall,lock -o "$T/s.data" -- sh -c \
	"'$WL/syscall_exact' 1000 3 1; '$WL/syscall_exact' 2000 5 2" \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
grep -q ' 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"

"$APERTURE" report -i "$T/s.data" --events syscall --sort pid >"$T/table" ||
	fail "report --sort pid"
grep '^# Process' "$T/table"
# the shell and the two syscall_exact
[ "$(grep -c '^# Process [0-9]* ([^)]*): [0-9]* calls, ' "$T/table")" -eq 3 ] ||
	fail "not one table per process: $(grep '^# Process' "$T/table")"
"$APERTURE" report -i "$T/s.data" --events syscall --sort pid \
	--format json >"$T/json" || fail "report --sort pid --format json"
python3 - "$T/json" <<'PY' || fail "per-process counts"
import json, sys
d = json.load(open(sys.argv[1]))["syscall"]
assert d["per_process"] and not d["per_thread"], d
procs = {}
for r in d["rows"]:
    assert "tid" not in r, r
    procs.setdefault(r["pid"], {})[r["syscall"]] = (r["calls"], r["errors"])
# the two syscall_exact (the shell reads less; a row's name may be the
# shell's where it was named before the exec was seen)
got = sorted((p["read"], p["write"], p["openat"][1]) for p in procs.values()
             if p.get("read", (0, 0))[0] >= 1000)
print("per process (read, write, openat errors):", got)
# 1000 x 1 thread + 3 EBADF; 2000 x 2 threads + 5 EBADF
assert got == [((1003, 3), (1000, 0), 3), ((4005, 5), (4000, 0), 5)], got
PY
"$APERTURE" report -i "$T/s.data" --events syscall --sort tid >"$T/tid" &&
"$APERTURE" report -i "$T/s.data" --events syscall --per-thread >"$T/pt" ||
	fail "report --sort tid"
cmp -s "$T/tid" "$T/pt" || fail "--sort tid is not --per-thread"

# keys a shown view cannot honour
usage_error() {
	"$APERTURE" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	cat "$T/err"
	[ $rc -eq 64 ] || fail "'$*' exited $rc, want 64"
	[ "$(wc -l <"$T/err")" -eq 1 ] ||
		fail "'$*' printed $(wc -l <"$T/err") lines: $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "'$*' printed a report"
}
usage_error report -i "$T/s.data" --events syscall --sort sym
grep -q "the syscall view cannot sort by sym (its keys: pid, tid)" "$T/err" ||
	fail "error line"
usage_error report -i "$T/s.data" --events syscall --sort children
usage_error report -i "$T/s.data" --events syscall,lock --sort pid
grep -q "the lock view cannot sort by pid (it takes none)" "$T/err" ||
	fail "error line"
# every view the file holds is shown without --events
usage_error report -i "$T/s.data" --sort pid --format json
# no --sort: no error
"$APERTURE" report -i "$T/s.data" >/dev/null || fail "report"
exit 0
