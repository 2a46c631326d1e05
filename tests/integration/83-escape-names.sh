#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Names come from other users: a command named with an ESC sequence, a
# newline and a ';' must not reach the terminal raw from a table, nor
# forge a line or a frame in folded output; JSON keeps its own escaping.
. tests/integration/lib.sh
need_bpf

name=$(printf 'x\033[2J\ny;z')
cp "$WL/cpu_split" "$T/$name"
"$APERTURE" record -o "$T/r.data" -- "$T/$name" 1 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
esc=$(printf '\033')
for fmt in table folded; do
	"$APERTURE" report -i "$T/r.data" --format $fmt >"$T/out.$fmt" \
		2>"$T/err.$fmt" || fail "report --format $fmt"
	! grep -q "$esc" "$T/out.$fmt" || fail "$fmt output holds a raw ESC"
	! grep -q "$esc" "$T/err.$fmt" || fail "$fmt warnings hold a raw ESC"
	grep -q 'x\\x1b\[2J\\x0ay' "$T/out.$fmt" ||
		fail "$fmt output lacks the escaped name: $(head -20 "$T/out.$fmt")"
done
# every folded line is "frames COUNT", the name one frame with ':' for ';'
awk '!/ [0-9.]+$/ { bad = 1 } END { exit bad }' "$T/out.folded" ||
	fail "a folded line was forged: $(cat "$T/out.folded")"
grep -q '^x\\x1b\[2J\\x0ay:z;' "$T/out.folded" ||
	fail "the name's ';' split a frame: $(head -3 "$T/out.folded")"
"$APERTURE" report -i "$T/r.data" --format json >"$T/out.json" ||
	fail "report --format json"
grep -q 'x\\u001b\[2J\\ny;z' "$T/out.json" ||
	fail "JSON escaping changed: $(grep -m1 comm "$T/out.json")"
exit 0
