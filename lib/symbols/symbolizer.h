/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turning instruction addresses into functions, inline chains and source
 * lines.  User addresses are resolved through the mappings of an address
 * space (as recorded, so a report works after the target exited) with
 * libdw; kernel addresses through a kallsyms table.  Results are cached per
 * (module, address): the cost grows with unique addresses, not samples.
 */
#ifndef APERTURE_SYMBOLIZER_H
#define APERTURE_SYMBOLIZER_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"
#include "symbols/dwcache.h"

struct ap_symbolizer;
struct ap_addrspace;
struct ap_kallsyms;

struct ap_sym_frame {
	const char *sym;	/* demangled function name; NULL: unknown */
	/* the ELF symbol's own name (mangled) where it differs from sym;
	 * NULL: the same, or no ELF symbol (an inlined function) */
	const char *linkage;
	const char *file;	/* source file; NULL: unknown */
	int line;		/* 0: unknown */
	int start_line;		/* the function's declaration (DWARF); 0:
				 * unknown */
	int inlined;		/* inlined into the frame that follows it */
};

/* Where an address lands; owned by the symbolizer, valid until it is
 * freed.  frames[0] is the innermost (inlined) function, the last one the
 * real function; nr_frames is 0 when no symbol covers the address. */
struct ap_sym_loc {
	const char *dso;	/* module basename, "[kernel.kallsyms]", a
				 * kernel module "[name]", or NULL: unknown */
	const char *dso_path;	/* full path, or NULL */
	uint64_t dso_offset;	/* address relative to the module */
	uint64_t sym_offset;	/* address - start of frames[last] */
	int nr_frames;
	struct ap_sym_frame frames[];
};

struct ap_symbolizer_opts {
	int no_inline;		/* skip DWARF inline expansion */
	int no_srcline;		/* skip source lines */
	int no_demangle;
	int no_params;		/* C++: names without their parameter lists */
	const char *symfs;	/* look files up under this root (perf's) */
	const char *buildid_dir; /* the build-id cache (lib/record/bidcache.h) */
	/* separate debug files kept uncompressed (lib/symbols/dwcache.h); NULL:
	 * none */
	const char *debug_cache;
	/* its bounds, and what one symbolizer may inflate (by libdw or into
	 * the cache); fields 0: from the environment, else the defaults
	 * (lib/symbols/dwcache.h) */
	struct ap_dwcache_limits debug_limits;
	/* called once per problem (build-id mismatch, missing file...) */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};

struct ap_symbolizer *ap_symbolizer__new(const struct ap_symbolizer_opts *o);
void ap_symbolizer__free(struct ap_symbolizer *s);

/* A JIT symbol of process (pid, start_ticks), from its perf map: names
 * anonymous code in every address space of that process.  0 or -errno. */
int ap_symbolizer__add_jit(struct ap_symbolizer *s, uint32_t pid,
			   uint64_t start_ticks, uint64_t start, uint64_t size,
			   const char *name);

/* A Python frame of the file (a pyframe frame): names the user frames
 * AP_PYFRAME_IP(f->id) from then on.  0 or -errno. */
int ap_symbolizer__add_pyframe(struct ap_symbolizer *s,
			       const struct ap_pyframe *f);

/* The vDSO's ELF image (as the file stores it): names "[vdso]" frames
 * from then on.  0 or -errno. */
int ap_symbolizer__set_vdso(struct ap_symbolizer *s, const void *image,
			    size_t len);

/* The address space of process (pid, start_ticks), created on first use.
 * exec starts a new one: call ap_addrspace__reset. */
struct ap_addrspace *ap_symbolizer__addrspace(struct ap_symbolizer *s,
					      uint32_t pid,
					      uint64_t start_ticks);
void ap_addrspace__reset(struct ap_addrspace *as);
/* unique to as and its mappings now: changes whenever they change, and
 * no other address space, even one allocated where as was, shares it */
