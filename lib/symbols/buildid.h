/* SPDX-License-Identifier: GPL-2.0 */
/* The GNU build-id note of an ELF file (buildid.c). */
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

#endif /* APERTURE_BUILDID_H */
