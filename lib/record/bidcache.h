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
 * A file mapping m of a live process: when the file at m->path is not the
 * one mapped (no such path here, another build-id), copy the mapped one
 * into the cache, read through /proc/PID/map_files (or /proc/PID/root).
 * 1 when copied, 0 when nothing needed doing, -errno.
 */
int ap_bidcache__keep(const char *dir, const struct ap_mmap *m);

#endif /* APERTURE_BIDCACHE_H */
