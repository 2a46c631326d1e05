#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report and script of stored recordings are byte for byte what they were
# when tests/golden/expected was written (tests/golden/run.sh): a change
# of an output is made on purpose, with `run.sh APERTURE update`, in the
# commit that changes it.
. tests/integration/lib.sh
sh tests/golden/run.sh "$APERTURE" check || fail "golden outputs differ"
exit 0
