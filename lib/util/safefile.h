/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening files that someone else names: a path from a target's mappings
 * or from a record file may be a FIFO, a device or a link planted by
 * another user.  Open without blocking, check the descriptor is a regular
 * file, and read through that descriptor only.
 */
#ifndef APERTURE_SAFEFILE_H
#define APERTURE_SAFEFILE_H

#include <errno.h>
#include <stddef.h>

/* the error for "exists but is not a regular file": one open(2) never
 * returns, so that callers can tell it apart */
#define AP_ENOTREG	EMEDIUMTYPE
/* for an output: a FIFO or socket that another user owns (the writer's
 * open, lib/format/writer.c); no open(2) returns it either */
#define AP_ENOTOURS	EOWNERDEAD

/*
 * Opens path read-only, non-blocking, close-on-exec, plus flags (O_NOFOLLOW
 * where the last component must not be a link); returns a descriptor of a
 * regular file, in blocking mode, or -errno (-AP_ENOTREG when path names
 * anything else: a FIFO, a socket, a device, a directory).
 */
int ap_open_regular(const char *path, int flags);

/*
 * Whether the file at path may be loaded into a program (an injection
 * library): it and every directory above it, links resolved, belong to
 * root or to the effective user, and none can be written by anyone else
 * (group root aside; a sticky directory, /tmp, excepted: others cannot
 * replace what is not theirs there).  0 with the resolved path in real[rlen], or -errno
 * (-EPERM: with the reason in why[wlen]).
 */
int ap_path_trusted(const char *path, char *real, size_t rlen, char *why,
		    size_t wlen);

/* strerror() for ap_open_regular's errors */
const char *ap_open_strerror(int err);

#endif /* APERTURE_SAFEFILE_H */
