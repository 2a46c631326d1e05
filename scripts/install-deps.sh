#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Installs what aperture needs to build and test, and only what is missing
# (pkg-config and command -v decide).  Debian and Ubuntu: apt-get.  Also
# mounts tracefs and bpffs when they are absent (needs root).
set -e

pkgs=""
need_pc() {	# pkg-config name, Debian package
	pkg-config --exists "$1" 2>/dev/null || pkgs="$pkgs $2"
}
need_cmd() {	# command, Debian package
	command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || pkgs="$pkgs $2"
}

need_cmd pkg-config pkg-config
if command -v pkg-config >/dev/null 2>&1; then
	need_pc libbpf libbpf-dev
	need_pc libelf libelf-dev
	need_pc libdw libdw-dev
	need_pc zlib zlib1g-dev
	need_pc libprotobuf-c libprotobuf-c-dev
	need_pc capstone libcapstone-dev
	# aperture push: HTTP(S) to Pyroscope and Parca
	need_pc libcurl libcurl4-openssl-dev
	need_pc check check
else
	pkgs="$pkgs libbpf-dev libelf-dev libdw-dev zlib1g-dev libprotobuf-c-dev libcapstone-dev libcurl4-openssl-dev check"
fi
# the demangler (C++, Rust, D): an archive with no pkg-config file
[ -r /usr/include/libiberty/demangle.h ] || pkgs="$pkgs libiberty-dev"
need_cmd cc gcc
need_cmd g++ g++
need_cmd make make
need_cmd clang clang
need_cmd llvm-strip llvm
need_cmd bpftool bpftool
# sys/sdt.h: the USDT probes of libaperture-cupti.so (GPU device times)
[ -r /usr/include/sys/sdt.h ] || [ -r "/usr/include/$(gcc -print-multiarch 2>/dev/null)/sys/sdt.h" ] ||
	pkgs="$pkgs systemtap-sdt-dev"
need_cmd protoc-c protobuf-c-compiler
# tests: protoc --decode reads the pprof export as a proto3 parser does
need_cmd protoc protobuf-compiler
# tests: the peers aperture is compared with, and a terminal for top
need_cmd perf linux-perf
need_cmd strace strace
need_cmd tmux tmux
need_cmd readelf binutils
# tests: a debug file that shares a dwz file
need_cmd dwz dwz
# tests: a local debuginfod server for report's last lookup step
need_cmd debuginfod debuginfod
need_cmd python3 python3
# tests: report --format json against its JSON Schema (a first python3 on
# PATH, pyenv's, may have its own)
python3 -c 'import jsonschema' 2>/dev/null ||
	/usr/bin/python3 -c 'import jsonschema' 2>/dev/null ||
	pkgs="$pkgs python3-jsonschema"
need_cmd bash bash
# tests: the man pages pass mandoc -Tlint; script(1) gives a terminal
need_cmd mandoc mandoc
need_cmd script bsdutils
# tests: the consumers of the exports
need_cmd go golang-go
need_cmd xmllint libxml2-utils
need_cmd chromium chromium
[ -x /usr/sbin/offcputime ] || pkgs="$pkgs libbpf-tools"
# tests: lock:pthread probes glibc's static slow paths, named by its
# debug symbols
if command -v dpkg >/dev/null 2>&1 && dpkg -s libc6 >/dev/null 2>&1; then
	dpkg -s libc6-dbg >/dev/null 2>&1 || pkgs="$pkgs libc6-dbg"
fi
# tests: --user creates a user; the fuzzer needs clang's libFuzzer
need_cmd useradd passwd
need_cmd runuser util-linux
if command -v clang >/dev/null 2>&1; then
	[ -f "$(clang --print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-$(uname -m).a" ] ||
		pkgs="$pkgs libclang-rt-dev"
else
	pkgs="$pkgs libclang-rt-dev"
fi

if [ -n "$pkgs" ]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "aperture: missing:$pkgs; install them with your package manager (this script knows apt-get only)" >&2
		exit 1
	fi
	if [ "$(id -u)" -ne 0 ]; then
		echo "aperture: missing:$pkgs; run 'sudo make deps' or install them" >&2
		exit 1
	fi
	echo "aperture: installing:$pkgs"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
fi

# tests: speedscope's own file-format schema, from its npm package (test
# 71 validates the export against it; without it, by hand)
if [ "$(id -u)" -eq 0 ] && command -v npm >/dev/null 2>&1 &&
   [ ! -r "$(npm root -g 2>/dev/null)/speedscope/dist/release/file-format-schema.json" ]; then
	npm install -g --no-fund --no-audit speedscope@1.25.0 >/dev/null 2>&1 ||
		echo "aperture: npm install -g speedscope failed: test 71 checks the speedscope export by hand" >&2
fi

if [ "$(id -u)" -eq 0 ]; then
	if [ ! -e /sys/kernel/tracing/events ] && [ -d /sys/kernel/tracing ]; then
		mount -t tracefs nodev /sys/kernel/tracing || true
	fi
	if ! mount | grep -q ' /sys/fs/bpf type bpf'; then
		mount -t bpf bpf /sys/fs/bpf 2>/dev/null || true
	fi
fi
exit 0
