#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Python frames in the stacks of the event kinds beyond cpu and sched:
# py_events makes a known Python function take a lock held by another
# thread (-e lock: a threading.Lock's futex; -e lock:pthread: a pthread
# mutex through ctypes), fault pages in (-e mem, page faults where there
# is no IBS) or launch kernels through the stand-in CUDA driver and
# runtime from ctypes (-e gpu).  In script's stacks each such event has
# the function at its call's line, its Python caller right above it and
# native frames right below (the lock's, the fault's or the launch's,
# reached through ctypes), down to _start; the counts are the program's
# own (contended acquisitions of that lock, seen waiting in /proc; the
# GIL's waits under the same function are not its; launches), and the
# two allocators' shares of the fault samples within 5 points of their
# shares of the faults getrusage counted.  On /usr/bin/python3.11 and
# pyenv's 3.13 (in libpython; its threading.Lock is no semaphore: no
# futex run) where installed.
. tests/integration/lib.sh
. tests/integration/python.inc
need_bpf

PY=$(pwd)/tests/workloads/py_events.py
pythons=${APERTURE_TEST_PYTHONS:-"/usr/bin/python3.11 $(
	ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13.*/bin/python3.13 \
		2>/dev/null || echo pyenv-3.13)"}

# $1: script output, $2: header pattern, $3: function, $4: its line, $5:
# its Python caller, $6: the start of the name of a native function the
# event's own path calls.
# Prints the events whose stack holds the function at that line with
# the caller right above it, native frames right below it down to one
# of $6, and _start at the root; then all events of the pattern.
at_line() {
	awk -v hdr="$2" -v want=" $3 ($PY:$4)" -v up=" $5 ($PY:" \
		-v own="$6" -v fn=" $3 (" -v bad="$1.bad" '
	function done(   i, j) {
		if (!inev)
			return
		all++
		for (i = 2; i < n; i++) {
			if (!index(fr[i], want) || !index(fr[i + 1], up) ||
			    !index(fr[n], " _start+"))
				continue
			for (j = i - 1; j > 0 && fr[j] !~ /^\t +0 /; j--)
				if (fr[j] ~ ("^\t +[0-9a-f]+ " own))
					{ good++; return }
		}
		# one that names the function but not so: shown on failure
		for (i = 1; i <= n; i++)
			if (index(fr[i], fn) && nbad++ < 3) {
				print ev > bad
				for (j = 1; j <= n; j++)
					print fr[j] > bad
				break
			}
	}
	/^[^\t]/ { done(); inev = $0 ~ hdr; ev = $0; n = 0; next }
	/^\t/ { fr[++n] = $0 }
	END { done(); printf "%d %d\n", good, all
	      if (!nbad) printf "" > bad }' "$1"
}

# $1: tag, $2: what, $3: wanted count, $4: got, $5: of all
same() {
	echo "$py: $2: program $3, aperture $4 (of $5 events)"
	[ "$3" -gt 0 ] && [ "$4" -eq "$3" ] ||
		fail "$py: $2: $4 events at the call's line, the program" \
			"counted $3; $(tail -n 2 "$T/$1-$t.err")" \
			"$(head -n 60 "$T/$1-$t.script.bad")"
}

prog() {
	sed -n "s/^$1 $2 //p" "$T/$tag.out"
}

# $1: tag (also the mode), $2...: record's options before --
run() {
	tag=$1
	mode=${1%%-*}
	shift
	"$APERTURE" record "$@" -o "$T/$tag.data" -- "$py" "$PY" $mode \
		$rounds $extra >"$T/$tag.out" 2>"$T/$tag.err" ||
		fail "$py: record $*: $(cat "$T/$tag.err")"
	"$APERTURE" script -i "$T/$tag.data" >"$T/$tag.script" ||
		fail "$py: script $tag"
}

check() {
	py=$1
	t=$2
	extra=
	rounds=20
	case ${py##*/} in
	python3.1[3-9]) ;;
	*)
		run futex-$t -e lock
		same futex "wait_lock's futex waits" "$(prog count wait_lock)" \
			$(at_line "$T/futex-$t.script" \
			  "kind=futex addr=$(prog addr wait_lock) " wait_lock \
			  "$(prog line wait_lock)" "futex.<locals>.<lambda>" \
			  PyThread_acquire_lock_timed)
		;;
	esac
	run pthread-$t -e lock:pthread
	same pthread "wait_mutex's pthread waits" \
		"$(prog count wait_mutex)" $(at_line "$T/pthread-$t.script" \
		"kind=pthread addr=$(prog addr wait_mutex) " wait_mutex \
		"$(prog line wait_mutex)" \
		"pthread.<locals>.<lambda>" pthread_mutex_lock)

	rounds=4
	run mem-$t -e mem
	set -- $(at_line "$T/mem-$t.script" " mem: " alloc_big \
		"$(prog line alloc_big)" mem __memset) \
		$(at_line "$T/mem-$t.script" " mem: " alloc_small \
		"$(prog line alloc_small)" mem __memset)
	big=$(prog count alloc_big)
	small=$(prog count alloc_small)
	echo "$py: mem: alloc_big $1, alloc_small $3 of $2 samples;" \
		"faults $big and $small"
	[ "$1" -ge 50 ] && [ "$3" -ge 20 ] ||
		fail "$py: mem: alloc_big $1, alloc_small $3 samples at" \
			"their lines"
	within "$(echo "$1 $3 $big $small" | awk '{
		print 100 * $1 / ($1 + $2) - 100 * $3 / ($3 + $4) }')" -5 5 ||
		fail "$py: mem: alloc_big's share of the samples is not its" \
			"share of the faults"

	rounds=20
	extra="$WL drv"
	run gpu-drv-$t -e gpu --cuda-lib "$WL/libcuda.so.1"
	same gpu-drv "launch_drv's launches" "$(prog count launch_drv)" \
		$(at_line "$T/gpu-drv-$t.script" " gpu: py_kernel " launch_drv \
		"$(prog line launch_drv)" gpu ffi_call)
	extra="$WL rt"
	run gpu-rt-$t -e gpu --cuda-lib "$WL/libcudart.so.12"
	same gpu-rt "launch_rt's launches" "$(prog count launch_rt)" \
		$(at_line "$T/gpu-rt-$t.script" \
		" gpu: cudaDeviceSynchronize " launch_rt \
		"$(prog line launch_rt)" gpu ffi_call)
	ran=$((ran + 1))
}

each_python
python_done