uint64_t ap_addrspace__stamp(const struct ap_addrspace *as);
/* the process it is of (0: NULL) */
uint32_t ap_addrspace__pid(const struct ap_addrspace *as);
/* Frees the address space of a process that is gone, its mappings with
 * it (a recorder keeps nothing of exited processes); as is not valid
 * afterwards, and the next ap_symbolizer__addrspace of its identity
 * makes a new one.  Not for versions made by ap_addrspace__clone. */
void ap_symbolizer__drop_addrspace(struct ap_symbolizer *s,
				   struct ap_addrspace *as);
/* A new version of as (same process), owned by the symbolizer: with as's
 * mappings (shared, copy-on-write) when keep_maps, else empty.  Changing
 * one version never changes another: a stack keeps resolving against the
 * version it was taken in.  NULL when out of memory. */
struct ap_addrspace *ap_addrspace__clone(const struct ap_addrspace *as,
					 int keep_maps);
/* dst's mappings become src's (a forked child starts with its parent's);
 * 0 or -errno */
int ap_addrspace__copy(struct ap_addrspace *dst,
		       const struct ap_addrspace *src);
/* the mappings in address order; a returned mapping is packed (its path
 * as long as it is, ap_mmap__size): copy it with ap_mmap__copy, never
 * as a whole struct */
size_t ap_addrspace__count(const struct ap_addrspace *as);
const struct ap_mmap *ap_addrspace__at(const struct ap_addrspace *as,
				       size_t i);
/* 1 when a mapping covers part of [start, end) */
int ap_addrspace__overlaps(const struct ap_addrspace *as, uint64_t start,
			   uint64_t end);
/* the same for executable mappings only */
int ap_addrspace__overlaps_code(const struct ap_addrspace *as,
				uint64_t start, uint64_t end);
/* Adds (or replaces, when it overlaps) one mapping. */
int ap_addrspace__add_mapping(struct ap_addrspace *as, const struct ap_mmap *m);
/* The mapping covering addr, or NULL; packed, as ap_addrspace__at's */
const struct ap_mmap *ap_addrspace__find(const struct ap_addrspace *as,
					 uint64_t addr);

/* Inline expansion off (or on again) for the lookups to come: report
 * turns it off when no output it makes shows inline frames, so that no
 * DWARF is read for them.  Results already cached keep their frames. */
void ap_symbolizer__set_no_inline(struct ap_symbolizer *s, int no_inline);

/* Resolve a user address.  Pass the address as sampled; is_return_addr
 * says it is a caller frame, looked up as ip - 1 so that a call at the end
 * of a function is not blamed on the next one.  Never NULL. */
const struct ap_sym_loc *ap_symbolizer__user(struct ap_symbolizer *s,
					     struct ap_addrspace *as,
					     uint64_t ip, int is_return_addr);
/* The code of the function holding user address ip, for reading it
 * (annotate): the ELF file the symbolizer found for its module (the
 * recorded path, or the build-id cache's copy; a debug file may hold no
 * code) and the function's extent in module addresses (ELF vaddrs). */
struct ap_sym_code {
	const void *module;	/* one per (path, build-id): an identity */
	const char *file;	/* owned by the symbolizer */
	const char *dso;	/* module basename */
	const char *name;	/* the ELF symbol's (mangled) name */
	uint64_t addr;		/* ip in module addresses */
	uint64_t start, end;	/* [start, end) of the function */
};
/* 0, or -ENOENT when no readable module or no symbol covers ip */
int ap_symbolizer__user_code(struct ap_symbolizer *s, struct ap_addrspace *as,
			     uint64_t ip, struct ap_sym_code *out);
/* The ELF file read for the mapped file m (under --symfs, the build-id
 * cache's copy, the servers'; its build-id checked), opened on first use
 * with the same warnings; NULL when there is none.  Owned by s. */
const char *ap_symbolizer__file(struct ap_symbolizer *s,
				const struct ap_mmap *m);
/* the compilation directory (DWARF) of the code at user address ip, which
 * a relative source file name is under; NULL: unknown */
const char *ap_symbolizer__comp_dir(struct ap_symbolizer *s,
				    struct ap_addrspace *as, uint64_t ip);
/* Resolve a kernel address with the symbols given to add_ksym (or loaded
 * from /proc/kallsyms by load_kallsyms).  Never NULL. */
