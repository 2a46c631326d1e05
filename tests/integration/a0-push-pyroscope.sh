#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture push to Pyroscope, against a receiver that enforces its
# /ingest rules as its source states them (tests/integration/
# push_receiver.py): a form with the profile and a sample_type_config
# that names every type, one profile per view, each series' __name__ as
# Pyroscope derives it (cpu: process_cpu; off-CPU time: sched, never
# process_cpu), string labels only.  Counts: the calls the workload made
# (N reads and writes, E failing reads), and each view's totals equal to
# report's own pprof of the file.
. tests/integration/lib.sh
. tests/integration/push.inc
need_bpf

N=3000
E=7
"$APERTURE" record -e cpu,syscall -o "$T/sc.data" -- "$WL/syscall_exact" $N $E \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
receiver pyroscope "$T/py"
"$APERTURE" push --to "pyroscope+http://127.0.0.1:$PORT" --label env=test \
	"$T/sc.data" 2>"$T/push.err" || fail "push: $?: $(cat "$T/push.err")"
[ -s "$T/py/refused.jsonl" ] && fail "refused: $(cat "$T/py/refused.jsonl")"
[ "$(got "$T/py" 'len(g)')" = 2 ] || fail "not 2 requests (cpu, syscall)"
[ "$(got "$T/py" '" ".join(r["series"]["__name__"] for r in g)')" = \
	"process_cpu syscall" ] || fail "names: $(got "$T/py" '[r["series"] for r in g]')"
# the workload's calls, per syscall (leaf sys_NAME)
reads=$(got "$T/py" 'g[1]["totals"]["syscall_calls"]["leaves"].get("sys_read", 0)')
writes=$(got "$T/py" 'g[1]["totals"]["syscall_calls"]["leaves"].get("sys_write", 0)')
[ "$reads" = $((N + E)) ] || fail "reads $reads, the workload made $((N + E))"
[ "$writes" = $N ] || fail "writes $writes, the workload made $N"
# every view's totals: the report's
for i in 0 1; do
	v=$(got "$T/py" "['cpu', 'syscall'][$i]")
	want=$(report_totals "$T/sc.data" "$v")
	have=$(got "$T/py" "json.dumps({k: v['total'] for k, v in sorted(g[$i]['totals'].items())})")
	[ "$have" = "$want" ] || fail "$v: pushed $have, report $want"
done
# labels: the series' host, service and --label; the samples' strings
host=$(uname -n)
[ "$(got "$T/py" 'g[0]["series"].get("host")')" = "$host" ] || fail "host"
[ "$(got "$T/py" 'g[0]["series"].get("service")')" = syscall_exact ] &&
	[ "$(got "$T/py" 'g[0]["series"].get("service_name")')" = syscall_exact ] ||
	fail "service: $(got "$T/py" 'g[0]["series"]')"
[ "$(got "$T/py" 'g[0]["series"].get("env")')" = test ] || fail "--label"
[ "$(got "$T/py" 'set(g[0]["sample_labels"]) >= {"pid", "tid", "comm"} and sum(r["numeric_labels"] for r in g)')" = 0 ] ||
	fail "sample labels: $(got "$T/py" '[r["sample_labels"] for r in g]')"
# the config names each type of the profile; the window in UNIX seconds
[ "$(got "$T/py" 'all(set(r["config"]) == set(r["totals"]) for r in g)')" = True ] ||
	fail "sample_type_config: $(got "$T/py" '[r["config"] for r in g]')"
now=$(date +%s)
got "$T/py" 'g[0]["from"], g[0]["until"]' | tr -d '(),'"'" >"$T/win"
read -r from until <"$T/win"
[ "$from" -le "$until" ] && [ "$until" -le $((now + 1)) ] &&
	[ "$from" -ge $((now - 600)) ] || fail "from $from until $until, now $now"

# a stored recording with the sched view: off-CPU time is its own series
receiver pyroscope "$T/py2"
"$APERTURE" push --to "pyroscope+http://127.0.0.1:$PORT" --name my.app \
	tests/golden/cpu-syscall-sched.data 2>"$T/push.err" ||
	fail "push golden: $(cat "$T/push.err")"
[ "$(got "$T/py2" '" ".join(r["series"]["__name__"] for r in g)')" = \
	"process_cpu syscall sched" ] || fail "names: $(got "$T/py2" '[r["series"] for r in g]')"
[ "$(got "$T/py2" 'g[2]["profile_types"]')" = \
	"['sched:off_cpu:nanoseconds::', 'sched:switches:count::']" ] ||
	fail "sched types: $(got "$T/py2" 'g[2]["profile_types"]')"
want=$(report_totals tests/golden/cpu-syscall-sched.data sched)
have=$(got "$T/py2" "json.dumps({k: v['total'] for k, v in sorted(g[2]['totals'].items())})")
[ "$have" = "$want" ] || fail "sched: pushed $have, report $want"
[ "$(got "$T/py2" 'g[0]["series"]["service_name"]')" = my.app ] ||
	fail "--name: $(got "$T/py2" 'g[0]["series"]')"
exit 0
