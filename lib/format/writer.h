/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a record file: frames are gathered into a block; a block is
 * compressed with zlib and written with its length and CRC-32 when it is
 * full or flushed.  Every written block survives a crash of the writer.
 */
#ifndef APERTURE_WRITER_H
#define APERTURE_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/format.h"

struct ap_writer;

#define AP_BLOCK_TARGET		(256 * 1024)	/* raw bytes per block */

/* Creates path with mode 0600 and writes the header.  No link is
 * followed (-ELOOP) and nothing is truncated: an existing regular file is
 * replaced by a new one; a device or FIFO (/dev/null) is written as it is.
 * Returns NULL and sets *err to -errno. */
struct ap_writer *ap_writer__create(const char *path,
				    const struct ap_header *hdr, int *err);
/* Appends encoded frames (header + payload, as ap_*__encode made them) to
 * the current block; flushes it when it reaches AP_BLOCK_TARGET. */
int ap_writer__append(struct ap_writer *w, const void *frames, size_t len);
/* Ends the current block (if it holds any frame) and writes it. */
int ap_writer__flush(struct ap_writer *w);
/* Flushes, writes the summary frame and the trailer, closes the file and
 * frees w.  Returns 0 or -errno; w is freed in any case.  NULL is fine. */
int ap_writer__close(struct ap_writer *w, const struct ap_summary *sum);
/* Gives the file to uid:gid ((gid_t)-1: unchanged) when this writer
 * created it; a device or FIFO it writes to keeps its owner.  0 or
 * -errno. */
int ap_writer__chown(struct ap_writer *w, uid_t uid, gid_t gid);
/* bytes written to the file so far */
uint64_t ap_writer__bytes(const struct ap_writer *w);
uint64_t ap_writer__frames(const struct ap_writer *w);

#endif /* APERTURE_WRITER_H */
