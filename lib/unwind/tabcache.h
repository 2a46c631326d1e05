/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables kept on disk by build-id, as the continuous profilers
 * keep theirs, so that the tables of the files every program maps (libc,
 * the dynamic loader, libstdc++, a compiler's cc1) are ready when record
 * starts, before any process maps them: a program started by exec (a
 * build step, sh -c 'exec ...') finds them at its first sample.
 *
 * DIR/<build-id in hex>.tab: a header (magic, the build-id, the file's
 * path, its PT_LOAD segments, the row count), the rows, and a CRC-32 of
 * all before it.  DIR: $APERTURE_UNWIND_CACHE (an absolute path; "none":
 * no cache), else
 * $XDG_CACHE_HOME/aperture/unwind, else ~/.cache/aperture/unwind; bounded
 * to AP_TABCACHE_BYTES, the least recently used entries removed first.
 */
#ifndef APERTURE_TABCACHE_H
#define APERTURE_TABCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "aperture.h"
#include "format/format.h"

#define AP_TABCACHE_LOADS	16
#define AP_TABCACHE_BYTES	(256ull << 20)
/* rows of one table at most: the unwinder's search covers 2^24 */
#define AP_TABCACHE_ROWS	(1u << 24)

/* ap_tabcache_entry.flags */
#define AP_TABCACHE_DEBUG	(1u << 0)	/* from a separate debug file */

struct ap_tabcache_load {
	uint64_t vaddr, offset, filesz;
	uint32_t exec;
	uint32_t pad;
};

/* one file's table */
struct ap_tabcache_entry {
	uint8_t build_id[AP_BUILD_ID_MAX];
	uint32_t build_id_len;
	char path[AP_PATH_MAX];		/* where it was mapped from */
	uint32_t nloads;
	struct ap_tabcache_load loads[AP_TABCACHE_LOADS];
	uint32_t flags;			/* AP_TABCACHE_* */
	uint64_t bad;			/* rules the table could not express */
	uint64_t nr;
	struct ap_cfi_row *rows;	/* malloc'd by load */
};

/* the cache directory; 0, or -ENOENT when there is none */
int ap_tabcache__dir(char *buf, size_t len);
/* keeps e under its build-id (written whole, then renamed); 0 or -errno */
int ap_tabcache__save(const char *dir, const struct ap_tabcache_entry *e);
/* the entry of build-id id into e, its rows too when rows is non-zero
 * (e->rows malloc'd: free it; else NULL); 0, -ENOENT, or -EINVAL for a
 * file that is not a whole entry of that build-id (checked whole only
 * with the rows) */
int ap_tabcache__load(const char *dir, const uint8_t *id, uint32_t n,
		      struct ap_tabcache_entry *e, int rows);
/*
 * The build-ids in the cache, most recently used first, each to fn
 * (which stops the walk by returning non-zero); entries past bytes in all
 * are removed on the way.  0 or -errno.
 */
int ap_tabcache__each(const char *dir, uint64_t bytes,
		      int (*fn)(void *ctx, const uint8_t *id, uint32_t n),
		      void *ctx);

#endif /* APERTURE_TABCACHE_H */
