/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aperture annotate, as perf annotate --stdio: the CPU samples of a
 * function spread over its instructions (each sample's leaf address),
 * its code read back from the ELF file the symbolizer found (the recorded
 * path, or the build-id cache's copy) and disassembled with capstone, its
 * source lines (DWARF, inlined functions' included) between them.
 */
#ifndef APERTURE_ANNOTATE_H
#define APERTURE_ANNOTATE_H

#include <stdint.h>
#include <stdio.h>

struct ap_annotate;
struct ap_session;
struct ap_addrspace;

struct ap_annotate_opts {
	const char *symbol;	/* annotate the functions of this name (ELF
				 * or demangled); NULL: the hottest */
	long limit;		/* without symbol: that many functions */
	int no_source;		/* no source lines, no summary */
};

struct ap_annotate *ap_annotate__new(struct ap_session *s);
void ap_annotate__free(struct ap_annotate *a);
/* One CPU sample of pid whose stack is stack_id (0: none, not counted)
 * in address space as: its leaf counted at its function and address.
 * 0 or -errno. */
int ap_annotate__sample(struct ap_annotate *a, struct ap_addrspace *as,
			uint32_t stack_id);
/* Prints each function o asks for; -ENOENT (said on stderr) when no
 * sample fell in one, else 0 or -errno. */
int ap_annotate__print(struct ap_annotate *a, const struct ap_annotate_opts *o,
		       FILE *out);

/* The interleaving, apart for its test: instructions (address, text,
 * samples) and the source line of each, as rows of out. */
struct ap_annotate_insn {
	uint64_t addr;
	const char *text;	/* "add    %rax,%rbx" */
	double count;
	const char *file;	/* innermost source line; NULL: unknown */
	int line;
	const char *func;	/* innermost function; NULL: unknown */
	int inlined;		/* func is inlined into the symbol */
};
/* src(ctx, file, line): that line's text, or NULL (unreadable); may be
 * NULL for no text at all */
typedef const char *(*ap_annotate_src_fn)(void *ctx, const char *file,
					  int line);
void ap_annotate__listing(const struct ap_annotate_insn *v, size_t nr,
			  double total, int no_source, ap_annotate_src_fn src,
			  void *ctx, FILE *out);

#endif /* APERTURE_ANNOTATE_H */
