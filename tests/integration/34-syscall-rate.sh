#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load: 2 threads at 125k read+write calls/s each (250k/s in all, 2 s):
# every call recorded, none lost.  Then flat out (well over 200k/s on two
# shared cores): whatever cannot be kept is counted, never silently
# missing: recorded + lost covers every call made.
. tests/integration/lib.sh
need_bpf
need_cmd python3

N=125000
"$APERTURE" record -e syscall -o "$T/r.data" -- \
	"$WL/syscall_exact" $N 0 2 125000 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
cat "$T/rec.err"
"$APERTURE" report -i "$T/r.data" --events syscall --format json >"$T/json" ||
	fail "report"
python3 - "$T/json" $N <<'PY' || fail "paced run"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
sc = d["syscall"]
rows = {r["syscall"]: r for r in sc["rows"]}
rw = rows["read"]["calls"] + rows["write"]["calls"]
dur = d["header"]["duration_s"]
print("paced: read %d write %d in %.2f s: %.0f calls/s; lost: table %d, ring buffer %d"
      % (rows["read"]["calls"], rows["write"]["calls"], dur, rw / dur,
         sc["lost_table"], sc["lost_ringbuf"]))
assert rows["read"]["calls"] == 2 * n and rows["write"]["calls"] == 2 * n
assert sc["lost_table"] == 0 and sc["lost_ringbuf"] == 0
assert rw / dur >= 200000, "under 200k calls/s: %.0f" % (rw / dur)
PY

N=400000
"$APERTURE" record -e syscall -o "$T/f.data" -- "$WL/syscall_exact" $N 0 2 \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
cat "$T/rec.err"
"$APERTURE" report -i "$T/f.data" --events syscall >"$T/table" || fail "report"
"$APERTURE" report -i "$T/f.data" --events syscall --format json >"$T/json" ||
	fail "report json"
python3 - "$T/json" $N <<'PY' || fail "flat-out run"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
sc = d["syscall"]
rows = {r["syscall"]: r for r in sc["rows"]}
rw = rows["read"]["calls"] + rows["write"]["calls"]
every = sum(r["calls"] + r["in_flight"] for r in sc["rows"])
lost = sc["lost_ringbuf"] + sc["lost_table"]
dur = d["header"]["duration_s"]
print("flat out: %d of %d read+write calls in %.2f s (%.0f calls/s), %d lost"
      % (rw, 4 * n, dur, (every + lost) / dur, lost))
# the other calls (start-up, exit) are a few dozen
assert rw <= 4 * n and 4 * n <= every + lost <= 4 * n + 100, (rw, every, lost)
PY
lost=$(awk '/^# Lost:/ { print $8 }' "$T/table")
grep -q "^aperture: .* $lost lost" "$T/rec.err" ||
	fail "summary line does not show the $lost lost records"
exit 0
