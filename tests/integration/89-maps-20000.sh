#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One user's process with 20,000 executable mappings (one file mapped
# again and again) whose stack points outside all of them, beside a root
# workload, under record -a.  What the mappings cost the recorder stays
# bounded by files, not by mappings or scans: the file's build-id read
# and its unwind table built a few times at most, the unwinder's mirror
# of the process written a few hundred times at most (it holds 4096
# mappings; when it held 256, each mapping past them rewrote it: 20,000
# writes of 256 entries, and record -a -d 5 ran 132 s), its heap by the mappings'
# paths as long as they are (4 KiB each took 85 MB), and the root
# workload's calls are all there, none of them lost.
. tests/integration/lib.sh
need_bpf
need_cmd setpriv
need_cmd python3

n=20000
N=50000
[ "$(cat /proc/sys/vm/max_map_count)" -gt $((n + 1000)) ] ||
	skip_tool "vm.max_map_count $(cat /proc/sys/vm/max_map_count) is below $n mappings"
nobody_dir
cp "$WL/many_maps" "$T/u/many_maps" && chmod 755 "$T/u/many_maps"
cp "$WL/cpu_split" "$T/u/lib_x" && chmod 644 "$T/u/lib_x"

setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$T/u/many_maps" $n "$T/u/lib_x" "$T/u/ready" &
mm=$!
trap 'kill $mm 2>/dev/null; rm -rf "$T"' EXIT
while [ ! -e "$T/u/ready" ]; do
	kill -0 $mm 2>/dev/null || fail "many_maps did not start"
	sleep 0.1
done

# the command: the root workload, then a second of many_maps's CPU time
# recorded after it, so that its samples (and its mappings) are in
cat >"$T/run.sh" <<EOF
"$WL/syscall_exact" $N 0 &
echo \$! >"$T/pid"
wait \$! || exit 1
t0=\$(awk '{ print \$14 + \$15 }' /proc/$mm/stat)
while [ \$((\$(awk '{ print \$14 + \$15 }' /proc/$mm/stat) - t0)) -lt $(getconf CLK_TCK) ]; do
	sleep 0.1
done
EOF
"$APERTURE" record -v -a -e cpu,syscall -o "$T/m.data" \
	-- sh "$T/run.sh" 2>"$T/rec.err" ||
	fail "record: $(grep -v '^libbpf' "$T/rec.err")"
pid=$(cat "$T/pid")
line=$(grep '^aperture: recorder:' "$T/rec.err") || fail "no counters: $(grep -v '^libbpf' "$T/rec.err")"
echo "$line"
grep '^aperture: [0-9]* samples' "$T/rec.err"
# N of "N what" in the counters line
count() { echo "$line" | sed -n "s/.* \([0-9][0-9]*\) $1.*/\1/p"; }
[ "$(count 'mappings beyond the mirror')" -ge $((n - 4096)) ] ||
	fail "the recorder saw $(count 'mappings beyond the mirror') of many_maps's $n mappings past the mirror"
# bounds by file and by process, whatever else the machine runs: the
# 20,000 mappings once cost 20,000 build-id reads and as many mirror
# writes of one process
[ "$(count 'build-id reads')" -lt 2000 ] || fail "build-id reads: $line"
[ "$(count 'table builds')" -lt 2000 ] || fail "table builds: $line"
one() { echo "$line" | sed -n "s/.*$1 (at most \([0-9][0-9]*\) of one process).*/\1/p"; }
[ "$(one 'mirror updates')" -lt 1000 ] || fail "mirror updates: $line"
[ "$(one 'maps scans')" -lt 200 ] || fail "maps scans: $line"
# what the recorder holds besides the kernel's symbols: each mapping
# kept its path's 4 KiB (20,000 of them: 85 MB of heap, RSS 103 MB)
mem=$(grep '^aperture: memory:' "$T/rec.err") || fail "no memory line"
echo "$mem"
set -- $(echo "$mem" | sed -n 's/.* \([0-9]*\) kB of heap in use, \([0-9]*\) kB of kernel symbols.*/\1 \2/p')
[ $# -eq 2 ] || fail "memory line not understood: $mem"
[ $(($1 - $2)) -lt 24576 ] ||
	fail "the recorder holds $(($1 - $2)) kB besides the kernel symbols, 24 MiB or more"

"$APERTURE" report -i "$T/m.data" --events syscall --pid "$pid" \
	>"$T/root" 2>"$T/rep.err" || fail "report --pid: $(cat "$T/rep.err")"
r=$(awk '$1 == "read" { print $2 }' "$T/root")
w=$(awk '$1 == "write" { print $2 }' "$T/root")
echo "syscall_exact (pid $pid): read $r, write $w of $N"
[ "$r" = $N ] && [ "$w" = $N ] || fail "root's calls: read $r, write $w of $N"

# many_maps was sampled, its stacks ended outside the mappings, and
# nothing of root's workload was lost (counted by process)
"$APERTURE" report -i "$T/m.data" --format json >"$T/json" 2>"$T/rep.err" ||
	fail "report json: $(cat "$T/rep.err")"
"$APERTURE" report -i "$T/m.data" --events cpu --pid $mm --format folded \
	>"$T/mm" 2>"$T/rep.err" || fail "report --pid $mm: $(cat "$T/rep.err")"
# its stacks start (root first) at many_maps_spin: the return address
# above it points nowhere
head -3 "$T/mm"
[ -s "$T/mm" ] || fail "no samples of many_maps"
awk -F';' '$2 !~ /^many_maps_spin( |$)/ { bad = 1 } END { exit bad }' "$T/mm" ||
	fail "many_maps's stacks: $(awk -F';' '$2 !~ /^many_maps_spin/' "$T/mm" | head -3)"
python3 - "$T/json" "$pid" <<'EOF' || fail "losses"
import json, sys
h = json.load(open(sys.argv[1]))["header"]
pid = int(sys.argv[2])
assert not [p for p in h["lost_by_process"] if p["pid"] == pid], \
    "root's workload lost: %s" % h["lost_by_process"]
EOF
exit 0
