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
 * are inflated through a fixed buffer, never whole in memory, and never
 * past what they claim.
 *
 * Bounds (struct ap_dwcache_limits): the entries take at most size bytes
 * and files files in all, the least recently used (atime, set on each
 * use) removed to make room; what one report inflates, into the cache or
 * by libdw, is bounded by inflate.  An entry is made under a lock of its
 * own (DIR/ab/cdef....lock, flock, removed when released): a second
 * report that wants it waits for the first and reads its copy.  Only
 * files that look like entries (0600, the user's, named as entries) are
 * ever removed.
 */
#ifndef APERTURE_DWCACHE_H
#define APERTURE_DWCACHE_H

#include <stddef.h>
#include <stdint.h>

struct ap_dwcache_limits {
	uint64_t size;		/* bytes of all entries */
	uint64_t files;		/* entries */
	uint64_t inflate;	/* bytes one report may inflate */
};

#define AP_DWCACHE_SIZE		(2ull << 30)
#define AP_DWCACHE_FILES	100
#define AP_DWCACHE_INFLATE	(1ull << 30)

/*
 * The fields of l that are 0 from APERTURE_DEBUG_CACHE_SIZE,
 * APERTURE_DEBUG_CACHE_FILES and APERTURE_DEBUG_INFLATE where set, else
 * the defaults above: 0, or -EINVAL with *bad the variable refused (its
 * field then has the default).
 */
int ap_dwcache__limits(struct ap_dwcache_limits *l, const char **bad);

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
 * (*inflated: the bytes inflated into it, no more than inflate_left),
 * others evicted to keep within l.  Its descriptor, with its path in
 * path; -ENODATA when the file has no compressed section (use it as it
 * is), -EFBIG when ap_dwcache__check refuses it, -EDQUOT when it would
 * inflate more than inflate_left, -E2BIG when the copy alone is larger
 * than l->size (or the entries in use leave no room), -ENOSPC when it
 * would leave too little free space, -EPERM when the cache directory is
 * not the user's own, or -errno.
 */
int ap_dwcache__open(const char *dir, const struct ap_dwcache_limits *l,
		     uint64_t inflate_left, int fd, const uint8_t *id,
		     size_t n, char *path, size_t len, uint64_t *inflated);

#endif /* APERTURE_DWCACHE_H */
