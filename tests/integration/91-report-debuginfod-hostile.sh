#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# debuginfod servers that misbehave cannot hold report: a stalled server,
# one that drips its answer, a redirect loop, an endless answer and an
# answer of another build-id, each in turn the only server for a
# recording of three binaries gone since (three build-ids to ask for).
# --debuginfod-time and --debuginfod-size bound the whole report: the
# lookup that runs out is stopped, the build-ids after it are not asked,
# each is asked once (no retries: the server's own request log), a line
# says report waits, nothing partial is left in the client's cache, and
# a wrong answer is named as that, not as "not on the servers".
. tests/integration/lib.sh
need_bpf
need_cmd python3

mkdir "$T/bin"
cp "$WL/srcline_hot" "$T/bin/a"
cp "$WL/cpu_split" "$T/bin/b"
cp "$WL/inline_hot" "$T/bin/c"
bid() {
	readelf -n "$1" | awk '/Build ID/ { print $3 }'
}
# the wrong answer: a binary of none of them
bida=$(bid "$T/bin/a") bidw=$(bid "$WL/futex_loop")
[ -n "$bida" ] && [ -n "$bidw" ] || fail "workloads without build-ids"
"$APERTURE" record -F 999 --no-buildid-cache -o "$T/gone.data" -- \
	sh -c "'$T/bin/a' && '$T/bin/b' 0.3 && '$T/bin/c' 0.3" \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
rm -rf "$T/bin"
# reports look in an empty build-id cache: the default one may hold these
# workloads from other tests, and then the executables are not asked for
mkdir "$T/nocache"

