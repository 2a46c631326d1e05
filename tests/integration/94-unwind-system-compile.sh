#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record -a while g++ compiles: the compiler's processes start during the
# recording and cc1plus's table is half a million rows (a compile under
# -a once had 11 % of its stacks whole: the rows were full, and the
# tables of short-lived processes came too late).  On the second run,
# with the tables kept from the first, at least 95 % of cc1plus's samples
# have its whole chain (__libc_start_call_main;main): 99 % here, where
# perf record -a --call-graph dwarf got 86 % of the 154 samples it kept
# (the first run, which builds cc1plus's 518,000 rows while it runs: 97-98
# % under a busy loop per CPU since cfi.c runs the CFA programs itself,
# 85 % before; printed, not judged); the header states the kernel memory
# the unwinder may take.
. tests/integration/lib.sh
need_bpf
need_cmd g++

cat >"$T/big.cc" <<'EOC'
#include <map>
#include <regex>
#include <string>
#include <iostream>
int main()
{
	std::map<int, std::string> m;
	std::regex r("a+b*");
	m[1] = "aab";
	std::cout << std::regex_match(m[1], r) << "\n";
}
EOC
whole() {	# data file: "N OK", cc1plus samples and those with the chain
	"$APERTURE" report -i "$1" --format folded --user-only 2>/dev/null |
		awk '$0 ~ /^cc1plus;/ { n += $NF
			if ($0 ~ /;__libc_start_call_main;main;/) ok += $NF }
			END { print n + 0, ok + 0 }'
}
for run in first second; do
	"$APERTURE" record -a -F 499 -o "$T/$run.data" -- \
		g++ -O0 -c "$T/big.cc" -o "$T/big.o" >/dev/null 2>"$T/$run.err" ||
		fail "record: $(cat "$T/$run.err")"
	set -- $(whole "$T/$run.data")
	echo "$run run: $2 of $1 cc1plus samples with the whole chain"
done
[ "$1" -ge 100 ] || fail "too few cc1plus samples: $1"
[ $(($2 * 100)) -ge $(($1 * 95)) ] ||
	fail "$2 of $1 cc1plus samples with the whole chain, want 95 %"
"$APERTURE" report -i "$T/second.data" --header 2>/dev/null | grep '^# unwind' |
	grep -q '; kernel memory at most [0-9.]* MiB$' ||
	fail "no kernel memory in the header: $("$APERTURE" report -i "$T/second.data" --header | grep '^# unwind')"
exit 0
