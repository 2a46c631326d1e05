#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A command that cannot start (missing, not executable, not a program)
# exits 127 with one line, and leaves the previous recording and its .old
# exactly as they were: nothing is created or rotated.
. tests/integration/lib.sh
need_bpf

cd "$T" || fail "cd"
"$APERTURE" record -- true 2>/dev/null || fail "first record"
"$APERTURE" record -- true 2>/dev/null || fail "second record"
[ -s aperture.data ] && [ -s aperture.data.old ] || fail "no data and .old"
before=$(md5sum aperture.data aperture.data.old)
printf '\177ELFnot really' >notelf
chmod +x notelf
printf 'x' >noexec
for cmd in /nonexistent/prog no-such-command-here ./notelf ./noexec; do
	"$APERTURE" record -- $cmd >out 2>err
	rc=$?
	[ $rc -eq 127 ] || fail "'$cmd': exit $rc, want 127"
	[ "$(wc -l <err)" -eq 1 ] || fail "'$cmd': $(cat err)"
	grep -q "cannot run '$cmd'" err || fail "'$cmd': $(cat err)"
	[ "$(md5sum aperture.data aperture.data.old)" = "$before" ] ||
		fail "'$cmd' changed the recordings"
	[ "$(ls aperture.data*)" = "$(printf 'aperture.data\naperture.data.old')" ] ||
		fail "'$cmd' left files: $(ls)"
done
grep -q "command not found" err && fail "a path said 'command not found'"
"$APERTURE" record -- no-such-command-here 2>&1 | grep -q 'command not found' ||
	fail "a name not in PATH does not say 'command not found'"
exit 0