# one server, its behaviour the first part of the path; each request
# logged as MODE PATH
cat >"$T/srv.py" <<'PY'
import http.server, socketserver, sys, time
log = open(sys.argv[1], "a", buffering=1)
answer = open(sys.argv[3], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    def log_message(self, *a):
        pass
    def do_GET(self):
        mode = self.path.split("/")[1]
        log.write("%s %s\n" % (mode, self.path))
        try:
            if mode == "stall":
                time.sleep(3600)
            elif mode == "drip":
                self.send_response(200)
                self.send_header("Content-Length", "10000000")
                self.end_headers()
                while True:
                    self.wfile.write(b"\0")
                    self.wfile.flush()
                    time.sleep(0.2)
            elif mode == "loop":
                self.send_response(302)
                self.send_header("Location", self.path)
                self.end_headers()
            elif mode == "endless":
                self.send_response(200)
                self.end_headers()
                while True:
                    self.wfile.write(b"\0" * 65536)
            elif mode == "wrong":
                self.send_response(200)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
        except (BrokenPipeError, ConnectionResetError):
            pass
class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 256
s = S(("127.0.0.1", 0), H)
open(sys.argv[2] + ".tmp", "w").write(str(s.server_address[1]))
import os
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
s.serve_forever()
PY
python3 "$T/srv.py" "$T/req.log" "$T/port" "$WL/futex_loop" 2>"$T/srv.err" &
srv=$!
trap 'kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
i=0
while [ ! -s "$T/port" ] && [ $i -lt 200 ] && kill -0 "$srv" 2>/dev/null; do
	sleep 0.05
	i=$((i + 1))
done
[ -s "$T/port" ] || fail "the server did not start: $(cat "$T/srv.err")"
port=$(cat "$T/port")

# report against MODE's server: out in $T/MODE.out, .err; -v's counts
# "asked not-asked" in $asked $not
ask() {
	mode=$1
	shift
	env -u DEBUGINFOD_RETRY_LIMIT -u DEBUGINFOD_MAXTIME \
		-u DEBUGINFOD_MAXSIZE \
		DEBUGINFOD_URLS=http://127.0.0.1:$port/$mode \
		DEBUGINFOD_CACHE_PATH=$T/cache.$mode \
		"$APERTURE" report -v -i "$T/gone.data" --buildid-dir="$T/nocache" --no-children \
		--sort dso,sym "$@" >"$T/$mode.out" 2>"$T/$mode.err" ||
		fail "report ($mode): $(cat "$T/$mode.err")"
	set -- $(sed -n 's/.*debuginfod: \([0-9]*\) lookups asked, \([0-9]*\) not asked.*/\1 \2/p' \
		 "$T/$mode.err")
	asked=${1:-x} not=${2:-x}
	reqs=$(grep -c "^$mode " "$T/req.log")
	echo "$mode: $asked asked, $not not asked, $reqs requests: $(grep -e 'debuginfod: the' -e "servers' answer" "$T/$mode.err" | head -1)"
	grep -q "cannot open '$T/bin/.*nor its build-id in the cache or on the debuginfod servers;" \
		"$T/$mode.err" &&
		fail "$mode: said not on the servers: $(cat "$T/$mode.err")"
}
# nothing downloaded is left in the client's cache (its own files are
# *_s, config)
nothing_kept() {
	[ -z "$(find "$T/cache.$1" -type f -size +0 ! -name '*_s' 2>/dev/null)" ] ||
		fail "$1: left in the client's cache: $(find "$T/cache.$1" -type f -size +0 | xargs ls -l)"
}
# the lookup that ran out of time, and no others
out_of_time() {
	[ "$asked" = 1 ] && [ "$not" -ge 2 ] ||
		fail "$1: $asked asked, $not not asked: $(cat "$T/$1.err")"
	grep -q "debuginfod: the servers have had the $2 s a report gives them (--debuginfod-time" \
		"$T/$1.err" || fail "$1: no word of the time: $(cat "$T/$1.err")"
	grep -q "cannot open '$T/bin/.*or on the debuginfod servers (out of time for them)" \
		"$T/$1.err" || fail "$1: the module's line: $(cat "$T/$1.err")"
	nothing_kept "$1"
}

ask stall --debuginfod-time 3
out_of_time stall 3
[ "$reqs" = 1 ] || fail "stall: $reqs requests, not one (retried?)"
# (the first lookup is the executable of a module gone, or the debug file
# of one still here, sh's, when its frames come first)
grep -Eq "^aperture: debuginfod: waiting for the (executable|debug file) of build-id [0-9a-f]* \(" \
	"$T/stall.err" || fail "stall: no progress line: $(cat "$T/stall.err")"

ask drip --debuginfod-time 2
out_of_time drip 2
[ "$reqs" = 1 ] || fail "drip: $reqs requests, not one"

# a redirect loop: each lookup follows 8 redirects (the server's log:
# 9 requests answered) and is stopped at the next round of the client's
# loop, a request at most still in flight; never the time budget's
# thousands (the budget is large enough for them, had they been made)
ask loop --debuginfod-time 30
[ "$asked" != x ] && [ "$asked" -ge 1 ] && [ "$reqs" -gt "$asked" ] &&
	[ "$reqs" -le $((asked * 11)) ] ||
	fail "loop: $asked asked, $reqs requests: $(cat "$T/loop.err")"
grep -Eq "debuginfod: the servers redirected the lookup of the (executable|debug file) of build-id [0-9a-f]* more than 8 times a server; stopped" \
	"$T/loop.err" || fail "loop: $(cat "$T/loop.err")"
grep -q "have had the 30 s" "$T/loop.err" && fail "loop ran out of time"
grep -q "cannot open '$T/bin/.*or on the debuginfod servers (redirected too often)" \
	"$T/loop.err" || fail "loop: the module's line: $(cat "$T/loop.err")"
nothing_kept loop

ask endless --debuginfod-size 1M
grep -Eq "debuginfod: the (executable|debug file) of build-id [0-9a-f]* is larger than what is left of the 1048576 bytes a report may download" \
	"$T/endless.err" || fail "endless: $(cat "$T/endless.err")"
[ "$asked" = 1 ] && [ "$not" -ge 2 ] && [ "$reqs" = 1 ] ||
	fail "endless: $asked asked, $not not asked, $reqs requests"
nothing_kept endless

ask wrong
grep -q "the debuginfod servers' answer for the executable of build-id $bida is a file of build-id $bidw" \
	"$T/wrong.err" || fail "wrong: $(cat "$T/wrong.err")"
grep -q "cannot open '$T/bin/a'.*or on the debuginfod servers (their answer has another build-id)" \
	"$T/wrong.err" || fail "wrong: the module's line: $(cat "$T/wrong.err")"
grep -Eq 'burn_|hot_loop|hot_host|main' "$T/wrong.out" &&
	fail "wrong: another build-id's symbols used: $(grep -E 'burn_|hot_|main' "$T/wrong.out")"
[ "$(grep -c "^wrong /wrong/buildid/$bida/executable" "$T/req.log")" = 1 ] ||
	fail "wrong: asked for $bida more than once: $(grep "$bida" "$T/req.log")"

# bad budgets: one line, a usage error
for bad in "--debuginfod-time 0" "--debuginfod-time 1.5" \
	   "--debuginfod-size 2X"; do
	"$APERTURE" report -i "$T/gone.data" $bad >/dev/null 2>"$T/e.err" &&
		fail "$bad accepted"
	grep -q "bad --debuginfod" "$T/e.err" || fail "$bad: $(cat "$T/e.err")"
done
exit 0
