#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: profile the bundled workload and print the report.
set -e
BUILD=${1:-build}
out=$(mktemp -d /tmp/aperture-demo.XXXXXX)
trap 'rm -rf "$out"' EXIT
echo "\$ aperture record -F 999 -- cpu_split 2    # 60/30/10 % in burn_60/30/10"
"$BUILD/aperture" record -F 999 -o "$out/demo.data" -- "$BUILD/tests/workloads/cpu_split" 2
echo
echo "\$ aperture report --limit 12"
"$BUILD/aperture" report -i "$out/demo.data" --limit 12
echo
echo "\$ aperture report --format folded | sort -k2 -nr | head -3"
"$BUILD/aperture" report -i "$out/demo.data" --format folded | sort -t' ' -k2 -nr | head -3
