#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture push to Parca's WriteRaw gateway, against a receiver that
# enforces Parca's rules as its source states them (tests/integration/
# push_receiver.py: __name__ required, label names, no name twice, the
# pprof validator, every profile type a PromQL name): one series, a
# profile per view with that view's period type, each view's totals
# equal to report's own pprof of the file; and the labels push refuses
# before sending (names both servers take, no sample label's name, no
# name twice, values Pyroscope's syntax can hold).
. tests/integration/lib.sh
. tests/integration/push.inc

receiver parca "$T/pa"
for f in cpu-syscall-sched cpu-lock-io; do
	"$APERTURE" push --to "parca+http://127.0.0.1:$PORT" \
		--label env=prod --label region=eu_1 "tests/golden/$f.data" \
		2>"$T/push.err" || fail "push $f: $?: $(cat "$T/push.err")"
done
[ -s "$T/pa/refused.jsonl" ] && fail "refused: $(cat "$T/pa/refused.jsonl")"
[ "$(got "$T/pa" '(len(g), [r["name"] for r in g])')" = \
	"(2, ['aperture', 'aperture'])" ] || fail "requests: $(got "$T/pa" 'g')"
[ "$(got "$T/pa" 'sorted(g[0]["labels"].items())')" = \
	"[('env', 'prod'), ('host', 'vm'), ('region', 'eu_1'), ('service', 'offcpu_sleep')]" ] ||
	fail "labels: $(got "$T/pa" 'g[0]["labels"]')"
[ "$(got "$T/pa" '[p["profile_types"][0] for p in g[0]["profiles"]]')" = \
	"['aperture:samples:count:cpu:nanoseconds:delta', 'aperture:syscall:nanoseconds:::delta', 'aperture:off_cpu:nanoseconds:::delta']" ] ||
	fail "profile types: $(got "$T/pa" '[p["profile_types"] for p in g[0]["profiles"]]')"
for spec in "0 0 cpu" "0 1 syscall" "0 2 sched" "1 0 cpu" "1 1 lock" "1 2 io"; do
	set -- $spec
	f=$([ "$1" = 0 ] && echo cpu-syscall-sched || echo cpu-lock-io)
	want=$(report_totals "tests/golden/$f.data" "$3")
	have=$(got "$T/pa" "json.dumps({k: v['total'] for k, v in sorted(g[$1]['profiles'][$2]['totals'].items())})")
	[ "$have" = "$want" ] || fail "$f $3: pushed $have, report $want"
done
[ "$(got "$T/pa" '(sorted({n for r in g for p in r["profiles"] for n in p["sample_labels"]}), sum(p["numeric_labels"] for r in g for p in r["profiles"]))')" = \
	"(['comm', 'pid', 'tid'], 0)" ] || fail "sample labels: $(got "$T/pa" 'g[0]["profiles"][0]["sample_labels"]')"

# labels refused before anything is sent: exit 64, one line
for l in bad-name=x 9lives=x __name__=x comm=x env= 'env=a,b' 'env=a}' \
	'env= x' noequals; do
	"$APERTURE" push --to "parca+http://127.0.0.1:$PORT" --label "$l" \
		tests/golden/cpu-lock-io.data 2>"$T/err"
	rc=$?
	[ $rc = 64 ] || fail "--label '$l': exit $rc, want 64"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "--label '$l': $(cat "$T/err")"
done
"$APERTURE" push --to "parca+http://127.0.0.1:$PORT" --label a=1 --label a=2 \
	tests/golden/cpu-lock-io.data 2>/dev/null
[ $? = 64 ] || fail "a label twice was taken"
for to in "http://127.0.0.1:$PORT" "parca+ftp://h" "parca+http://h/path" \
	"parca+http://u@h"; do
	"$APERTURE" push --to "$to" tests/golden/cpu-lock-io.data 2>/dev/null
	[ $? = 64 ] || fail "--to $to taken"
done
[ "$(got "$T/pa" 'len(g)')" = 2 ] || fail "a refused label was sent"
exit 0
