#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every command's --help and its man page list the same options.
. tests/integration/lib.sh

# the commands aperture --help lists, so that a new one needs its page
cmds=$("$APERTURE" --help | awk '/^Commands:/ { on = 1; next }
	on && /^  [a-z]/ && $1 != "help" { print $1 } on && /^$/ { exit }')
[ -n "$cmds" ] || fail "no commands in aperture --help"
for c in $cmds; do
	man=man/aperture-$c.1
	[ -f "$man" ] || fail "no $man"
	"$APERTURE" $c --help >"$T/help" || fail "$c --help"
	# long options from --help
	grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u >"$T/h"
	# long options from the man page (groff escapes the dashes)
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man" | grep -o -- '--[a-z][a-z-]*' |
		sort -u >"$T/m"
	missing=$(comm -23 "$T/h" "$T/m" | tr '\n' ' ')
	[ -z "$missing" ] || fail "$man lacks: $missing"
	extra=$(comm -13 "$T/h" "$T/m" | tr '\n' ' ')
	[ -z "$extra" ] || fail "$man documents options --help lacks: $extra"
	# the synopsis line names the command
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man" | grep -q "^aperture $c" ||
		fail "$man: no synopsis 'aperture $c'"
done
[ -f man/aperture.1 ] && [ -f man/aperture-file.5 ] || fail "man pages"
exit 0
