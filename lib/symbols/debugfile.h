/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The separate debug file of an ELF file, as Debian's -dbgsym packages and
 * `objcopy --only-keep-debug` make them: by build-id under
 * DEBUGDIR/.build-id, else by the file's .gnu_debuglink in its directory,
 * its .debug subdirectory or under DEBUGDIR (gdb's order).  A candidate is
 * used only when it is the file's: the same build-id, or for a file
 * without one, the CRC its link names.
 */
#ifndef APERTURE_DEBUGFILE_H
#define APERTURE_DEBUGFILE_H

struct Elf;

#define AP_DEBUGDIR	"/usr/lib/debug"

/* A descriptor of elf's debug file, or -errno (-ENOENT: none found).
 * path: where elf was mapped from (for the debuglink's directories);
 * debugdir: NULL for AP_DEBUGDIR. */
int ap_debugfile__open(struct Elf *elf, const char *path,
		       const char *debugdir);

#endif /* APERTURE_DEBUGFILE_H */
