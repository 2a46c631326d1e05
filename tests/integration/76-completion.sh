#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bash completion: commands, options (from each command's --help), event
# lists, formats, files, the command after record --; make install puts
# it where bash-completion finds it.
. tests/integration/lib.sh
need_cmd bash

touch "$T/alpha.data" "$T/beta.data"
cat >"$T/t.bash" <<EOF
. completions/aperture.bash
comp() {	# the words of a line, the last one being completed
	COMP_WORDS=("\$@")
	COMP_CWORD=\$((\$# - 1))
	COMPREPLY=()
	_aperture
	printf '%s\n' "\${COMPREPLY[@]}" | sort | tr '\n' ' '
	echo
}
comp "$APERTURE" re
comp "$APERTURE" report --for
comp "$APERTURE" record -e cpu,sy
comp "$APERTURE" report --format sp
comp "$APERTURE" report --format=t
comp "$APERTURE" script --format ''
comp "$APERTURE" diff --events sc
comp "$APERTURE" report -i "$T/al"
comp "$APERTURE" diff "$T/alpha.data" "$T/be"
comp "$APERTURE" record -- tru
comp "$APERTURE" help d
comp "$APERTURE" report --sort comm,s
comp "$APERTURE" record -e cpu,sched:sched_process_ex
EOF
bash "$T/t.bash" >"$T/out" 2>"$T/err" || fail "bash: $(cat "$T/err")"
cat "$T/out"
line() { sed -n "${1}p" "$T/out"; }
[ "$(line 1)" = "record report " ] || fail "commands: $(line 1)"
[ "$(line 2)" = "--format " ] || fail "options: $(line 2)"
[ "$(line 3)" = "cpu,syscall cpu,syscall:calls " ] || fail "event list: $(line 3)"
[ "$(line 4)" = "speedscope " ] || fail "formats: $(line 4)"
[ "$(line 5)" = "table trace " ] || fail "--format=: $(line 5)"
[ "$(line 6)" = "jsonl text " ] || fail "script formats: $(line 6)"
[ "$(line 7)" = "sched " ] || fail "diff view: $(line 7)"
[ "$(line 8)" = "$T/alpha.data " ] || fail "-i file: $(line 8)"
[ "$(line 9)" = "$T/beta.data " ] || fail "diff files: $(line 9)"
line 10 | grep -qw 'true' || fail "command after --: $(line 10)"
[ "$(line 11)" = "diff " ] || fail "help: $(line 11)"
[ "$(line 12)" = "comm,self comm,srcline comm,sym " ] || fail "sort keys: $(line 12)"
# tracepoints after their category, from tracefs (root reads it)
if [ -r /sys/kernel/tracing/events/sched/sched_process_exec/format ]; then
	[ "$(line 13)" = "cpu,sched:sched_process_exec cpu,sched:sched_process_exit " ] ||
		fail "tracepoints: $(line 13)"
fi

# make install: the script where bash-completion looks for it
# O relative, as make check builds it: nothing is rebuilt when up to date
make -s install O="$(realpath --relative-to=. "$BUILD")" DESTDIR="$T/root" \
	PREFIX=/usr >"$T/inst" 2>&1 ||
	fail "make install: $(cat "$T/inst")"
cmp -s completions/aperture.bash \
	"$T/root/usr/share/bash-completion/completions/aperture" ||
	fail "make install did not install the completion"
[ -f "$T/root/usr/share/man/man1/aperture-diff.1" ] || fail "man pages"
exit 0
