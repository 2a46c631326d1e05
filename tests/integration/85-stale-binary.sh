#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The integration runner refuses a binary older than the sources (make
# O=DIR tests, then the runner with another directory) and a missing one,
# instead of testing code that is not the code in the tree.
. tests/integration/lib.sh

mkdir -p "$T/b"
printf '#!/bin/sh\nexit 0\n' >"$T/b/aperture"
chmod +x "$T/b/aperture"
touch -d '2000-01-01' "$T/b/aperture"
out=$(APERTURE_TEST=no-such-test sh tests/run-integration.sh "$T/b" 2>&1) &&
	fail "a binary from 2000 was run: $out"
echo "$out" | grep -q "^FAIL: $T/b/aperture is older than .*: run make O=$T/b tests\$" ||
	fail "stale binary: $out"

touch "$T/b/aperture"
out=$(APERTURE_TEST=no-such-test sh tests/run-integration.sh "$T/b" 2>&1) ||
	fail "a fresh binary was refused: $out"
echo "$out" | grep -q "^integration: 0 passed, 0 failed, 0 skipped\$" ||
	fail "fresh binary: $out"

rm "$T/b/aperture"
out=$(APERTURE_TEST=no-such-test sh tests/run-integration.sh "$T/b" 2>&1) &&
	fail "no binary, yet the runner went on: $out"
echo "$out" | grep -q "^FAIL: no $T/b/aperture: run make O=$T/b tests\$" ||
	fail "missing binary: $out"
echo "PASS: stale and missing binaries refused"
