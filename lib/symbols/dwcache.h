/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The debug cache: separate debug files whose DWARF sections are
 * compressed (SHF_COMPRESSED, as Debian's libc6-dbg ships them), kept with
 * those sections inflated, by build-id.  libdw (elfutils 0.188) inflates a
 * compressed section whole on first use, every report; from an
 * uncompressed copy it maps the file and reads only the pages of the units
 * a report needs.  Layout DIR/ab/cdef....debug (the build-id in hex).
 * DIR: $APERTURE_DEBUG_CACHE ("off": no cache), else
 * $XDG_CACHE_HOME/aperture/debug, else ~/.cache/aperture/debug; DIR and
 * its subdirectories are the user's own, mode 0700, never links.
 *
 * A debug file is hostile input: a few bytes may claim gigabytes once
 * inflated.  Each compressed section must claim no more than zlib can
 * give for its size (1032:1) and 1 GiB, the file 4 GiB in all; what the
 * copy adds must leave a tenth of the cache's filesystem free.  Sections
 * are inflated through a fixed buffer, never whole in memory.
 */
#ifndef APERTURE_DWCACHE_H
#define APERTURE_DWCACHE_H

#include <stddef.h>
#include <stdint.h>

/* the cache directory; 0, or -ENOENT when there is none (or it is off) */
int ap_dwcache__dir(char *buf, size_t len);

/*
 * Checks the compressed sections of the debug file open at fd against the
 * bounds above: the number of bytes they inflate to (0: none compressed,
 * or not a 64-bit ELF file of this machine), or -EFBIG when one claims too
 * much (*bad: its index, *claim: what it claims), -EINVAL when malformed.
 */
int64_t ap_dwcache__check(int fd, int *bad, uint64_t *claim);

/*
 * The uncompressed copy of the debug file open at fd (build-id id, n
 * bytes): opened from the cache (*inflated 0), or written there now
 * (*inflated: the bytes inflated into it).  Its descriptor, with its path
 * in path; -ENODATA when the file has no compressed section (use it as it
 * is), -EFBIG when ap_dwcache__check refuses it, -ENOSPC when the copy
 * would leave too little free space, -EPERM when the cache directory is
 * not the user's own, or -errno.
 */
int ap_dwcache__open(const char *dir, int fd, const uint8_t *id, size_t n,
		     char *path, size_t len, uint64_t *inflated);

#endif /* APERTURE_DWCACHE_H */
