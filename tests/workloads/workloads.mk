# SPDX-License-Identifier: GPL-2.0
# Per-workload flags, included by the main Makefile.

# symtest: the symbolizer test needs real inlining (-O2) and full DWARF
WORKLOAD_CFLAGS_symtest := -O2 -g

# cxxsym: C++ names for the demangling test, built by the C++ compiler
CXX		?= g++
WORKLOAD_EXTRA	+= $(O)/tests/workloads/cxxsym
$(O)/tests/workloads/cxxsym: tests/workloads/cxxsym.cc
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -O2 -g -fno-omit-frame-pointer -o $@ $<
