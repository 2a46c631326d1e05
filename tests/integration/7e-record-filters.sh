#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record's perf filters, applied in BPF, on workloads whose thread, CPU,
# user and cgroup are known: -t TID (one thread of three), -C CPU (two
# copies pinned to different CPUs), -u USER (a copy run as nobody) and
# -G CGROUP (a copy moved into a fresh cgroup v2).  Every workload runs
# until it is killed, so that no check depends on how fast record starts.
. tests/integration/lib.sh
need_bpf
need_cmd python3
need_cmd taskset
need_cmd setpriv

pids=""
cg=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

# pids and tids of one recording's rows as "pid/tid", of the processes
# given (system-wide recordings also hold other engineers' runs)
who() {
	"$APERTURE" report -i "$1" ${2:+--pid "$2"} --sort pid,tid --format json |
		python3 -c '
import json, sys
rows = json.load(sys.stdin)["cpu"]["rows"]
print(" ".join(sorted({"%d/%d" % (r["pid"], r["tid"]) for r in rows})))'
}

# -t: one thread of a three-thread process
"$WL/cpu_split" 600 3 & p=$!; pids="$pids $p"
i=0
while [ "$(ls /proc/$p/task | wc -l)" -lt 3 ] && [ $i -lt 500 ]; do
	sleep 0.01; i=$((i + 1))
done
tid=$(ls /proc/$p/task | sort -n | tail -1)
[ "$tid" != "$p" ] || fail "no second thread in $p"
"$APERTURE" record -q -t "$tid" -d 1 -o "$T/t.data" 2>"$T/err" ||
	fail "record -t: $(cat "$T/err")"
got=$(who "$T/t.data")	# every row: nothing else is recorded
[ "$got" = "$p/$tid" ] || fail "-t $tid recorded '$got', want $p/$tid"
"$APERTURE" report -i "$T/t.data" >"$T/t.table" || fail "report -t"
grep -q "^# target  : pid $p, threads $tid$" "$T/t.table" ||
	fail "-t: header $(grep target "$T/t.table")"
"$APERTURE" record -t 999999999 -d 1 -o "$T/x.data" 2>"$T/err" && fail "-t 999999999 accepted"
grep -q "no such thread: 999999999" "$T/err" || fail "-t bad: $(cat "$T/err")"
kill $p

# -C: two copies on two CPUs, recorded on the last CPU only (alone:
# system-wide on it)
if [ "$(nproc)" -ge 2 ]; then
	last=$(($(nproc) - 1))
	taskset -c 0 "$WL/cpu_split" 600 & p0=$!
	taskset -c $last "$WL/cpu_split" 600 & p1=$!
	pids="$pids $p0 $p1"
	"$APERTURE" record -q -C $last -d 1 -o "$T/c.data" 2>"$T/err" ||
		fail "record -C: $(cat "$T/err")"
	got=$(who "$T/c.data" "$p0,$p1")
	[ "$got" = "$p1/$p1" ] || fail "-C $last recorded '$got', want $p1/$p1 (not $p0)"
	"$APERTURE" report -i "$T/c.data" --sort cpu --format json | python3 -c '
import json, sys
rows = json.load(sys.stdin)["cpu"]["rows"]
assert rows and all(r["cpu"] == int(sys.argv[1]) for r in rows), rows' $last ||
		fail "-C $last: samples of other CPUs"
	kill $p0 $p1
fi
"$APERTURE" record -C 0-100000 -d 1 -o "$T/x.data" 2>"$T/err" && fail "-C 0-100000 accepted"
grep -q "bad CPU list '0-100000': this machine has CPUs 0 to" "$T/err" ||
	fail "-C bad: $(cat "$T/err")"

# -u: a copy as nobody, one as root; -u nobody keeps the first
setpriv --reuid=nobody --regid=nogroup --clear-groups "$WL/cpu_split" 600 & pn=$!
"$WL/cpu_split" 600 & pr=$!
pids="$pids $pn $pr"
"$APERTURE" record -q -u nobody -d 1 -o "$T/u.data" 2>"$T/err" ||
	fail "record -u: $(cat "$T/err")"
got=$(who "$T/u.data" "$pn,$pr")
[ "$got" = "$pn/$pn" ] || fail "-u nobody recorded '$got', want $pn/$pn (not $pr)"
kill $pn $pr

# -G: a copy moved into a new cgroup v2
mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$mnt" ] || skip "no cgroup v2 hierarchy mounted"
cg="$mnt/aperture-test-$$"
mkdir "$cg" || fail "mkdir $cg"
"$WL/cpu_split" 600 & pc=$!
"$WL/cpu_split" 600 & po=$!
pids="$pids $pc $po"
echo $pc >"$cg/cgroup.procs" || fail "moving $pc into $cg"
"$APERTURE" record -q -G "aperture-test-$$" -d 1 -o "$T/g.data" 2>"$T/err" ||
	fail "record -G: $(cat "$T/err")"
got=$(who "$T/g.data")	# every row: nothing else is in the cgroup
[ "$got" = "$pc/$pc" ] || fail "-G recorded '$got', want $pc/$pc (not $po)"
"$APERTURE" record -q -G "$cg" -d 1 -o "$T/g2.data" 2>"$T/err" ||
	fail "record -G PATH: $(cat "$T/err")"
[ "$(who "$T/g2.data")" = "$pc/$pc" ] || fail "-G $cg: $(who "$T/g2.data")"
"$APERTURE" record -G no-such-cgroup-$$ -d 1 -o "$T/x.data" 2>"$T/err" &&
	fail "-G no-such-cgroup accepted"
grep -q "no such cgroup: 'no-such-cgroup-$$'" "$T/err" || fail "-G bad: $(cat "$T/err")"
kill $pc $po
exit 0
