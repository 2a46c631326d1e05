/* SPDX-License-Identifier: GPL-2.0 */
/* ELF files: opening one, and its GNU build-id note (buildid.c). */
#ifndef APERTURE_BUILDID_H
#define APERTURE_BUILDID_H

#include <stddef.h>
#include <stdint.h>

struct Elf;

/* Reads the GNU build-id note of an ELF file; returns its length (> 0),
 * 0 when the file has none, or -errno. */
int ap_read_build_id(const char *path, uint8_t *buf, size_t len);
/* the same for an open ELF */
int ap_elf__build_id(struct Elf *elf, uint8_t *buf, size_t len);
/* the running kernel's, from the notes file the kernel exports (NULL:
 * /sys/kernel/notes): its length, 0 when it has none, or -errno */
int ap_kernel__build_id(const char *notes, uint8_t *buf, size_t len);
/* opens the regular file at path (ap_open_regular) as an ELF object: 0
 * with *fd and *elf for elf_end() and close(), or -errno (-ENOEXEC: not
 * ELF) with nothing left open */
int ap_elf__open(const char *path, int *fd, struct Elf **elf);

#endif /* APERTURE_BUILDID_H */
