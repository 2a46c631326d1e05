/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data symbols: which global or static variable of a process an address
 * belongs to (a contended mutex, a hot array), from the STT_OBJECT
 * symbols of .symtab and .dynsym of the file mapped there.  The
 * symbolizer resolves functions; this resolves variables.  Tables are read
 * once per file and kept sorted, so a lookup is a binary search.
 */
#ifndef APERTURE_DATASYM_H
#define APERTURE_DATASYM_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

struct ap_datasym;
struct ap_symbolizer;

/* sym: the symbolizer whose files the tables are read from (--symfs, the
 * build-id cache: lookups as its own); NULL: the recorded paths as they
 * are */
struct ap_datasym *ap_datasym__new(struct ap_symbolizer *sym);
void ap_datasym__free(struct ap_datasym *d);

/*
 * The variable covering addr, an address in the process whose mapping of
 * an ELF file is m (the file's data mapping; for a .bss that runs past the
 * file into the anonymous mapping after it, pass the file mapping before
 * it: addr need not lie inside m).  Fills name (truncated to len) and
 * *offset (addr - start of the variable).  Returns 0, -ENOENT when no
 * variable covers addr (or the symbolizer found no file for m), -ESTALE
 * when the file on disk is not the one that was mapped (without a
 * symbolizer or a build-id: its inode differs), or -errno when it cannot
 * be read.
 */
int ap_datasym__lookup(struct ap_datasym *d, const struct ap_mmap *m,
		       uint64_t addr, char *name, size_t len,
		       uint64_t *offset);

/* Where an address lives when no variable names it: "heap", "stack",
 * "anon", "vdso"..., or the mapped file's basename; never NULL. */
const char *ap_datasym__region(const struct ap_mmap *m);

/* The file offset of the function func in the ELF file path (for a
 * uprobe): 0, -ENOENT when the file does not define it, or -errno. */
int ap_elf_func_offset(const char *path, const char *func, uint64_t *off);
/* the same with the symbol from symfile (path's separate debug file, or
 * NULL: path itself) and the offset from path's segments */
int ap_elf_func_offset2(const char *path, const char *symfile,
			const char *func, uint64_t *off);

#endif /* APERTURE_DATASYM_H */
