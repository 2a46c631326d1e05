#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Chains through the dynamic loader's lazy binding: a no-FP program linked
# -z lazy, run with LD_BIND_NOT=1 so that every call of labs() goes through
# the PLT into _dl_runtime_resolve_xsavec, which realigns the stack and
# keeps the old rsp in rbx (its CFA is rbx+32).  The unwinder follows rbx
# (from the registers at the leaf, from where a frame saved it above), so
# samples in the resolver and in _dl_fixup under it reach main and _start
# in at least 95 %: 0 % before (the walk fell back to frame pointers).
. tests/integration/lib.sh
need_bpf
need_cmd cc

cat >"$T/lazy.c" <<'EOC'
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) static long resolve_loop(double secs)
{
	struct timespec a, b;
	long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 1000; i++)
			n += labs(-i);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return n;
}
int main(int argc, char **argv)
{
	return resolve_loop(argc > 1 ? atof(argv[1]) : 1) == 42;
}
EOC
cc -O2 -fomit-frame-pointer -fno-builtin -fno-optimize-sibling-calls \
	-Wl,-z,lazy -o "$T/lazy" "$T/lazy.c" || fail "cc"

LD_BIND_NOT=1 "$APERTURE" record -F 999 -o "$T/l.data" -- "$T/lazy" 1.5 \
	>/dev/null 2>"$T/l.err" || fail "record: $(cat "$T/l.err")"
"$APERTURE" report -i "$T/l.data" --format folded >"$T/l.folded" ||
	fail "report"
# "N OK": samples under the resolver, those whose chain is whole
set -- $(awk '/;_dl_runtime_resolve/ { n += $NF
	if ($0 ~ /^lazy;_start;([^;]*;)*main;resolve_loop;_dl_runtime_resolve/)
		ok += $NF }
	END { print n + 0, ok + 0 }' "$T/l.folded")
echo "$2 of $1 samples under _dl_runtime_resolve reach main and _start"
[ "$1" -ge 50 ] || fail "too few samples in the resolver: $1"
[ $(($2 * 100)) -ge $(($1 * 95)) ] || {
	grep ';_dl_runtime_resolve' "$T/l.folded" | grep -v ';main;' |
		sort -k2 -nr | head -5 | cut -c1-300
	fail "$2 of $1 whole, want 95 %"
}
# below the resolver too: _dl_fixup's own frame restores rbx
grep -q '^lazy;_start;.*;main;resolve_loop;_dl_runtime_resolve[^;]*;_dl_fixup' \
	"$T/l.folded" || fail "no whole chain through _dl_fixup"
exit 0
