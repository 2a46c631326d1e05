#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A CPU sample taken while a syscall's record is being built (the
# cpu-clock interrupt runs its program inside the sys_exit program, and
# walking a user stack takes microseconds) must not touch that record:
# with syscall stacks and fast sampling, the read and write counts stay
# exact.  (When all shared one buffer a CPU, tens of records a run were
# overwritten: sent as CPU samples, or as calls the program never made.)
# Paced (10000 calls a second a thread) so that the ring keeps up.
. tests/integration/lib.sh
need_bpf
need_cmd python3

N=5000
"$APERTURE" record -F 4999 -e cpu,syscall --syscall-stacks -o "$T/n.data" \
	-- "$WL/syscall_exact" $N 0 2 10000 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
grep -q ' 0 lost' "$T/rec.err" || fail "summary line: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/n.data" --events syscall --format json \
	>"$T/json" || fail "report --format json"
python3 - "$T/json" $N <<'PY' || fail "counts"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
calls = {r["syscall"]: r["calls"] for r in d["syscall"]["rows"]}
print("read %s write %s of %d each; cpu samples %d" %
      (calls.get("read"), calls.get("write"), 2 * n, d["header"]["samples"]))
assert calls.get("read") == 2 * n and calls.get("write") == 2 * n, calls
# what a statically linked program starting two threads may call besides
known = {"read", "write", "clock_nanosleep", "openat", "execve", "brk",
         "arch_prctl", "set_tid_address", "set_robust_list", "rseq",
         "prlimit64", "readlinkat", "readlink", "mprotect", "mmap", "munmap",
         "rt_sigaction", "rt_sigprocmask", "clone", "clone3", "futex", "exit",
         "exit_group", "getrandom", "uname", "newfstatat", "madvise",
         "sched_getaffinity", "gettid", "getpid", "tgkill", "sched_yield"}
assert set(calls) <= known, set(calls) - known
assert d["header"]["samples"] > 0
PY
exit 0
