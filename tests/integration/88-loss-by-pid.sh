#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Losses are counted by the process that lost them.  record -a traces
# syscalls with an in-flight table of 1024 (--max-inflight): a root
# process makes its calls first (all counted), then 1500 threads of an
# unprivileged user go to sleep in pause(); at least 476 of their calls
# cannot enter the table.  Those losses are that process's (pid and start
# time), none are root's, the per-process counts add up to the totals,
# and the table header and record's summary line name the top loser.
. tests/integration/lib.sh
need_bpf
need_cmd setpriv
need_cmd python3

n=1500
max=1024
N=2000
nobody_dir
cp "$WL/sleepers" "$T/u/sleepers" && chmod 755 "$T/u/sleepers"

# the command starts once the probes are attached
cat >"$T/run.sh" <<EOF
"$WL/syscall_exact" $N 0 &
echo \$! >"$T/pid"
wait \$! || exit 1
setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$T/u/sleepers" $n "$T/u/ready" &
sl=\$!
echo \$sl >"$T/spid"
while [ ! -e "$T/u/ready" ]; do
	kill -0 \$sl 2>/dev/null || exit 1
	sleep 0.1
done
cut -d' ' -f22 /proc/\$sl/stat >"$T/sstart"
kill \$sl
EOF
"$APERTURE" record -a -e syscall --max-inflight $max -o "$T/l.data" \
	-- sh "$T/run.sh" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
pid=$(cat "$T/pid")
spid=$(cat "$T/spid")
sstart=$(cat "$T/sstart")
"$APERTURE" report -i "$T/l.data" --events syscall >"$T/table" \
	2>"$T/rep.err" || fail "report: $(cat "$T/rep.err")"
"$APERTURE" report -i "$T/l.data" --events syscall --format json \
	>"$T/json" 2>"$T/rep.err" || fail "report json: $(cat "$T/rep.err")"
grep -E '^# (dropped|lost by)' "$T/table"
tail -1 "$T/rec.err"

python3 - "$T/json" "$pid" "$spid" "$sstart" $n $max <<'EOF' ||
import json, sys
path, pid, spid, sstart, n, mx = sys.argv[1], *map(int, sys.argv[2:])
h = json.load(open(path))["header"]
want = sum(d["count"] for d in h["dropped"]
           if d["source"] == "table-full" and d["event"] == "syscall")
by = h["lost_by_process"]
got = sum(l["count"] for p in by for l in p["lost"]
          if l["source"] == "table-full" and l["event"] == "syscall")
# every kind of loss: the per-process counts add up to the totals
tot = {}
for p in by:
    for l in p["lost"]:
        k = (l["source"], l["event"])
        tot[k] = tot.get(k, 0) + l["count"]
    assert p["total"] == sum(l["count"] for l in p["lost"]), p
glob = {(d["source"], d["event"]): d["count"] for d in h["dropped"]}
glob[("ringbuf", "any")] = h["lost"]
glob[("kernel-stack", "any")] = h["kernel_stack_errors"]
glob[("user-stack", "any")] = h["user_stack_errors"]
for k, v in tot.items():
    assert glob.get(k, 0) == v, "%s: %d by process, %d in total" % (k, v, glob.get(k, 0))
assert got == want, "table-full syscall: %d by process, %d in total" % (got, want)
sl = [p for p in by if p["pid"] == spid and not p["beyond_table"]]
assert len(sl) == 1, "sleepers (pid %d) not among %s" % (spid, by)
sl = sl[0]
assert sl["start_ticks"] == sstart, "sleepers start %d, want %d" % (sl["start_ticks"], sstart)
assert sl["comm"] == "sleepers", sl["comm"]
lost = sum(l["count"] for l in sl["lost"] if l["source"] == "table-full" and l["event"] == "syscall")
assert lost >= n - mx, "sleepers lost %d, at least %d" % (lost, n - mx)
assert not [p for p in by if p["pid"] == pid], "root's syscall_exact lost: %s" % by
assert [p["total"] for p in by if not p["beyond_table"]] == sorted(
    [p["total"] for p in by if not p["beyond_table"]], reverse=True), "not most first"
top = [p for p in by if not p["beyond_table"]][0]
print("sleepers (pid %d) lost %d of %d table-full; top loser pid %d (%d)" %
      (spid, lost, want, top["pid"], top["total"]))
open(path + ".top", "w").write("%d %d %s\n" % (top["pid"], top["total"], top["comm"]))
EOF
	fail "losses by process"

"$APERTURE" report -i "$T/l.data" --events syscall --pid "$pid" \
	>"$T/root" 2>"$T/rep.err" || fail "report --pid: $(cat "$T/rep.err")"
r=$(awk '$1 == "read" { print $2 }' "$T/root")
w=$(awk '$1 == "write" { print $2 }' "$T/root")
[ "$r" = $N ] && [ "$w" = $N ] || fail "root's calls: read $r, write $w of $N"

# the header and the summary line name the top loser
read -r tpid ttotal tcomm <"$T/json.top"
grep '^# lost by' "$T/table" | grep -qF "# lost by : pid $tpid $tcomm:" ||
	fail "lost by line: $(grep '^# lost by' "$T/table"), want pid $tpid first"
tail -1 "$T/rec.err" | grep -q "most by pid [0-9]* .*: $ttotal)" ||
	fail "summary line: $(tail -1 "$T/rec.err"), want a loser of $ttotal"
exit 0
