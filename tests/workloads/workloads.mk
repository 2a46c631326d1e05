# SPDX-License-Identifier: GPL-2.0
# Per-workload flags, included by the main Makefile.

# symtest: the symbolizer test needs real inlining (-O2) and full DWARF
WORKLOAD_CFLAGS_symtest := -O2 -g

# inline_hot: its hot loop is an inlined function (rows vs inline frames)
WORKLOAD_CFLAGS_inline_hot := -O2 -g

# cxxsym: C++ names for the demangling test, built by the C++ compiler
CXX		?= g++
WORKLOAD_EXTRA	+= $(O)/tests/workloads/cxxsym
$(O)/tests/workloads/cxxsym: tests/workloads/cxxsym.cc
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -O2 -g -fno-omit-frame-pointer -o $@ $<

# syscall_exact: static, so that the dynamic loader's own read() calls do
# not blur the exact counts
WORKLOAD_CFLAGS_syscall_exact := -static

# gpu: stand-in CUDA runtime and driver libraries exporting the launch
# entry points with their real signatures (tests/workloads/fakecuda/), and
# the workloads that launch through them ($ORIGIN runpath: found next to
# them, as an application ships its CUDA libraries)
FAKECUDA_CFLAGS	:= -O1 -g -fPIC -shared -fno-omit-frame-pointer -Itests/workloads/fakecuda
WORKLOAD_EXTRA	+= $(O)/tests/workloads/libcuda.so.1 $(O)/tests/workloads/libcudart.so.12
$(O)/tests/workloads/libcuda.so.1: tests/workloads/fakecuda/cuda.c tests/workloads/fakecuda/fakecuda.h tests/workloads/fakecupti/fakecupti.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(FAKECUDA_CFLAGS) -Wl,-soname,libcuda.so.1 -o $@ $< -ldl -lpthread
$(O)/tests/workloads/libcudart.so.12: tests/workloads/fakecuda/cudart.c tests/workloads/fakecuda/fakecuda.h $(O)/tests/workloads/libcuda.so.1
	$(call msg,CC,$@)
	$(Q)$(CC) $(FAKECUDA_CFLAGS) -Wl,-soname,libcudart.so.12 -o $@ $< \
		-L$(@D) -l:libcuda.so.1 -Wl,-rpath,'$$ORIGIN'
$(O)/tests/workloads/gpu_launch: $(O)/tests/workloads/libcudart.so.12 $(O)/tests/workloads/libcuda.so.1
WORKLOAD_CFLAGS_gpu_launch := -Itests/workloads/fakecuda
WORKLOAD_LDLIBS_gpu_launch := -L$(O)/tests/workloads -l:libcudart.so.12 -l:libcuda.so.1 -Wl,-rpath,'$$ORIGIN'
WORKLOAD_CFLAGS_gpu_dlopen := -Itests/workloads/fakecuda
WORKLOAD_LDLIBS_gpu_dlopen := -ldl

# mem_touch: -O0 keeps a frame in every function, the leaf touch() that
# takes the page faults included, so folded stacks show the whole chain
WORKLOAD_CFLAGS_mem_touch := -O0

# nofp_chains: no frame pointers anywhere, as distro packages are built:
# only CFI unwinding gives its chains
WORKLOAD_CFLAGS_nofp_chains := -O2 -fomit-frame-pointer -momit-leaf-frame-pointer -fno-optimize-sibling-calls

# nofp_nocfi: the same program without .eh_frame for its own code (only
# the C runtime's start files bring some) and its .debug_frame moved into a
# separate debug file next to it, found by .gnu_debuglink, as a package
# built -fno-asynchronous-unwind-tables with a -dbg package would be
WORKLOAD_EXTRA	+= $(O)/tests/workloads/nofp_nocfi
$(O)/tests/workloads/nofp_nocfi: tests/workloads/nofp_chains.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) $(WORKLOAD_CFLAGS_nofp_chains) -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -o $@.tmp $<
	$(Q)objcopy --only-keep-debug $@.tmp $@.debug
	$(Q)objcopy --strip-debug --add-gnu-debuglink=$@.debug $@.tmp $@
	$(Q)rm -f $@.tmp

