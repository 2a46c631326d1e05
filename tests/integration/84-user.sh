#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# --user USER runs the command as USER (uid, groups, HOME, USER); under
# sudo (SUDO_UID set) the record file goes to the invoking user, who then
# reports on it without root; -u USER records only USER's threads: the
# sched view lists no other process (a switch to one, a wakeup of one by
# USER's), and the losses name none.  The user is created here and
# removed.
. tests/integration/lib.sh
need_bpf
need_cmd useradd
need_cmd runuser

u=aptest$$
useradd --system --no-create-home --home-dir /nonexistent/$u \
	--shell /bin/sh "$u" || fail "useradd $u"
trap 'userdel "$u" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
uid=$(id -u "$u")
gid=$(id -g "$u")
chmod 755 "$T"
mkdir "$T/w" && chmod 1777 "$T/w"

"$APERTURE" record --user "$u" -o "$T/u.data" -- \
	sh -c 'echo "$(id -u) $(id -g) $(id -G) $HOME $USER $LOGNAME" >"$0"' \
	"$T/w/id" 2>"$T/rec.err" || fail "record --user: $(cat "$T/rec.err")"
read -r got_uid got_gid got_groups home user logname <"$T/w/id" ||
	fail "the command did not run"
[ "$got_uid" = "$uid" ] && [ "$got_gid" = "$gid" ] ||
	fail "ran as $got_uid:$got_gid, want $uid:$gid"
[ "$got_groups" = "$(id -G "$u")" ] ||
	fail "groups $got_groups, want $(id -G "$u")"
[ "$home" = "/nonexistent/$u" ] && [ "$user" = "$u" ] && [ "$logname" = "$u" ] ||
	fail "environment: HOME=$home USER=$user LOGNAME=$logname"
# without sudo the file stays root's
[ "$(stat -c %u "$T/u.data")" = 0 ] || fail "file not root's without SUDO_UID"

"$APERTURE" record --user no-such-user-$$ -- true 2>"$T/bad.err" &&
	fail "--user with an unknown user succeeded"
grep -q "no such user" "$T/bad.err" || fail "unknown user: $(cat "$T/bad.err")"

SUDO_UID=$uid SUDO_GID=$gid "$APERTURE" record -o "$T/w/s.data" -- \
	"$WL/cpu_split" 1 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
[ "$(stat -c %u:%g "$T/w/s.data")" = "$uid:$gid" ] ||
	fail "file owned by $(stat -c %u:%g "$T/w/s.data"), want $uid:$gid"
runuser -u "$u" -- "$APERTURE" report -i "$T/w/s.data" >"$T/rep" 2>&1 ||
	fail "report as $u: $(cat "$T/rep")"
grep -q burn_ "$T/rep" || fail "report as $u: no samples"
# /dev/null is not given away
SUDO_UID=$uid SUDO_GID=$gid "$APERTURE" record -o /dev/null -- true 2>"$T/rec.err" ||
	fail "record -o /dev/null: $(cat "$T/rec.err")"
[ "$(stat -c %u /dev/null)" = 0 ] || { chown 0:0 /dev/null; fail "/dev/null chown'ed"; }

# -u: the user's offcpu_sleep (the user's only process), switching with
# everyone else's on a busy machine
runuser -u "$u" -- "$WL/offcpu_sleep" 4 >/dev/null &
wl=$!
i=0
until pgrep -u "$uid" -x offcpu_sleep >/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "offcpu_sleep did not start as $u"
	sleep 0.05
done
"$APERTURE" record -u "$u" -e sched,cpu -o "$T/f.data" -d 1 2>"$T/f.err" ||
	fail "record -u: $(cat "$T/f.err")"
wait $wl
"$APERTURE" report -i "$T/f.data" --events sched >"$T/f.rep" 2>&1 ||
	fail "report: $(cat "$T/f.rep")"
# the process rows: PID - COMMAND ...
awk '$2 == "-" && $1 ~ /^[0-9]+$/ { print $3 }' "$T/f.rep" | sort -u 	>"$T/f.comm"
[ "$(cat "$T/f.comm")" = offcpu_sleep ] ||
	fail "-u $u: the sched view lists $(tr '\n' ' ' <"$T/f.comm")"
# "# lost by : pid PID COMM: ..."
"$APERTURE" report -i "$T/f.data" --header-only >"$T/f.hdr" 2>&1 ||
	fail "report --header-only: $(cat "$T/f.hdr")"
sed -n 's/^# lost by *: //p' "$T/f.hdr" | tr ';' '\n' |
	awk '$1 == "pid" && $3 != "offcpu_sleep:" || $2 == "others:"' |
	grep . && fail "-u $u: losses of processes not $u's: $(grep 'lost by' "$T/f.hdr")"
exit 0
