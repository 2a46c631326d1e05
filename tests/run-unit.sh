#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs each Check unit binary given; CK_* environment variables pass
# through (CK_VERBOSITY, CK_RUN_SUITE, CK_FORK=no).  Prints one closing
# line: "unit: N passed, N failed".
build=$1
shift
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
passed=0
failed=0
for t in "$@"; do
	if APERTURE_TEST_BUILD="$build" "$t"; then
		passed=$((passed + 1))
	else
		echo "FAIL: $t" >&2
		failed=$((failed + 1))
	fi
done
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
