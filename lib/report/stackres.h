/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack resolution for the views: a stack id of the session turned into
 * frames, leaf first, with interned names, and the folded lines
 * (comm;root;...;leaf WEIGHT) that flame graphs read.
 */
#ifndef APERTURE_STACKRES_H
#define APERTURE_STACKRES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/format.h"
#include "util/hmap.h"

struct ap_addrspace;
struct ap_session;
struct ap_strtab;
struct ap_sym_loc;

struct ap_rframe {
	const char *sym;		/* interned, never NULL */
	const char *dso;		/* interned, never NULL */
	int kernel;
	int inlined;			/* inlined into the next frame */
	int python;			/* a Python frame: sym its function,
					 * dso its file's name */
	/* where: the source line of this frame's address (its call site
	 * in the next frame for an inlined one); only when the symbolizer
	 * computes lines (ap_symbolizer_opts.no_srcline unset) */
	const char *file;		/* interned; NULL: unknown */
	int line;			/* 0: unknown */
	/* for perf script's frame lines.  nosym 1: no function covers the
	 * address (sym is "dso+0xOFF" or "[unknown]"); -1: a frame of a
	 * name alone, of no address ("[truncated]", ap_stackres__push's).
	 * addr as perf prints it: in its file (ip - start + pgoff of its
	 * mapping) for user code, itself for the kernel's and anonymous
	 * memory's; a return address as it is, though it was named at
	 * ip - 1.  symoff:
	 * its offset in the function (the frames of one address share
	 * both).  path: the module's full path (interned; NULL: dso is all
	 * there is) */
	int nosym;
	uint64_t addr;
	uint64_t symoff;
	const char *path;
};

/* frames of the last resolve; names interned in strs, which the caller
 * owns and which must outlive every use of a frame */
struct ap_stackres {
	struct ap_strtab *strs;
	struct ap_rframe *frames;
	size_t nr, cap;
	/* of the last resolve: the user chain ended at a return address
	 * outside every executable mapping (not code: never printed) */
	int cut;
	/* ... and it ended where the unwinder found the outermost frame */
	int outermost;
	/* what the frames are of, while nothing else was pushed */
	struct ap_stackres_key {
		const struct ap_addrspace *as;
		uint64_t as_stamp;	/* its mappings when resolved */
		uint32_t stack_id;
		int flags;
	} last;
	int last_valid;
	/* Frames of the stacks resolved so far, while the session takes no
	 * new symbols: each (address space with its mappings of the time,
	 * stack id, flags) resolves once however many threads share it (a
	 * deep stack of 10,000 threads was resolved 10,000 times), and top
	 * resolves only what changed between refreshes.  Up to
	 * AP_STACKRES_CACHE frames; past that, the cache starts afresh. */
	const struct ap_session *cache_s;
	uint64_t cache_epoch;		/* ap_session__epoch */
	struct ap_hmap cache;		/* hash of a key -> index in ents */
	struct ap_stackres_ent {
		struct ap_stackres_key key;
		size_t off, nr;		/* in pool */
		int cut, outermost;
	} *ents;
	size_t nr_ents, cap_ents;
	struct ap_rframe *pool;
	size_t nr_pool, cap_pool;
	uint64_t resolved;		/* stacks resolved afresh (tests) */
	/* Frames of one address, names formatted and interned once: each
	 * kernel address, each user address of an address space (with its
	 * mappings of the time) as its stacks push it, and each
	 * symbolizer result (loc, kernel) for the addresses of other
	 * processes in the same module (on many processes' stacks, naming
	 * the same frames again was most of report's time).  Dropped with
	 * the stacks' cache when the session's epoch moves: a new kernel
	 * symbol frees the locs. */
	struct ap_fcache {
		struct ap_hmap map;	/* hash of a key -> index in ents */
		struct ap_fcache_ent {
			uint64_t key[4];
			size_t off, nr;	/* in pool */
			int cut;	/* the chain ends here (ips) */
		} *ents;
		size_t nr_ents, cap_ents;
		struct ap_rframe *pool;
		size_t nr_pool, cap_pool;
	} ips, locs;
	uint64_t formatted;		/* locs formatted afresh (tests) */
};

#define AP_STACKRES_CACHE	(1u << 19)	/* frames: 32 MiB */
#define AP_STACKRES_FCACHE	(1u << 18)	/* frames of each: 16 MiB */

/* where a resolved stack ends (ap_stackres__root) */
#define AP_ROOT_KNOWN		0	/* _start, a thread start, kernel entry */
#define AP_ROOT_TRUNCATED	1	/* cut at the depth limit */
#define AP_ROOT_UNKNOWN		2	/* an unknown frame or a non-code address */
#define AP_ROOT_OTHER		3	/* a named frame that is no known root */
#define AP_ROOT_NR		4

