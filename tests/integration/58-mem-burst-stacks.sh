#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A burst of page faults that outruns the reader, then a slow phase, at
# --mem-density high: the slow phase's samples still have their own CFI
# stacks (>= 95 % complete from main), whatever the burst did to the
# reader.  (When each sample was paired with its stack after the fact, a
# reader 256 samples behind left every later sample on that CPU with the
# frame-pointer chain, which misses the callers of this frameless code.)
# The header's unwind line and the samples agree, with -q too.
. tests/integration/lib.sh
need_bpf
need_cmd python3

W="$WL/nofp_chains"
"$APERTURE" record -q -e mem --mem-density high -o "$T/b.data" -- \
	"$W" burst 2 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" report -i "$T/b.data" --events mem --format folded \
	>"$T/b.folded" || fail "report"

# weight of the lines ending in leaf $1, and of those with chain $2
share() {
	awk -v leaf=";$1( |$)" -v want="$2" '$0 ~ leaf { n = $NF;
		all += n; if ($0 ~ want) ok += n }
		END { printf "%d %.1f", all, all ? 100 * ok / all : 0 }' "$T/b.folded"
}

set -- $(share leaf_touch 'main;mode_burst;chain_fault;leaf_touch( |$)')
echo "burst: weight $1, complete $2 %"
[ "$1" -ge 100000 ] || fail "burst: $1 faults sampled, want most of 262144"
set -- $(share leaf_slow 'main;mode_burst;slow_phase;leaf_slow( |$)')
echo "slow phase: weight $1, complete $2 %"
# 16 faults a millisecond for 2 s, loaded machine or not: well over 1600
[ "$1" -ge 1600 ] || fail "slow phase: $1 faults sampled"
within "$2" 95 100 || {
	grep ';leaf_slow' "$T/b.folded" | sort -k2 -nr | head -5 | cut -c1-300
	fail "slow phase: complete in $2 % of the samples, want >= 95"
}

# what the header says of the stacks is what the samples have: every
# mem sample's stack was unwound, and the lost ones are counted
"$APERTURE" report -i "$T/b.data" --format json >"$T/b.json" || fail "json"
python3 - "$T/b.json" <<'PY' || fail "header counts"
import json, sys
d = json.load(open(sys.argv[1]))
u, m = d["header"]["unwind"], d["mem"]
print("stacks", u["stacks"], "complete", u["complete"], "mem samples",
      m["samples"], "lost", m["lost"], "header lost", d["header"]["lost"])
assert u["method"] == "cfi"
# one unwound stack per sample sent (and per one lost in the ring), the
# header's share of complete ones the samples' own
assert m["samples"] <= u["stacks"] <= m["samples"] + m["lost"], (u, m)
assert u["complete"] >= 0.95 * u["stacks"], u
assert d["header"]["lost"] >= m["lost"]
PY
exit 0
