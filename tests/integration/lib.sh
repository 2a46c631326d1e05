# SPDX-License-Identifier: GPL-2.0
# Sourced by every integration test: paths, a scratch directory removed on
# exit, skip/fail helpers.  A test exits 0 (pass), 77 (skip) or other
# (fail); with APERTURE_REQUIRE_BPF=1 a skip is a failure.

BUILD=${APERTURE_TEST_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
APERTURE=$BUILD/aperture
WL=$BUILD/tests/workloads
T=$(mktemp -d /tmp/aperture-test.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
# record's unwind tables kept by build-id (aperture-record(1)): one cache
# a test, so that no test finds what another built
APERTURE_UNWIND_CACHE=$T/unwind-cache
export APERTURE_UNWIND_CACHE

skip() {
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*"
	exit 1
}

# the test needs root and a kernel that loads aperture's BPF object
need_bpf() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for BPF"
	[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF"
}

# a tool the test needs: scripts/install-deps.sh installs it, so its
# absence fails under APERTURE_REQUIRE_BPF like a missing BPF
need_cmd() {
	command -v "$1" >/dev/null 2>&1 || skip "needs $1"
}

# an optional tool that no package provides here (nvcc): its absence is a
# skip even in CI
skip_tool() {
	echo "SKIP: $*"
	exit 78
}

# $T/u, where a workload run as nobody (setpriv) finds its files and may
# write: $T is root's 0700 otherwise
nobody_dir() {
	chmod 711 "$T" && mkdir "$T/u" && chmod 1777 "$T/u" ||
		fail "cannot make $T/u"
}

# the build under test has ASan and UBSan (make SANITIZE=1): two to
# three times slower
sanitized() {
	grep -qa __asan_init "$APERTURE" 2>/dev/null
}

# float comparison: within LO HI
within() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}
