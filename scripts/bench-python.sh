#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, Python section: a CPU loop 22 Python calls deep (it times
# itself), alone and under aperture record -e cpu (Python frames), under
# aperture record with the same interpreter copied to a name that is not
# python3.X (not detected: native frames only, no walker) and under perf
# record -g; the slowdown of each (best of 3), bytes per sample and, for
# aperture, the share of samples whose stack has the Python leaf.  On
# Debian's /usr/bin/python3.11 (the interpreter in the executable, so a
# copy is the same code) and pyenv's 3.10 (PyFrameObjects; the
# interpreter is in libpython3.10.so: no copy row).  py-spy, the usual
# peer, is compared where it is on PATH.
# Env from scripts/bench.sh: BUILD, APERTURE, WL, B.
set -u
FREQ=999
ROUNDS=1000

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

cat >"$B/pyloop.py" <<'EOF'
import sys
import time

def leaf(n):
    x = 0
    for i in range(n):
        x += i * i
    return x

def deep(d, n):
    return deep(d - 1, n) if d else leaf(n)

t0 = time.perf_counter()
for r in range(int(sys.argv[1])):
    deep(20, 20000)
print("elapsed %.3f" % (time.perf_counter() - t0))
EOF

# the loop's own run time under a profiler given as arguments; best of 3
py_time() {
	best=
	for i in 1 2 3; do
		t=$("$@" 2>/dev/null | awk '/^elapsed/ { print $2 }')
		[ -n "$t" ] && best=$(min "$best" "$t")
	done
	echo "$best"
}

# a row: name, the loop alone's time, the command before the interpreter
# ($3 the data file, empty for none), the interpreter
row() {
	name=$1 base=$2 data=$3 py=$4
	shift 4
	t=$(py_time "$@" "$py" "$B/pyloop.py" $ROUNDS)
	bps=-
	if [ -n "$data" ]; then
		"$@" "$py" "$B/pyloop.py" $ROUNDS >/dev/null 2>"$B/py.err"
		n=$(awk '/samples,/ { print $2 } /\([0-9]* samples\)/ {
			s = $0; sub(/.*\(/, "", s); sub(/ samples.*/, "", s)
			print s }' "$B/py.err" | tail -1)
		[ -n "$n" ] && bps=$(ratio "$(stat -c %s "$data")" "$n")
	fi
	leaf=-
	if [ "$1" = "$APERTURE" ]; then
		leaf=$("$APERTURE" report -i "$data" --format folded |
			awk '{ all += $NF }
			     index($0, ";leaf (pyloop.py:") { n += $NF }
			     END { printf "%.1f%%", all ? 100 * n / all : 0 }')
	fi
	printf '%-44s %8s s  x%-6s %12s %8s\n' "$name" "${t:--}" \
		"$([ -n "$t" ] && ratio "$t" "$base" || echo -)" "$bps" "$leaf"
}

echo "== python: a loop 22 calls deep, $ROUNDS rounds, at $FREQ Hz" \
	"(best of 3) =="
printf '%-44s %10s  %-7s %12s %8s\n' "" "time" "slowdown" "bytes/sample" \
	"py leaf"
for py in /usr/bin/python3.11 \
	$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.10.*/bin/python3.10 \
	  2>/dev/null | head -1); do
	[ -x "$py" ] || { echo "$py: not installed"; continue; }
	base=$(py_time "$py" "$B/pyloop.py" $ROUNDS)
	[ -n "$base" ] || { echo "$py: the loop does not run"; continue; }
	echo "$py"
	printf '%-44s %8s s  x%-6s %12s %8s\n' "  alone" "$base" 1.00 - -
	row "  aperture record -e cpu (Python frames)" "$base" "$B/py.data" \
		"$py" "$APERTURE" record -e cpu -F $FREQ -o "$B/py.data" --
	if [ "$py" = /usr/bin/python3.11 ]; then
		# the same interpreter, by a name record does not look at
		cp "$py" "$B/pyplain"
		row "  aperture record -e cpu (native only)" "$base" \
			"$B/py.data" "$B/pyplain" "$APERTURE" record -e cpu \
			-F $FREQ -o "$B/py.data" --
	fi
	row "  perf record -g (native only)" "$base" "$B/perf.data" "$py" \
		perf record -F $FREQ -g -o "$B/perf.data" --
	if command -v py-spy >/dev/null; then
		row "  py-spy record --native" "$base" "" "$py" py-spy record \
			-r $FREQ --native -o "$B/spy.txt" -f raw --
	fi
done
command -v py-spy >/dev/null ||
	echo "py-spy: not on PATH (pip install py-spy needs the" \
		"network): no row"