/* no kernel frames (--user-only) */
#define AP_STACKRES_USER_ONLY	(1 << 0)
/* a stack id of 0 or one the session lacks: one "[unknown]" frame */
#define AP_STACKRES_UNKNOWN	(1 << 1)
/* nothing left (every frame was in the kernel): one "[kernel]" frame */
#define AP_STACKRES_KERNEL	(1 << 2)
/* the user leaf is a return address as well (a stack taken at a
 * uretprobe): looked up at ip - 1 like the callers, so that it names the
 * caller, not the code inlined after the call */
#define AP_STACKRES_LEAF_RET	(1 << 3)

void ap_stackres__init(struct ap_stackres *r, struct ap_strtab *strs);
void ap_stackres__free(struct ap_stackres *r);
/* drop the frames, keep the array */
void ap_stackres__clear(struct ap_stackres *r);
/* append a frame, interning sym and dso */
int ap_stackres__push(struct ap_stackres *r, const char *sym, const char *dso,
		      int kernel);
/* append the frames of loc, inlined ones first; one when it has none */
int ap_stackres__push_loc(struct ap_stackres *r, const struct ap_sym_loc *loc,
			  int kernel);
/* Frames of st into r->frames, leaf first: kernel frames, then user frames
 * mapped through as (none when as is NULL) with inlined functions
 * expanded, up to the first caller outside every executable mapping;
 * a "[truncated]" root frame when st was cut at the depth limit.  Returns
 * the count or -errno. */
long ap_stackres__resolve_stack(struct ap_stackres *r, struct ap_session *s,
				struct ap_addrspace *as,
				const struct ap_stack *st, int flags);
/* a frame's mark in the tables, as perf's: "k" kernel, "." user, "py"
 * Python */
static inline const char *ap_rframe__mark(const struct ap_rframe *f)
{
	return f->kernel ? "k" : f->python ? "py" : ".";
}

/* "file.c:12" for a frame (the basename, as perf's srcline key), or
 * "??:0" when its line is unknown; returns buf */
const char *ap_rframe__srcline(const struct ap_rframe *f, char *buf,
			       size_t len);
/* a frame's name for a view that prints names alone: a Python frame's
 * is "func (file.py:12)", as in folded stacks (interned in strs);
 * another's its symbol.  NULL: no memory */
const char *ap_rframe__name(const struct ap_rframe *f,
			    struct ap_strtab *strs);
/* where the frames of the last resolve end: AP_ROOT_* */
int ap_stackres__root(const struct ap_stackres *r);
/* 1 when a frame of the last resolve is one of aperture's own BPF
 * programs (a sample in one, or in a helper it called) */
int ap_stackres__own_bpf(const struct ap_stackres *r);
/* the same for stack id of session s; flags AP_STACKRES_*.  Resolved
 * once per (as, stack_id, flags) while s takes no metadata: later calls
 * copy the frames (none when the last call asked the same and nothing
 * was pushed since). */
long ap_stackres__resolve(struct ap_stackres *r, struct ap_session *s,
			  struct ap_addrspace *as, uint32_t stack_id,
			  int flags);

/* a growable string for building folded lines */
struct ap_fbuf {
	char *p;
	size_t len, cap;
	int srcline;			/* frames as "sym (file.c:12)" */
};

/* append sep, s and suffix */
int ap_fbuf__add(struct ap_fbuf *b, const char *sep, const char *s,
		 const char *suffix);
/* append ";sym" for frames[n - 1] down to frames[0] (root first), kernel
 * frames suffixed "_[k]"; with b->srcline, a frame whose line is known is
 * "sym (file.c:12)", the file's basename as perf's srcline prints it */
int ap_fbuf__frames(struct ap_fbuf *b, const struct ap_rframe *frames,
		    long n);
/* the line "comm[;root];frames" (frames as ap_fbuf__frames), b emptied
 * first; root NULL: none */
int ap_fbuf__stack(struct ap_fbuf *b, const char *comm, const char *root,
		   const struct ap_rframe *frames, long n);
/* the interned copy of the line so far; NULL when out of memory */
const char *ap_fbuf__intern(const struct ap_fbuf *b, struct ap_strtab *strs);

/* folded lines summed by line, printed sorted */
struct ap_fline {
	const char *s;			/* interned */
	double weight;
};

struct ap_folded {
	struct ap_fline *lines;
	size_t nr, cap;
	struct ap_hmap by_line;		/* line pointer -> index */
};

void ap_folded__init(struct ap_folded *f);
void ap_folded__free(struct ap_folded *f);
/* add weight to line, an interned string (NULL: -ENOMEM) */
int ap_folded__add(struct ap_folded *f, const char *line, double weight);
/* lines in strcmp order */
void ap_folded__sort(struct ap_folded *f);
/* sorts, then prints each "line weight": weight / div in the unit of
 * tag's kind, then in the common unit of several views where o asks
 * (ap_event_kind__folded_weight), rounded */
struct ap_report_opts;
void ap_folded__print(struct ap_folded *f, FILE *out, double div,
		      uint32_t tag, const struct ap_report_opts *o);

#endif /* APERTURE_STACKRES_H */
