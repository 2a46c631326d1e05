# SPDX-License-Identifier: GPL-2.0
#
# One build: bpf/*.bpf.c -> one linked BPF object -> skeleton -> lib -> aperture.
#   make            build ./aperture (objects under $(O), default build/)
#   make check      unit suites, then integration tests (need root)
#   make demo       install dependencies, build, profile a workload, report
#   make bench      aperture against perf on the same workloads
#   make fuzz       the report fuzzer for FUZZ_TIME seconds (default 300)
#   make SANITIZE=1 check   everything built with ASan and UBSan, in build-san
#   make install    PREFIX=/usr/local DESTDIR=
# V=1 shows the full commands.

VERSION		:= 0.1.0
ifeq ($(SANITIZE),1)
O		?= build-san
# float-cast-overflow is not in gcc's "undefined": a double too big for
# the integer it becomes (a hostile file's durations) must fail too
SAN_FLAGS	:= -fsanitize=address,undefined,float-cast-overflow \
		   -fno-sanitize-recover=undefined,float-cast-overflow \
		   -fno-omit-frame-pointer
# memory errors and undefined behaviour fail a test; what a command leaves
# allocated when it exits does not
export ASAN_OPTIONS ?= detect_leaks=0
export UBSAN_OPTIONS ?= print_stacktrace=1
endif
O		?= build
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
MANDIR		?= $(PREFIX)/share/man
LIBDIR		?= $(PREFIX)/lib
# libaperture-cupti.so, the CUDA injection library (inject/cupti.c)
APLIBDIR	?= $(LIBDIR)/aperture
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
# the JSON Schema of report --format json
DATADIR		?= $(PREFIX)/share/aperture
SYSTEMDDIR	?= $(PREFIX)/lib/systemd/system

CC		?= gcc
CLANG		?= clang
BPFTOOL		?= $(shell command -v bpftool || echo /usr/sbin/bpftool)
PKG_CONFIG	?= pkg-config
VMLINUX_BTF	?= /sys/kernel/btf/vmlinux

ARCH		:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

PKGS		:= libbpf libelf libdw zlib libprotobuf-c capstone libcurl
PKG_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS	:= $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lbpf -lelf -ldw -lz -lprotobuf-c -lcapstone -lcurl)
CHECK_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS	:= $(shell $(PKG_CONFIG) --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)

