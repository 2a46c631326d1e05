#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# aperture push with a bearer token from a file (sent as Authorization:
# Bearer, refused when others can write the file, never on the command
# line) and over https to a server whose self-signed certificate only
# --ca-file makes trusted.
. tests/integration/lib.sh
. tests/integration/push.inc
need_cmd openssl

F=tests/golden/cpu-lock-io.data
tok=s3cret-$$
receiver parca "$T/tok" token=$tok
printf '%s\n' "$tok" >"$T/token"
chmod 600 "$T/token"
"$APERTURE" push --to "parca+http://127.0.0.1:$PORT" "$F" 2>"$T/err"
rc=$?
[ $rc = 65 ] || fail "no token: exit $rc, want 65 (401)"
grep -q 'HTTP 401' "$T/err" || fail "no token: $(cat "$T/err")"
"$APERTURE" push --to "parca+http://127.0.0.1:$PORT" --token-file "$T/token" \
	"$F" 2>"$T/err" || fail "token: $(cat "$T/err")"
[ "$(got "$T/tok" 'len(g)')" = 1 ] || fail "token: not received"
printf 'wrong\n' >"$T/wrong"
chmod 600 "$T/wrong"
"$APERTURE" push --to "parca+http://127.0.0.1:$PORT" --token-file "$T/wrong" \
	"$F" 2>/dev/null
[ $? = 65 ] || fail "a wrong token was taken"
# a token file others can write: refused, nothing sent
for mode in 620 602 666; do
	chmod $mode "$T/token"
	"$APERTURE" push --to "parca+http://127.0.0.1:$PORT" \
		--token-file "$T/token" "$F" 2>"$T/err"
	rc=$?
	[ $rc = 64 ] || fail "token file mode $mode: exit $rc, want 64"
	grep -q 'others can write it' "$T/err" || fail "mode $mode: $(cat "$T/err")"
done
ln -s "$T/wrong" "$T/link"
"$APERTURE" push --to "parca+http://127.0.0.1:$PORT" --token-file "$T/link" \
	"$F" 2>/dev/null
[ $? = 64 ] || fail "a token file behind a link was followed"
[ "$(got "$T/tok" 'len(g)')" = 1 ] || fail "sent with a refused token file"

# https: a self-signed certificate for 127.0.0.1
mkdir -p "$T/tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$T/tls/key.pem" \
	-out "$T/tls/cert.pem" >/dev/null 2>&1 || fail "openssl req"
receiver pyroscope "$T/tls" tls
"$APERTURE" push --to "pyroscope+https://127.0.0.1:$PORT" --retries 3 "$F" \
	2>"$T/err"
rc=$?
[ $rc = 75 ] || fail "untrusted certificate: exit $rc, want 75"
[ "$(wc -l <"$T/err")" = 1 ] && grep -qi 'certificate' "$T/err" ||
	fail "untrusted certificate: $(cat "$T/err")"
"$APERTURE" push --to "pyroscope+https://127.0.0.1:$PORT" \
	--ca-file "$T/tls/cert.pem" "$F" 2>"$T/err" ||
	fail "https with --ca-file: $(cat "$T/err")"
[ "$(got "$T/tls" '" ".join(r["series"]["__name__"] for r in g)')" = \
	"process_cpu mutex io" ] || fail "https: $(got "$T/tls" 'g')"
# plain http to the https port: no answer, not a refusal
"$APERTURE" push --to "pyroscope+http://127.0.0.1:$PORT" --retries 0 "$F" \
	2>/dev/null
rc=$?
[ $rc = 75 ] || fail "http to https: exit $rc, want 75"
"$APERTURE" push --to "pyroscope+https://127.0.0.1:$PORT" \
	--ca-file "$T/nonexistent" "$F" 2>/dev/null
[ $? = 64 ] || fail "a missing --ca-file was taken"
exit 0
