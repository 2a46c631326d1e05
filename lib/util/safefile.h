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

/* strerror() for ap_open_regular's errors */
const char *ap_open_strerror(int err);

#endif /* APERTURE_SAFEFILE_H */
