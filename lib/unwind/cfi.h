/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables: the call frame information of one ELF file (.eh_frame,
 * and .debug_frame, compressed or not, for the code no FDE of .eh_frame
 * covers) compiled by libdw into rows that the BPF unwinder
 * (bpf/unwind.bpf.h) can follow: from each row's pc on, how to find the
 * CFA, the return address (at CFA - 8) and the caller's rbp and rbx.
 * x86-64.
 */
#ifndef APERTURE_CFI_H
#define APERTURE_CFI_H

#include <stddef.h>
#include <stdint.h>

#include "aperture.h"

struct Elf;

struct ap_cfi_table {
	struct ap_cfi_row *rows;	/* sorted by pc */
	size_t nr, cap;
	uint64_t fdes;			/* FDEs read */
	uint64_t bad;			/* rows whose rule is not expressible */
};

/* Compiles the CFI of elf into t (emptied first).  Returns 0, -ENOENT
 * when the file has no CFI, -E2BIG when its code lies above 4 GiB or it
 * would take more than 4 Mi rows, or -errno. */
int ap_cfi__compile(struct Elf *elf, struct ap_cfi_table *t);
/* only the .debug_frame (or .zdebug_frame) of elf, a separate debug
 * file's: 0, -ENOENT */
int ap_cfi__compile_debug_frame(struct Elf *elf, struct ap_cfi_table *t);
/* the same, stopping with -ETIME (t empty) once CLOCK_MONOTONIC reaches
 * until_ns (0: never) */
int ap_cfi__compile_by(struct Elf *elf, struct ap_cfi_table *t,
		       uint64_t until_ns);
int ap_cfi__compile_debug_frame_by(struct Elf *elf, struct ap_cfi_table *t,
				   uint64_t until_ns);
/* where t has no rule (no FDE covers the code), more's: t merged in place;
 * 0 or -errno (t unchanged) */
int ap_cfi_table__fill(struct ap_cfi_table *t, const struct ap_cfi_table *more);
/* the same for the file at path, opened as a regular file only */
int ap_cfi__compile_path(const char *path, struct ap_cfi_table *t);
void ap_cfi_table__free(struct ap_cfi_table *t);
/* the row that covers ELF address pc, or NULL */
const struct ap_cfi_row *ap_cfi__lookup(const struct ap_cfi_table *t,
					uint64_t pc);

/* for the tests: set, every FDE's rows come from libdw's frame states,
 * as they did before the program interpreter of cfi.c (which must give
 * the same tables) */
extern int ap_cfi_libdw_only;

#endif /* APERTURE_CFI_H */
