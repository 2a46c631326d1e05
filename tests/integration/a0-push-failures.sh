#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture push's exit status, what a spool acts on: 75 (try later) for
# a server that is down, too slow for --timeout, busy (429) or failing
# (503), each after --retries more tries, in bounded time; 65 (drop the
# file) for a 400 and for a file that is no recording; 0 when a server
# that restarts mid-push comes back within the retries.  One line each.
. tests/integration/lib.sh
. tests/integration/push.inc

F=tests/golden/cpu-syscall-sched.data
push() {	# push SERVER-DIR ARGS...: its status in $rc, stderr in $T/err
	timeout 120 "$APERTURE" push "$@" 2>"$T/err"
	rc=$?
	[ $rc != 124 ] || fail "push $*: not done after 120 s"
}
one_line() {
	[ "$(wc -l <"$T/err")" = 1 ] || fail "$1: not one line: $(cat "$T/err")"
}

# down: a port nothing listens on any more
receiver pyroscope "$T/gone"
kill "$RPID"
wait "$RPID" 2>/dev/null
push --to "pyroscope+http://127.0.0.1:$PORT" --retries 2 "$F"
[ $rc = 75 ] || fail "down server: exit $rc, want 75"
one_line "down server"
grep -q 'not sent: try again later' "$T/err" || fail "down: $(cat "$T/err")"
# -v says each try
push --to "pyroscope+http://127.0.0.1:$PORT" --retries 2 -v "$F"
[ "$(grep -c 'try [12]: .*again in' "$T/err")" = 2 ] ||
	fail "-v: no line per try: $(cat "$T/err")"

# slow: answers after 30 s, past --timeout 1
receiver parca "$T/slow" slow=30
push --to "parca+http://127.0.0.1:$PORT" --timeout 1 --retries 1 "$F"
[ $rc = 75 ] || fail "slow server: exit $rc, want 75"
one_line "slow server"
grep -qi 'timed\? \?out' "$T/err" || fail "slow: $(cat "$T/err")"

# 429 and 503: the server's state, the file kept; 400: refused for good
for s in 429 503 400; do
	receiver pyroscope "$T/s$s" status=$s
	push --to "pyroscope+http://127.0.0.1:$PORT" --retries 1 "$F"
	want=$([ $s = 400 ] && echo 65 || echo 75)
	[ $rc = "$want" ] || fail "HTTP $s: exit $rc, want $want"
	one_line "HTTP $s"
	grep -q "HTTP $s" "$T/err" || fail "$s: $(cat "$T/err")"
	tries=$(wc -l <"$T/s$s/refused.jsonl")
	[ "$tries" = $([ $s = 400 ] && echo 1 || echo 2) ] ||
		fail "HTTP $s: $tries tries"
done

# no recording: 65 before any request
printf 'not a recording' >"$T/bad.data"
receiver parca "$T/ok"
push --to "parca+http://127.0.0.1:$PORT" "$T/bad.data"
[ $rc = 65 ] || fail "bad file: exit $rc, want 65"
[ -s "$T/ok/got.jsonl" ] && fail "a bad file was sent"
# one bad, one good: the good one goes, the status says the bad one
push --to "parca+http://127.0.0.1:$PORT" "$T/bad.data" "$F"
[ $rc = 65 ] || fail "bad and good: exit $rc, want 65"
[ "$(got "$T/ok" 'len(g)')" = 1 ] || fail "the good file was not sent"

# a restart mid-push: the first server exits on the first request, a
# new one listens on the same port; the retries reach it
receiver pyroscope "$T/r1" die-first
P=$PORT
"$APERTURE" push --to "pyroscope+http://127.0.0.1:$P" --retries 8 "$F" \
	2>"$T/restart.err" &
push_pid=$!
wait "$RPID" 2>/dev/null	# the first server gone
receiver pyroscope "$T/r2" port=$P
wait "$push_pid"
rc=$?
[ $rc = 0 ] || fail "restart: exit $rc: $(cat "$T/restart.err")"
[ "$(got "$T/r2" '" ".join(r["series"]["__name__"] for r in g)')" = \
	"process_cpu syscall sched" ] || fail "restart: $(got "$T/r2" 'g')"
exit 0
