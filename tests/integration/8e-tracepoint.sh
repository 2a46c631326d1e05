#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Tracepoints as events (-e CAT:NAME): tp_open opens a file exactly N times
# from open_many(), the C library and the loader a few more times.  The
# count of syscalls:sys_enter_openat is strace's and perf stat's for the
# same run, every one of the N has open_many on its stack, --filter keeps
# them alone; sched:sched_process_exec counts the commands sh runs;
# aperture list prints what tracefs has; a bad name or filter is one line.
. tests/integration/lib.sh
need_bpf
TFS=/sys/kernel/tracing
[ -d $TFS/events/syscalls ] || TFS=/sys/kernel/debug/tracing
[ -d $TFS/events/syscalls/sys_enter_openat ] ||
	skip "no syscalls:sys_enter_openat in tracefs"

# aperture list: a glob, against tracefs's own directories
"$APERTURE" list 'syscalls:sys_enter_open*' >"$T/list" ||
	fail "list: $(cat "$T/list")"
sed -n 's/^  //p' "$T/list" >"$T/listed"
(cd $TFS/events/syscalls && for d in sys_enter_open*; do
	[ -d "$d" ] && echo "syscalls:$d"; done) | sort >"$T/want"
cmp -s "$T/listed" "$T/want" ||
	fail "list 'syscalls:sys_enter_open*': $(cat "$T/list") want $(cat "$T/want")"
grep -qx 'syscalls:sys_enter_openat' "$T/listed" || fail "no openat listed"
"$APERTURE" list tracepoint | grep -qx '  sched:sched_switch' ||
	fail "list tracepoint lacks sched:sched_switch"
"$APERTURE" list 'nosuchcat:*' >/dev/null 2>"$T/err" &&
	fail "a glob that matches nothing listed something"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "no match: $(cat "$T/err")"

# bad names and filters: one line, a usage error
for bad in "-e nosuch:tracepoint" "-e tracepoint" \
	"-e syscalls:sys_enter_openat --filter nosuchfield==1" \
	"-e syscalls:sys_enter_openat --filter flags~x" \
	"--filter flags==1 -e syscalls:sys_enter_openat"; do
	# shellcheck disable=SC2086
	"$APERTURE" record $bad -o "$T/bad.data" -- true >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 64 ] || fail "record $bad: exit $rc, $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "record $bad: $(cat "$T/err")"
	[ -e "$T/bad.data" ] && fail "record $bad made a file"
done
"$APERTURE" record -e nosuch:tracepoint -- true 2>&1 |
	grep -q "^aperture record: unknown tracepoint 'nosuch:tracepoint'" ||
	fail "unknown tracepoint message"

N=25
F="$T/target"
echo hello >"$F"
"$APERTURE" record -e syscalls:sys_enter_openat -o "$T/o.data" -- \
	"$WL/tp_open" $N "$F" >"$T/out" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
grep -q ' 0 lost' "$T/rec.err" || fail "summary: $(cat "$T/rec.err")"
"$APERTURE" script -i "$T/o.data" >"$T/script" || fail "script"
got=$(grep -c '^tp_open .* 1 syscalls:sys_enter_openat: ' "$T/script")
# the same run under strace and perf stat: tp_open's opens do not vary
if command -v strace >/dev/null 2>&1; then
	want=$(strace -f -c -e trace=openat "$WL/tp_open" $N "$F" 2>&1 |
		awk '$NF == "openat" { print $4 }')
	[ "$got" = "$want" ] || fail "openat: $got events, strace counts $want"
fi
if perf stat -e syscalls:sys_enter_openat true >/dev/null 2>&1; then
	want=$(perf stat -x, -e syscalls:sys_enter_openat \
		"$WL/tp_open" $N "$F" 2>&1 >/dev/null |
		awk -F, '$3 == "syscalls:sys_enter_openat" { print $1 }')
	[ "$got" = "$want" ] || fail "openat: $got events, perf stat counts $want"
fi
[ "$got" -gt $N ] || fail "openat: $got events, fewer than the $N of open_many"
# perf script's fields, in every event: the path pointer, the flags
fields=$(grep -c ' 1 syscalls:sys_enter_openat: __syscall_nr=[0-9]* dfd=0xffffff9c filename=0x[0-9a-f]* flags=0x[0-9a-f]* mode=0x[0-9a-f]*$' \
	"$T/script")
[ "$fields" = "$got" ] || fail "script fields in $fields of $got: $(grep openat "$T/script")"

# report: the count, and stacks through open_many
"$APERTURE" report -i "$T/o.data" >"$T/report" || fail "report"
cat "$T/report"
awk '!/^#/ && $NF == "syscalls:sys_enter_openat" { print $1 }' "$T/report" \
	>"$T/count"
[ "$(cat "$T/count")" = "$got" ] || fail "report count $(cat "$T/count"), script $got"
"$APERTURE" report -i "$T/o.data" --format folded >"$T/folded" ||
	fail "folded"
hits=$(awk '/^tp_open;syscalls:sys_enter_openat;.*;open_many;/ { n += $NF }
	END { print n + 0 }' "$T/folded")
[ "$hits" -eq $N ] || fail "stacks through open_many: $hits, want $N: $(cat "$T/folded")"
"$APERTURE" report -i "$T/o.data" --format json >"$T/json" || fail "json"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
tp = j["tracepoint"]["tracepoints"][0]
assert tp["name"] == "syscalls:sys_enter_openat", tp["name"]
assert tp["count"] == int(sys.argv[2]), tp["count"]
assert any(f["sym"] == "open_many" for s in tp["stacks"] for f in s["frames"])
' "$T/json" "$got" || fail "json: $(cat "$T/json")"

# --filter: open_many's O_NOCTTY (0x100) alone
"$APERTURE" record -q -e syscalls:sys_enter_openat --filter 'flags & 0x100' \
	-o "$T/f.data" -- "$WL/tp_open" $N "$F" 2>"$T/rec.err" ||
	fail "record --filter: $(cat "$T/rec.err")"
"$APERTURE" script -i "$T/f.data" -F comm,event >"$T/fscript" || fail "script"
[ "$(grep -c 'syscalls:sys_enter_openat' "$T/fscript")" -eq $N ] ||
	fail "--filter: $(cat "$T/fscript")"
"$APERTURE" report -i "$T/f.data" | grep -q "(--filter 'flags & 0x100')" ||
	fail "report does not say the filter"

# sched:sched_process_exec: sh and the commands it runs
"$APERTURE" record -q -e sched:sched_process_exec -o "$T/e.data" -- \
	sh -c '/bin/true; /bin/true; /bin/echo x >/dev/null; /bin/true' \
	2>"$T/rec.err" || fail "record exec: $(cat "$T/rec.err")"
"$APERTURE" script -i "$T/e.data" -F comm,event,trace >"$T/escript" ||
	fail "script exec"
cat "$T/escript"
[ "$(grep -c 'sched:sched_process_exec: filename=/bin/true ' "$T/escript")" -eq 3 ] ||
	fail "exec of /bin/true: $(cat "$T/escript")"
[ "$(grep -c 'sched:sched_process_exec: filename=' "$T/escript")" -eq 5 ] ||
	fail "execs: $(cat "$T/escript")"
grep -q '^ *echo sched:sched_process_exec: filename=/bin/echo pid=[0-9]* old_pid=[0-9]*$' \
	"$T/escript" || fail "echo's exec: $(cat "$T/escript")"
exit 0
