/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build-id cache: ELF files kept by build-id, so that a file that only
 * the target could reach (another mount namespace, deleted or replaced on
 * disk) still symbolizes after the target is gone.  Layout as perf's:
 * DIR/ab/cdef... (the first byte of the build-id in hex, then the rest).
 * DIR: --buildid-dir, else $APERTURE_BUILDID_DIR, else
 * $XDG_CACHE_HOME/aperture/build-id, else ~/.cache/aperture/build-id.
 */
#ifndef APERTURE_BIDCACHE_H
#define APERTURE_BIDCACHE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

/* $XDG_CACHE_HOME/aperture/LEAF, else $HOME/.cache/aperture/LEAF; one
 * that belongs to another user (root under sudo -E) passed over for the
 * home of the effective user's passwd entry; 0 or -ENOENT */
int ap_user_cache_dir(const char *leaf, char *buf, size_t len);
/* the cache directory for opt (NULL: the environment's); 0 or -ENOENT */
int ap_bidcache__dir(const char *opt, char *buf, size_t len);
/* the directories above the file path (0755), as many as are missing;
 * path is written to and restored; 0 or -errno */
int ap_mkdirs(char *path);
/* DIR/ab/cdef... for a build-id; 0 or -EINVAL */
int ap_bidcache__path(const char *dir, const uint8_t *id, size_t n,
		      char *buf, size_t len);
/* The build-id of the file at path (opened by ap_open_regular, safefile.h:
 * a FIFO never hangs us):
 * its length, 0 when none, or -errno. */
int ap_read_build_id_safe(const char *path, uint8_t *buf, size_t len);
/*
 * What one recording may copy into the cache: a file of another user's
 * (a sparse gigabyte, mapped from its own mount namespace) must not fill
 * root's disk nor hold the recording up.
 */
struct ap_bidcache_limits {
	uint64_t max_file;		/* bytes of one file */
	uint64_t max_total;		/* bytes of all files together */
	uint64_t min_free;		/* left free on the cache's filesystem */
};
#define AP_BIDCACHE_MAX_FILE	(256ull << 20)
#define AP_BIDCACHE_MAX_TOTAL	(1ull << 30)
#define AP_BIDCACHE_MIN_FREE	(1ull << 30)

/* what became of the files that were to be kept */
struct ap_bidcache_counts {
	uint64_t kept;
	uint64_t kept_bytes;
	uint64_t too_big;		/* over max_file */
	uint64_t over_total;		/* past max_total */
	uint64_t no_space;		/* would leave less than min_free */
	uint64_t unfinished;		/* not copied by the end */
	uint64_t failed;		/* an error; changed while copied */
};

struct ap_bidcache;

/* A cache in dir (copied, not owned) for one recording; NULL: out of
 * memory */
struct ap_bidcache *ap_bidcache__new(const char *dir,
				     const struct ap_bidcache_limits *lim);
/*
 * A file mapping m of a live process: when the file at m->path is not the
 * one mapped (no such path here, another build-id, deleted), the mapped
 * one is opened now, through /proc/PID/map_files (or /proc/PID/root), so
 * that it stays whatever the process does, and copied into the cache by a
 * thread of the cache's: the caller is never held up by the copy.
 * 1 when queued, 0 when nothing needed doing, -errno (-EFBIG, -ENOSPC:
 * over a limit, counted).
 */
int ap_bidcache__keep(struct ap_bidcache *c, const struct ap_mmap *m);
/* Waits up to budget_ns for the copies queued, less when *abort is set (a
 * signal; abort may be NULL); those not done by then are stopped and left
 * out (counted as unfinished).  Nothing is queued after. */
void ap_bidcache__finish(struct ap_bidcache *c, uint64_t budget_ns,
			 const volatile sig_atomic_t *abort);
void ap_bidcache__counts(struct ap_bidcache *c, struct ap_bidcache_counts *n);
/* finishes at once (nothing more is copied) and frees (but for a copy
 * stuck in a read: the exit ends it); NULL is fine */
void ap_bidcache__free(struct ap_bidcache *c);

#endif /* APERTURE_BIDCACHE_H */