# nofp_zdwarf: the same without .eh_frame for its own code, its
# .debug_frame kept in the file and compressed (SHF_COMPRESSED, as Go's
# linker and ld --compress-debug-sections write it); nofp_zdebug: the
# .debug_frame in a separate debug file compressed by objcopy
WORKLOAD_EXTRA	+= $(O)/tests/workloads/nofp_zdwarf $(O)/tests/workloads/nofp_zdebug
$(O)/tests/workloads/nofp_zdwarf: tests/workloads/nofp_chains.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) $(WORKLOAD_CFLAGS_nofp_chains) -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -Wl,--compress-debug-sections=zlib -o $@ $<
$(O)/tests/workloads/nofp_zdebug: tests/workloads/nofp_chains.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) $(WORKLOAD_CFLAGS_nofp_chains) -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -o $@.tmp $<
	$(Q)objcopy --only-keep-debug --compress-debug-sections=zlib $@.tmp $@.debug
	$(Q)objcopy --strip-debug --add-gnu-debuglink=$@.debug $@.tmp $@
	$(Q)rm -f $@.tmp

# plt_ibt: the same program's PLT as -fcf-protection and -z ibtplt lay it
# out (the stubs in .plt.sec, endbr64 first, and a .plt.got), for the
# symbolizer's PLT names
WORKLOAD_EXTRA	+= $(O)/tests/workloads/plt_ibt
$(O)/tests/workloads/plt_ibt: tests/workloads/nofp_chains.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -fcf-protection=full -Wl,-z,ibtplt -o $@ $<

# gpu device times: the stand-in CUPTI (tests/workloads/fakecupti/),
# built against the toolkit's cupti.h where the injection library is
# built, in a directory of its own: a test puts it on LD_LIBRARY_PATH so
# that libaperture-cupti.so loads it instead of the real one
WORKLOAD_CFLAGS_gpu_device := -Itests/workloads/fakecuda
WORKLOAD_LDLIBS_gpu_device := -L$(O)/tests/workloads -l:libcudart.so.12 -l:libcuda.so.1 -Wl,-rpath,'$$ORIGIN'
$(O)/tests/workloads/gpu_device: $(O)/tests/workloads/libcudart.so.12 $(O)/tests/workloads/libcuda.so.1
ifneq ($(CUPTI_TARGETS),)
WORKLOAD_EXTRA	+= $(O)/tests/workloads/fakecupti/libcupti.so.13
$(O)/tests/workloads/fakecupti/libcupti.so.13: tests/workloads/fakecupti/cupti.c tests/workloads/fakecupti/fakecupti.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O1 -g -fPIC -shared -Wall -Wno-deprecated-declarations \
		-I$(CUPTI_INC) -Wl,-soname,libcupti.so.13 -o $@ $< -lpthread
endif

# plugin_swap: two plugins from one source (tests/workloads/plugin/), the
# same size, so that the second loads where the first was
PLUGIN_CFLAGS	:= -O1 -g -fPIC -shared -fno-omit-frame-pointer
WORKLOAD_EXTRA	+= $(O)/tests/workloads/plugin_alpha.so $(O)/tests/workloads/plugin_gamma.so
$(O)/tests/workloads/plugin_%.so: tests/workloads/plugin/plugin.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PLUGIN_CFLAGS) -DPLUGIN=$* -o $@ $<
WORKLOAD_LDLIBS_plugin_swap := -ldl

# srcline_hot: -O0, so that each marked line keeps its own instructions
# (the hot loops are one line each); mix() is inlined all the same
WORKLOAD_CFLAGS_srcline_hot := -O0 -g

# dlopen_many: one library without frame pointers (tests/workloads/dlopen/),
# which a test copies hundreds of times for the program to load
WORKLOAD_EXTRA	+= $(O)/tests/workloads/dlopen_lib.so
$(O)/tests/workloads/dlopen_lib.so: tests/workloads/dlopen/lib.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fPIC -shared -fomit-frame-pointer -o $@ $<
WORKLOAD_LDLIBS_dlopen_many := -ldl