WARN		:= -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
CFLAGS		?= -O2 -g
ALL_CFLAGS	:= $(CFLAGS) $(SAN_FLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE \
		   -DAPERTURE_VERSION='"$(VERSION)"' \
		   -DAPERTURE_LIBDIR='"$(APLIBDIR)"' \
		   -iquote lib -iquote bpf -iquote $(O) $(PKG_CFLAGS) -MMD -MP
# -iquote: bpf/sched.h and friends must not hide the system's <sched.h>
# libiberty (demangling: C++, Rust, D) is an archive only (libiberty-dev)
LDLIBS		:= $(PKG_LIBS) -liberty -ldl -lpthread -lm
# the multiarch include directory: libbpf's usdt.bpf.h includes
# <linux/errno.h>, which wants <asm/errno.h>
MULTIARCH	:= $(shell $(CC) -print-multiarch 2>/dev/null)
BPF_CFLAGS	:= -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(O) -Ibpf \
		   $(if $(MULTIARCH),-idirafter /usr/include/$(MULTIARCH)) \
		   -Wall -Wno-unused-function -MMD -MP

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif

BPF_SRCS	:= $(sort $(wildcard bpf/*.bpf.c))
BPF_OBJS	:= $(patsubst bpf/%.bpf.c,$(O)/bpf/%.bpf.o,$(BPF_SRCS))
SKEL		:= $(O)/aperture.skel.h
LIB_SRCS	:= $(sort $(wildcard lib/*/*.c))
LIB_OBJS	:= $(patsubst %.c,$(O)/%.o,$(LIB_SRCS)) $(O)/lib/syscall_names.o \
		   $(O)/proto/profile.pb-c.o
PROTOC_C	?= protoc-c
CMD_OBJS	:= $(patsubst %.c,$(O)/%.o,$(sort $(wildcard cmd/*.c)))
LIBAP		:= $(O)/libaperture.a

UNIT_SRCS	:= $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRCS))
WORKLOAD_SRCS	:= $(sort $(wildcard tests/workloads/*.c))
WORKLOAD_BINS	:= $(patsubst tests/workloads/%.c,$(O)/tests/workloads/%,$(WORKLOAD_SRCS))
MANPAGES	:= $(sort $(wildcard man/*.1 man/*.5))

# The CUDA injection library needs CUPTI's headers and library (the CUDA
# toolkit: CUDA_HOME) and sys/sdt.h (systemtap-sdt-dev); without them it
# is not built and `record -e gpu` records host-side launches only.
CUDA_HOME	?= /usr/local/cuda
CUPTI_INC	?= $(firstword $(dir $(wildcard $(CUDA_HOME)/include/cupti.h $(CUDA_HOME)/extras/CUPTI/include/cupti.h)))
CUPTI_LIBDIR	?= $(firstword $(dir $(wildcard $(CUDA_HOME)/lib64/libcupti.so $(CUDA_HOME)/lib/libcupti.so $(CUDA_HOME)/extras/CUPTI/lib64/libcupti.so)))
HAVE_SDT	:= $(shell echo '\#include <sys/sdt.h>' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1)
CUPTI_LIB	:= $(O)/libaperture-cupti.so
ifneq ($(and $(CUPTI_INC),$(CUPTI_LIBDIR),$(HAVE_SDT)),)
CUPTI_TARGETS	:= $(CUPTI_LIB)
else
CUPTI_TARGETS	:=
CUPTI_MISSING	:= $(if $(CUPTI_INC),,cupti.h )$(if $(CUPTI_LIBDIR),,libcupti.so )$(if $(HAVE_SDT),,sys/sdt.h (systemtap-sdt-dev))
endif

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: cupti all clean check unit integration demo bench deps install uninstall tests \
	fuzz fuzz-build FORCE

all: aperture cupti

# always from the $(O) of this make: after a build in another O, ./aperture
# is newer than this one's binary and would otherwise stay the other build
aperture: $(O)/aperture FORCE
	$(Q)cmp -s $< $@ || cp $< $@

FORCE:

# next to ./aperture too: aperture looks for it beside its own binary
cupti: $(CUPTI_TARGETS)
ifneq ($(CUPTI_TARGETS),)
	$(Q)cp $(CUPTI_LIB) libaperture-cupti.so
else
	@echo "  SKIP     libaperture-cupti.so: missing $(strip $(CUPTI_MISSING)); GPU device times unavailable (CUDA_HOME=$(CUDA_HOME))"
endif

$(CUPTI_LIB): inject/cupti.c lib/gpu/clock.c lib/gpu/clock.h bpf/gpu.h
	$(call msg,CCLIB,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -fPIC -shared \
		-fvisibility=hidden -iquote lib -iquote bpf -I$(CUPTI_INC) \
		-o $@ inject/cupti.c lib/gpu/clock.c \
		-L$(CUPTI_LIBDIR) -lcupti -lpthread \
		-Wl,--enable-new-dtags,-rpath,$(CUPTI_LIBDIR) -Wl,-z,defs

$(O)/aperture: $(CMD_OBJS) $(LIBAP)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $(SAN_FLAGS) -o $@ $(CMD_OBJS) $(LIBAP) $(LDLIBS)

$(LIBAP): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# the BPF side: vmlinux.h from the running kernel's BTF, one object per
# source, linked into one object, one skeleton
$(O)/vmlinux.h:
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)test -r $(VMLINUX_BTF) || { echo "aperture: build needs kernel BTF at $(VMLINUX_BTF) (CONFIG_DEBUG_INFO_BTF=y)" >&2; exit 1; }
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(O)/bpf/%.bpf.o: bpf/%.bpf.c $(O)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/aperture.bpf.o: $(BPF_OBJS)
	$(call msg,BPFLINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(SKEL): $(O)/aperture.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name aperture_bpf > $@

# syscall names from the system's own headers, not typed by hand
$(O)/lib/syscall_names.c: scripts/gen-syscall-names.sh
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)sh scripts/gen-syscall-names.sh $(CC) > $@

# pprof's profile.proto -> C with protobuf-c's generator
$(O)/proto/%.pb-c.c $(O)/proto/%.pb-c.h: proto/%.proto
	$(call msg,PROTOC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(PROTOC_C) --c_out=$(O)/proto -Iproto $<

$(O)/proto/%.o: $(O)/proto/%.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-unused-parameter -c $< -o $@

$(O)/lib/%.o: $(O)/lib/%.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(O)/%.o: %.c | $(SKEL) $(O)/proto/profile.pb-c.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# tests: one Check binary per lib module, workloads with known truth
$(O)/tests/test_%: tests/unit/test_%.c $(LIBAP) | $(SKEL)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -Itests/unit -o $@ $< $(LIBAP) $(CHECK_LIBS) $(LDLIBS)

# the fuzzer: clang's libFuzzer with ASan and UBSan over the library code
# report runs (reader, session, symbolizer, views), objects of their own
FUZZ_CC		?= clang
FUZZ_FLAGS	:= -O1 -g -fno-omit-frame-pointer \
		   -fsanitize=address,undefined,float-cast-overflow \
		   -fno-sanitize-recover=undefined,float-cast-overflow
FUZZ_O		:= $(O)/fuzz
FUZZ_OBJS	:= $(patsubst %.c,$(FUZZ_O)/%.o,$(LIB_SRCS)) \
		   $(FUZZ_O)/lib/syscall_names.o $(FUZZ_O)/proto/profile.pb-c.o
FUZZ_TIME	?= 300
# seconds one input may take before it counts as a hang: a run takes
# milliseconds, but a machine shared with builds stalls it for seconds
FUZZ_TIMEOUT	?= 120
FUZZ_RUN	= $(FUZZ_O)/fuzz_report -max_total_time=$(1) -timeout=$(FUZZ_TIMEOUT) \
		  -rss_limit_mb=2048 -print_final_stats=1 \
		  -artifact_prefix=$(FUZZ_O)/ $(FUZZ_O)/corpus tests/fuzz/corpus

# generated sources: built as the library's, without the fuzzer's
# coverage (the pprof exporter, which the report's dispatch links in, needs
# the protobuf descriptors)
$(FUZZ_O)/lib/syscall_names.o: $(O)/lib/syscall_names.c
	$(call msg,FUZZCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter-out -O2 -MMD -MP,$(ALL_CFLAGS)) -c $< -o $@

$(FUZZ_O)/proto/profile.pb-c.o: $(O)/proto/profile.pb-c.c
	$(call msg,FUZZCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(filter-out -O2 -MMD -MP,$(ALL_CFLAGS)) -c $< -o $@

$(FUZZ_O)/%.o: %.c | $(SKEL) $(O)/proto/profile.pb-c.h
	$(call msg,FUZZCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link \
		$(filter-out -O2,$(ALL_CFLAGS)) -c $< -o $@

$(FUZZ_O)/libaperture.a: $(FUZZ_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_O)/fuzz_report: $(FUZZ_O)/tests/fuzz/fuzz_report.o $(FUZZ_O)/libaperture.a
	$(call msg,LINK,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz-build: $(FUZZ_O)/fuzz_report

# new inputs go to $(FUZZ_O)/corpus, crashes to $(FUZZ_O)/crash-*
fuzz: fuzz-build
	$(Q)mkdir -p $(FUZZ_O)/corpus
	$(Q)$(call FUZZ_RUN,$(FUZZ_TIME))

# workloads keep frame pointers so that user stacks unwind without DWARF
WORKLOAD_CFLAGS	:= -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		   -fno-inline-functions-called-once -pthread
$(O)/tests/workloads/%: tests/workloads/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) $(WORKLOAD_CFLAGS_$*) -o $@ $< $(WORKLOAD_LDLIBS_$*)

-include tests/workloads/workloads.mk

tests: aperture cupti $(UNIT_BINS) $(WORKLOAD_BINS) $(WORKLOAD_EXTRA)

# (test_cfi reads the CFI of aperture itself)
unit: $(O)/aperture $(UNIT_BINS) $(WORKLOAD_BINS) $(WORKLOAD_EXTRA)
	$(Q)sh tests/run-unit.sh $(O) $(UNIT_BINS)

integration: tests
	$(Q)sh tests/run-integration.sh $(O)

check: deps
	$(Q)$(MAKE) --no-print-directory tests
	$(Q)sh tests/run-unit.sh $(O) $(UNIT_BINS)
	$(Q)sh tests/run-integration.sh $(O)
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_TIME=$(FUZZ_CHECK_TIME)

# the short fuzzer run of make check, seconds
FUZZ_CHECK_TIME	?= 20

deps:
	$(Q)sh scripts/install-deps.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory aperture $(O)/tests/workloads/cpu_split
	$(Q)sh scripts/demo.sh $(O)

bench: aperture $(WORKLOAD_BINS) $(WORKLOAD_EXTRA)
	$(Q)sh scripts/bench.sh $(O)

install: aperture
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 0755 aperture $(DESTDIR)$(BINDIR)/aperture
	install -m 0644 $(filter %.1,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(filter %.5,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man5/
	install -d $(DESTDIR)$(BASHCOMPDIR)
	install -m 0644 completions/aperture.bash $(DESTDIR)$(BASHCOMPDIR)/aperture
	install -d $(DESTDIR)$(DATADIR)
	install -m 0644 doc/aperture-report.schema.json $(DESTDIR)$(DATADIR)/
	install -d $(DESTDIR)$(SYSTEMDDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' scripts/aperture-agent.service \
		>$(DESTDIR)$(SYSTEMDDIR)/aperture-agent.service
	chmod 0644 $(DESTDIR)$(SYSTEMDDIR)/aperture-agent.service
ifneq ($(CUPTI_TARGETS),)
	install -d $(DESTDIR)$(APLIBDIR)
	install -m 0644 $(CUPTI_LIB) $(DESTDIR)$(APLIBDIR)/libaperture-cupti.so
endif

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/aperture $(DESTDIR)$(BASHCOMPDIR)/aperture
	rm -f $(DESTDIR)$(DATADIR)/aperture-report.schema.json
	rm -f $(DESTDIR)$(SYSTEMDDIR)/aperture-agent.service
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null
	rm -f $(DESTDIR)$(APLIBDIR)/libaperture-cupti.so
	-rmdir $(DESTDIR)$(APLIBDIR) 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(filter %.1,$(MANPAGES))))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(filter %.5,$(MANPAGES))))

clean:
	rm -rf $(O) aperture libaperture-cupti.so

-include $(wildcard $(O)/*.d $(O)/*/*.d $(O)/*/*/*.d $(O)/*/*/*/*.d)
