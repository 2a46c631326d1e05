#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -o FIFO: a FIFO another user planted at the path (a sticky
# world-writable directory, fs.protected_fifos 0) is refused before it is
# opened, and its reader gets nothing; a FIFO of the caller's own is
# written to, and what its reader gets is the recording.
. tests/integration/lib.sh
need_bpf
need_cmd setpriv
need_cmd python3

old=$(sysctl -n fs.protected_fifos) || skip "no fs.protected_fifos"
sysctl -qw fs.protected_fifos=0 || fail "sysctl fs.protected_fifos=0"
trap 'sysctl -qw fs.protected_fifos="$old"; rm -rf "$T"' EXIT INT TERM
nobody_dir

# reader FIFO READY OUT: holds the FIFO open (read and write, so that the
# writer's open finds a reader and EOF never comes), says READY, copies
# until the recording's footer or a line END, for 15 s at most
cat >"$T/reader.py" <<'EOF'
import os, select, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
open(sys.argv[2], "w").close()
got = b""
end = time.monotonic() + 15
while not (got.endswith(b"APEND\0\0\0") or got.endswith(b"END\n")):
    left = end - time.monotonic()
    if left <= 0 or not select.select([fd], [], [], left)[0]:
        break
    got += os.read(fd, 65536)
open(sys.argv[3], "wb").write(got)
EOF
chmod 644 "$T/reader.py"

wait_file() {
	i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "no $1"
		sleep 0.05
	done
}

# another user's FIFO
setpriv --reuid=nobody --regid=nogroup --clear-groups \
	sh -c 'mkfifo -m 0622 "$1/out.data" && exec python3 "$2" "$1/out.data" "$1/ready" "$1/got"' \
	sh "$T/u" "$T/reader.py" & rd=$!
wait_file "$T/u/ready"
[ "$(stat -c %u "$T/u/out.data")" != 0 ] || fail "the FIFO is root's"
"$APERTURE" record -o "$T/u/out.data" -- "$WL/cpu_split" 1 >"$T/out" 2>&1 &&
	fail "record -o another user's FIFO succeeded: $(cat "$T/out")"
[ "$(grep -c . "$T/out")" = 1 ] || fail "not one line: $(cat "$T/out")"
grep -q "another user's" "$T/out" || fail "record -o FIFO: $(cat "$T/out")"
echo END >"$T/u/out.data"
wait $rd
[ "$(cat "$T/u/got")" = END ] ||
	fail "the FIFO's reader got $(wc -c <"$T/u/got") bytes"

# one's own: written to
mkfifo -m 0600 "$T/own.data"
python3 "$T/reader.py" "$T/own.data" "$T/ready" "$T/got" & rd=$!
wait_file "$T/ready"
"$APERTURE" record -o "$T/own.data" -- "$WL/cpu_split" 1 >"$T/out" 2>&1 ||
	fail "record -o own FIFO: $(cat "$T/out")"
wait $rd
"$APERTURE" report -i "$T/got" --stdio >"$T/rep" 2>&1 ||
	fail "report of what the FIFO carried: $(cat "$T/rep")"
grep -q burn_ "$T/rep" || fail "no samples through the FIFO: $(cat "$T/rep")"
exit 0