const struct ap_sym_loc *ap_symbolizer__kernel(struct ap_symbolizer *s,
					       uint64_t ip);
int ap_symbolizer__add_ksym(struct ap_symbolizer *s, const struct ap_ksym *k);
int ap_symbolizer__load_kallsyms(struct ap_symbolizer *s, const char *path);

/* counters for tests and for report's verbose output */
struct ap_symbolizer_stats {
	uint64_t lookups;
	uint64_t cache_hits;
	uint64_t modules;
	uint64_t unresolved;
	uint64_t dwarf_modules;	/* modules whose DWARF was read */
	uint64_t dwarf_bytes;	/* the size of their debug sections */
	/* bytes of compressed DWARF inflated: by libdw, and into the cache */
	uint64_t dwarf_inflated;
	uint64_t debug_cache_made;	/* debug files inflated into it */
	uint64_t debug_cache_used;	/* debug files read from it */
	uint64_t debug_refused;	/* debug files refused (lib/symbols/dwcache.h) */
};
void ap_symbolizer__stats(const struct ap_symbolizer *s,
			  struct ap_symbolizer_stats *st);

/* Format a frame like perf: "sym", or "dso+0xOFF", or "[unknown]". */
int ap_sym_loc__format(const struct ap_sym_loc *loc, int frame, char *buf,
		       size_t len);

/* kallsyms: sorted table of kernel symbols, for record (which writes the
 * symbols a recording hits) and for the symbolizer. */
struct ap_kallsym {		/* what find returns */
	uint64_t addr;
	uint64_t size;		/* 0: unknown, runs to the next symbol */
	const char *name;
	const char *module;	/* "" for vmlinux */
	char type;		/* kallsyms' nm letter */
};

/* the real extent of a BPF program's JIT image (kallsyms has no sizes) */
struct ap_ksym_size {
	uint64_t addr;
	uint64_t size;
	char name[64];		/* bpf_prog_<tag>_<name>, as the kernel's */
};

struct ap_kallsyms *ap_kallsyms__load(const char *path, int *err);
/* the same for the symbols whose nm type letter is in types ("dDbB":
 * data and bss, for naming kernel locks) */
struct ap_kallsyms *ap_kallsyms__load_types(const char *path,
					    const char *types, int *err);
/* the same, with the [bpf] symbols at the addresses of sizes (sorted by
 * address) bounded by their size, and those kallsyms lacks added */
struct ap_kallsyms *ap_kallsyms__load_sized(const char *path,
					    const char *types,
					    const struct ap_ksym_size *sizes,
					    size_t nr_sizes, int *err);
/* The running kernel's text symbols, its BPF programs' JIT images
 * bounded by their real sizes (bpf_prog_info, where the caller may read
 * it).  Read it after loading one's own BPF programs: they are named then.
 * NULL with *err set when /proc/kallsyms hides its addresses. */
struct ap_kallsyms *ap_kallsyms__load_kernel(int *err);
/* the JIT images of the loaded BPF programs, sorted by address; the number
 * of them (*out NULL when 0), or -errno */
int ap_kallsyms__bpf_sizes(struct ap_ksym_size **out);
struct ap_kallsyms *ap_kallsyms__new(void);
int ap_kallsyms__add(struct ap_kallsyms *k, const struct ap_ksym *sym);
/* the symbol covering addr, or NULL; filled in for each call: valid until
 * the next find, add or free of k */
const struct ap_kallsym *ap_kallsyms__find(struct ap_kallsyms *k,
					   uint64_t addr);
/* as the file stores it */
void ap_kallsym__to_ksym(const struct ap_kallsym *k, struct ap_ksym *out);
size_t ap_kallsyms__count(const struct ap_kallsyms *k);
/* the bytes the table takes (allocated, not all of it written) */
size_t ap_kallsyms__bytes(const struct ap_kallsyms *k);
void ap_kallsyms__free(struct ap_kallsyms *k);

#include "symbols/buildid.h"

#endif /* APERTURE_SYMBOLIZER_H */
