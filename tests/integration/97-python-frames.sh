#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Python frames: py_shares runs burn_a, burn_b and burn_c for 6, 3 and 1
# units of work a round and times each with its own CPU clock.  Under
# record -e cpu, each function's share of the three in the folded stacks
# is within 6 points of the program's (3 standard deviations of the
# sample count where that is more: a loaded machine gives fewer); each
# frame's line is the line of its call (the source says which), work's
# hottest line its loop body; the merged chain has burn_X's frame right
# above work's (the evaluator's native frame between them replaced); the
# table marks them [py], speedscope has their files and lines; a file
# name with a newline, ';' and ESC comes out escaped.  Once for each
# interpreter: Debian's /usr/bin/python3.11 (the interpreter in the
# executable) and pyenv's 3.8 to 3.13 (in libpython3.X.so: three
# frame layouts from 3.11 on, PyFrameObjects before, whose lines come
# from co_lnotab (3.8, 3.9) or 3.10's co_linetable); one that is not
# installed is a skip of its own, said by name.  Before 3.11 each Python
# call is a C call of the evaluator: the native frames of that call stay
# between burn_X's frame and work's.
. tests/integration/lib.sh
. tests/integration/python.inc
need_bpf

PY=$(pwd)/tests/workloads/py_shares.py
pyenv=${PYENV_ROOT:-$HOME/.pyenv}/versions
pythons=${APERTURE_TEST_PYTHONS:-"/usr/bin/python3.11 $(
	for v in 8 9 10 11 12 13; do
		ls -d "$pyenv"/3.$v.*/bin/python3.$v 2>/dev/null ||
			echo "$pyenv/3.$v.x/bin/python3.$v"; done)"}

check() {
	py=$1
	tag=$2
	"$APERTURE" record -e cpu -F 999 -o "$T/$tag.data" -- "$py" "$PY" 1.5 \
		>"$T/$tag.out" 2>"$T/$tag.err" ||
		fail "$py: record: $(cat "$T/$tag.err")"
	"$APERTURE" report -i "$T/$tag.data" --format folded >"$T/$tag.folded" ||
		fail "$py: report --format folded"
	"$APERTURE" report -i "$T/$tag.data" --sort sym >"$T/$tag.table" ||
		fail "$py: report"
	"$APERTURE" report -i "$T/$tag.data" --format speedscope \
		>"$T/$tag.ss" || fail "$py: report --format speedscope"
	for f in burn_a burn_b burn_c; do
		want=$(sed -n "s/^share $f //p" "$T/$tag.out")
		line=$(sed -n "s/^line $f //p" "$T/$tag.out")
		[ -n "$want" ] && [ -n "$line" ] ||
			fail "$py: workload output: $(cat "$T/$tag.out")"
		set -- $(awk -v f="$f" -v line="$line" \
			-v between="$(py_between "$py")" "$PY_ABOVE"'
			{ w = $NF; $NF = ""
			  for (g = 1; g <= 3; g++)
				if (index($0, ";burn_" substr("abc", g, 1) \
					  " (py_shares.py:")) { all += w; break }
			  if (index($0, ";" f " (py_shares.py:")) {
				n += w
				if (above($0, ";" f " (py_shares.py:" line ")",
					  "work (py_shares.py:", between))
					good += w
			  } }
			END { printf "%.1f %d %d %d\n",
				all ? 100 * n / all : 0, n, good, all }' \
			"$T/$tag.folded")
		echo "$py: $f program $want% aperture $1% ($2 of $4 samples;" \
			"$3 at line $line above work)"
		[ "$4" -ge 100 ] || fail "$py: only $4 samples in burn_*"
		tol=$(echo "$want $4" | awk '{ p = $1 / 100
			t = 300 * sqrt(p * (1 - p) / $2); print (t > 6 ? t : 6) }')
		within "$(echo "$1 $want" | awk '{ print $1 - $2 }')" -"$tol" \
			"$tol" || fail "$py: $f: $1% of samples, the program" \
			"measured $want% (within $tol)"
		within "$(echo "$3 $2" | awk '{ print $1 / $2 }')" 0.9 1 ||
			fail "$py: $f: $3 of $2 samples at line $line above work"
		grep -q "\[py\] $f\$" "$T/$tag.table" ||
			fail "$py: no [py] $f row: $(grep "$f" "$T/$tag.table")"
		"$py" -c 'import json, sys
frames = json.load(open(sys.argv[1]))["shared"]["frames"]
sys.exit(not any(f["name"] == sys.argv[2] and f.get("line") ==
		 int(sys.argv[3]) and f.get("file") == sys.argv[4]
		 for f in frames))' "$T/$tag.ss" "$f" "$line" "$PY" ||
			fail "$py: speedscope has no frame $f at $PY:$line"
	done
	line=$(sed -n "s/^line work //p" "$T/$tag.out")
	hot=$(awk '{ w = $NF; n = split($0, f, ";"); leaf = f[n]
		for (i = n; i > 0; i--)
			if (index(f[i], "work (py_shares.py:") == 1) {
				sub(/^work \(py_shares.py:/, "", f[i])
				sub(/\).*/, "", f[i]); c[f[i]] += w; break }
		} END { for (l in c) if (c[l] > m) { m = c[l]; b = l }
			print b }' "$T/$tag.folded")
	[ "$hot" = "$line" ] ||
		fail "$py: work's hottest line is $hot, not its loop body $line"
	# the target's names: nothing raw in a line
	awk '!/ [0-9]+$/ { bad = 1 } END { exit bad }' "$T/$tag.folded" ||
		fail "$py: a folded line cut by a name: $(grep -v ' [0-9]*$' \
			"$T/$tag.folded" | head -3)"
	! grep -q "$(printf '\033')" "$T/$tag.folded" "$T/$tag.table" ||
		fail "$py: an ESC byte of the target's went out raw"
	ran=$((ran + 1))
}

each_python
python_done
