#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -e with perf's CPU sampling events, and aperture list.
# offcpu_sleep nN sleeps N times in sleepy_wait, one context switch each:
# -e context-switches -c 1 samples every one (N in sleepy_wait), :k keeps
# them (a switch is in kernel mode), :u none.  -e page-faults samples
# mem_touch's faults, most in touch().  cycles and instructions work or
# fall back to cpu-clock with one line, as aperture list says.
. tests/integration/lib.sh
need_bpf
need_cmd python3

N=40
in_sleepy() {	# FILE -> samples with sleepy_wait on their stack
	"$APERTURE" report -i "$1" --sort sym --symbols sleepy_wait --format json |
		python3 -c '
import json, sys
rows = json.load(sys.stdin)["cpu"]["rows"]
print(int(sum(r["children_samples"] for r in rows)))'
}
"$APERTURE" record -e context-switches -c 1 -o "$T/cs.data" -- \
	"$WL/offcpu_sleep" n$N >"$T/out" 2>"$T/err" || fail "record -e context-switches: $(cat "$T/err")"
"$APERTURE" report -i "$T/cs.data" >"$T/cs" || fail "report"
grep -q '^# sensor  : cpu from context-switches, every 1$' "$T/cs" ||
	fail "sensor line: $(grep sensor "$T/cs")"
n=$(in_sleepy "$T/cs.data")
echo "context-switches: $n in sleepy_wait for $N sleeps"
[ "$n" -ge $N ] && [ "$n" -le $((N + N / 10)) ] ||
	fail "-e context-switches -c 1: $n samples in sleepy_wait, want $N"
"$APERTURE" record -q -e cs:k -c 1 -o "$T/k.data" -- "$WL/offcpu_sleep" n$N \
	>/dev/null 2>"$T/err" || fail "record -e cs:k: $(cat "$T/err")"
n=$(in_sleepy "$T/k.data")
[ "$n" -ge $N ] || fail "-e cs:k: $n samples in sleepy_wait, want $N"
"$APERTURE" report -i "$T/k.data" | grep -q '^# sensor  : cpu from context-switches:k, every 1$' ||
	fail "cs:k sensor line"
"$APERTURE" record -q -e cs:u -c 1 -o "$T/u.data" -- "$WL/offcpu_sleep" n$N \
	>/dev/null 2>"$T/err" || fail "record -e cs:u: $(cat "$T/err")"
n=$(in_sleepy "$T/u.data")
[ "$n" -eq 0 ] || fail "-e cs:u: $n samples, a switch is never in user mode"

# page faults: far more samples than a timer would take, most in touch()
"$APERTURE" record -q -e page-faults -c 1 -o "$T/pf.data" -- "$WL/mem_touch" 2 \
	>/dev/null 2>"$T/err" || fail "record -e page-faults: $(cat "$T/err")"
"$APERTURE" report -i "$T/pf.data" --sort sym --format json >"$T/pf.json" ||
	fail "report page-faults"
python3 - "$T/pf.json" <<'PY' || fail "page-fault samples"
import json, sys
d = json.load(open(sys.argv[1]))
cpu = d["cpu"]
touch = sum(r["children_samples"] for r in cpu["rows"] if r["sym"] == "touch")
src = [s["source"] for s in d["header"]["sensors"] if s["name"] == "cpu"]
print("page-faults: %d samples, %d in touch, source %s" % (cpu["samples"], touch, src))
assert src == ["page-faults, every 1"], src
# 2 passes of 19456 faults; throttling may drop some, never add
assert 1000 <= cpu["samples"] <= 2 * 19456 + 5000, cpu["samples"]
assert touch >= 0.8 * cpu["samples"], (touch, cpu["samples"])
PY

# aperture list: one line per event, available or why not
"$APERTURE" list >"$T/list" 2>"$T/err" || fail "aperture list: $(cat "$T/err")"
cat "$T/list"
for e in cycles instructions cpu-clock page-faults context-switches; do
	grep -Eq "^  $e( \| [a-z-]+)? +(available: |unavailable: .+)" "$T/list" ||
		fail "list: no line for $e"
done
for s in cpu syscall lock sched io mem gpu; do
	grep -Eq "^  $s +(available|unavailable): " "$T/list" || fail "list: no sensor $s"
done
grep -Eq '^  cpu-clock +available: ' "$T/list" || fail "list: cpu-clock unavailable"
grep -Eq '^  syscall +available: ' "$T/list" || fail "list: syscall unavailable"

# cycles: what list says, record does; without a PMU one line says so
"$APERTURE" record -e cycles -o "$T/cy.data" -- "$WL/cpu_split" 0.3 \
	>/dev/null 2>"$T/err" || fail "record -e cycles: $(cat "$T/err")"
"$APERTURE" report -i "$T/cy.data" >"$T/cy" || fail "report cycles"
if grep -Eq '^  cycles \| cpu-cycles +available' "$T/list"; then
	grep -q '^# sensor  : cpu from cycles$' "$T/cy" || fail "cycles: $(grep sensor "$T/cy")"
else
	grep -q 'cpu: cycles unavailable (perf_event_open: .*): sampling cpu-clock instead' "$T/err" ||
		fail "no fallback line: $(cat "$T/err")"
	grep -q '^# sensor  : cpu from cpu-clock$' "$T/cy" || fail "fallback: $(grep sensor "$T/cy")"
fi
grep -q 'burn_60' "$T/cy" || fail "-e cycles: no samples of burn_60"

"$APERTURE" record -e cycles,page-faults -- true 2>"$T/err" && fail "two sampling events accepted"
grep -q "'page-faults': one CPU sampling event at a time" "$T/err" || fail "two events: $(cat "$T/err")"
"$APERTURE" record -e cpu-clock:x -- true 2>"$T/err" && fail "cpu-clock:x accepted"
grep -q "unknown event 'cpu-clock:x'" "$T/err" || fail "cpu-clock:x: $(cat "$T/err")"
exit 0
