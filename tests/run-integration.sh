#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs tests/integration/NN-*.sh in order (NN: two digits or letters,
# a0- after 99-).  Exit 77 is a skip, which
# APERTURE_REQUIRE_BPF=1 turns into a failure; 78 (an optional tool that no
# package provides is missing) is always a skip.  Prints one closing line:
# "integration: N passed, N failed, N skipped".
build=${1:-build}
# a binary older than the sources it is built from is not the code under
# test (make O=DIR tests, then this script with another or no directory)
if [ ! -x "$build/aperture" ]; then
	echo "FAIL: no $build/aperture: run make O=$build tests" >&2
	exit 1
fi
for f in lib/*/*.[ch] cmd/*.[ch] bpf/*.[ch]; do
	if [ "$f" -nt "$build/aperture" ]; then
		echo "FAIL: $build/aperture is older than $f: run make O=$build tests" >&2
		exit 1
	fi
done
# report's debug cache in a directory of this run's, not the user's own
# ~/.cache (a test that checks the cache sets its own)
if [ -z "${APERTURE_DEBUG_CACHE:-}" ]; then
	APERTURE_DEBUG_CACHE=$(mktemp -d /tmp/aperture-debug-cache.XXXXXX) ||
		exit 1
	export APERTURE_DEBUG_CACHE
	trap 'rm -rf "$APERTURE_DEBUG_CACHE"' EXIT
fi
passed=0
failed=0
skipped=0
for t in tests/integration/[0-9a-z][0-9a-z]-*.sh; do
	[ -n "${APERTURE_TEST:-}" ] && case $t in *"$APERTURE_TEST"*) ;; *) continue ;; esac
	out=$(APERTURE_TEST_BUILD="$build" sh "$t" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS: $t"
	elif [ $rc -eq 78 ] ||
	     { [ $rc -eq 77 ] && [ "${APERTURE_REQUIRE_BPF:-0}" != 1 ]; }; then
		skipped=$((skipped + 1))
		echo "SKIP: $t: $(echo "$out" | grep '^SKIP' | head -1)"
	else
		failed=$((failed + 1))
		echo "FAIL: $t (exit $rc)"
		echo "$out" | sed 's/^/    /' | tail -40
	fi
done
echo "integration: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
