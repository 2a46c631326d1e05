#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Python frames in threads, off-CPU and by -p: py_threads runs spin_a and
# spin_b in two threads (each timed with its own CPU clock) while the
# main thread sleeps in nap.  Under record -e cpu,sched, each spinner's
# share of their samples is within 6 points (or 3 standard deviations)
# of the program's, with the line of its call; the sched view names nap
# at its sleep's line with the time the program says it slept (within
# 10 %).  Then record -p attaches to a running py_threads (interpreter
# found from /proc, frames read while it runs) for 1.5 s once its sensors
# are attached (perf events among its files), then py_threads is told to
# stop: the spinners' shares as before.
# On /usr/bin/python3.11, and pyenv's 3.13 and 3.8 (PyFrameObjects)
# where they are installed.
. tests/integration/lib.sh
. tests/integration/python.inc
need_bpf

PY=$(pwd)/tests/workloads/py_threads.py
FORK=$(pwd)/tests/workloads/py_fork.py
pythons=${APERTURE_TEST_PYTHONS:-"/usr/bin/python3.11 $(for v in 13 8; do
	ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.$v.*/bin/python3.$v \
		2>/dev/null || echo pyenv-3.$v; done)"}

# $1: folded file, $2: function, $3: its line, $4: program's share, $5:
# record's messages
spinner() {
	name=$2
	msgs=$5
	set -- $(awk -v f="$2" -v line="$3" -v between="$(py_between "$py")" \
		"$PY_ABOVE"'
		{ w = $NF
		  if (index($0, ";spin_a (py_threads.py:") ||
		      index($0, ";spin_b (py_threads.py:")) all += w
		  if (above($0, ";" f " (py_threads.py:" line ")",
			    "spin (py_threads.py:", between)) n += w }
		END { printf "%.1f %d %d\n", all ? 100 * n / all : 0, n, all }' \
		"$1") "$4"
	echo "$py: $name program $4% aperture $1% ($2 of $3 samples)"
	[ "$3" -ge 100 ] || fail "$py: only $3 samples in the spinners" \
		"(record: $(tail -1 "$msgs"))"
	tol=$(echo "$4 $3" | awk '{ p = $1 / 100
		t = 300 * sqrt(p * (1 - p) / $2); print (t > 6 ? t : 6) }')
	within "$(echo "$1 $4" | awk '{ print $1 - $2 }')" -"$tol" "$tol" ||
		fail "$py: $name has $1% of the samples at its call, the" \
			"program measured $4% (within $tol)"
}

check() {
	py=$1
	tag=$2
	"$APERTURE" record -e cpu,sched -F 999 -o "$T/$tag.data" -- \
		"$py" "$PY" 1 >"$T/$tag.out" 2>"$T/$tag.err" ||
		fail "$py: record: $(cat "$T/$tag.err")"
	"$APERTURE" report -i "$T/$tag.data" --events cpu --format folded \
		>"$T/$tag.cpu" || fail "$py: report cpu"
	"$APERTURE" report -i "$T/$tag.data" --events sched --format folded \
		>"$T/$tag.sched" || fail "$py: report sched"
	for f in spin_a spin_b; do
		spinner "$T/$tag.cpu" "$f" \
			"$(sed -n "s/^line $f //p" "$T/$tag.out")" \
			"$(sed -n "s/^share $f //p" "$T/$tag.out")" "$T/$tag.err"
	done
	slept=$(sed -n 's/^slept //p' "$T/$tag.out")
	line=$(sed -n 's/^line nap //p' "$T/$tag.out")
	# folded sched weights are microseconds
	nap=$(awk -v line="$line" 'index($0, ";nap (py_threads.py:" line ");") {
		n += $NF } END { print n + 0 }' "$T/$tag.sched")
	echo "$py: nap slept ${slept} ns, sched view ${nap} us at line $line"
	within "$(echo "$nap $slept" | awk '{ print $1 * 1000 / $2 }')" \
		0.9 1.1 || fail "$py: nap: ${nap} us off-CPU at line $line," \
			"the program slept $slept ns"

	# -p: attached to a process that runs already
	"$py" "$PY" 60 "$T/$tag.stop" >"$T/$tag.bg" 2>&1 &
	bg=$!
	i=0
	until grep -q '^ready' "$T/$tag.bg"; do
		i=$((i + 1))
		[ $i -lt 100 ] || { kill $bg; fail "$py: py_threads not ready"; }
		sleep 0.1
	done
	# until the target exits: -d would count the set-up too (the
	# tables of a libpython with its debug information: seconds on a
	# loaded machine)
	"$APERTURE" record -e cpu -F 999 -p "$bg" -o "$T/$tag.p" \
		>/dev/null 2>"$T/$tag.perr" &
	rec=$!
	i=0
	until ls -l /proc/$rec/fd 2>/dev/null | grep -q perf_event; do
		i=$((i + 1))
		[ $i -lt 300 ] || break
		sleep 0.1
	done
	sleep 1.5
	touch "$T/$tag.stop"
	wait $bg || fail "$py: py_threads under -p: $(cat "$T/$tag.bg")"
	wait $rec || fail "$py: record -p: $(cat "$T/$tag.perr")"
	"$APERTURE" report -i "$T/$tag.p" --format folded >"$T/$tag.pf" ||
		fail "$py: report of -p"
	for f in spin_a spin_b; do
		spinner "$T/$tag.pf" "$f" \
			"$(sed -n "s/^line $f //p" "$T/$tag.bg")" \
			"$(sed -n "s/^share $f //p" "$T/$tag.bg")" "$T/$tag.perr"
	done
	# a forked child: the interpreter of its parent
	"$APERTURE" record -e cpu -F 999 -o "$T/$tag.f" -- "$py" "$FORK" \
		>"$T/$tag.fout" 2>"$T/$tag.ferr" ||
		fail "$py: record py_fork: $(cat "$T/$tag.ferr")"
	child=$(sed -n 's/^child //p' "$T/$tag.fout")
	"$APERTURE" report -i "$T/$tag.f" --sort pid,sym >"$T/$tag.ft" ||
		fail "$py: report py_fork"
	grep -q " $child  \[py\] child_work\$" "$T/$tag.ft" ||
		fail "$py: no [py] child_work in the forked child $child:" \
			"$(grep child_work "$T/$tag.ft")"
	echo "$py: forked child $child: $(grep " $child  \[py\] child_work" \
		"$T/$tag.ft" | awk '{ print $1 }') in [py] child_work"
	ran=$((ran + 1))
}

each_python
python_done
