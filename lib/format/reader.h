/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a record file frame by frame.  A file cut short yields every
 * complete block; a block whose CRC or inflation fails is skipped with a
 * warning.  Warnings go to the warn callback (stderr by default).
 */
#ifndef APERTURE_READER_H
#define APERTURE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

struct ap_reader;

struct ap_frame {
	uint32_t tag;
	uint32_t len;
	const uint8_t *payload;	/* valid until the next ap_reader__next */
};

struct ap_read_stats {
	uint64_t blocks;		/* good blocks read */
	uint64_t blocks_bad;		/* skipped: CRC, inflate or framing */
	uint64_t frames;
	uint64_t frames_skipped;	/* unknown tags are not counted here */
	uint64_t bytes_read;		/* file bytes consumed by good blocks */
	uint64_t file_size;
	int truncated;			/* ended without a trailer */
	int has_trailer;
	int has_summary;
	struct ap_summary summary;	/* valid if has_summary */
};

typedef void (*ap_warn_fn)(void *ctx, const char *msg);

/* Opens path and reads the header.  On failure returns NULL, sets *err to
 * -errno (-EPROTO: not an aperture file, -EPROTONOSUPPORT: newer major
 * version, -ENODATA: header cut short) and writes one line to errbuf. */
struct ap_reader *ap_reader__open(const char *path, int *err,
				  char *errbuf, size_t errlen);
/* the same, and with fifo_ok a FIFO or a pipe at path (a path the user
 * named: -i /dev/stdin) is read whole as a stream; without it, and for
 * every other file that is not regular, NULL with "not a regular file" */
struct ap_reader *ap_reader__open_stream(const char *path, int fifo_ok,
					 int *err, char *errbuf,
					 size_t errlen);
void ap_reader__set_warn(struct ap_reader *r, ap_warn_fn fn, void *ctx);
const struct ap_header *ap_reader__header(const struct ap_reader *r);
/* 1: *f filled; 0: end of data; <0: -errno (I/O error) */
int ap_reader__next(struct ap_reader *r, struct ap_frame *f);
const struct ap_read_stats *ap_reader__stats(const struct ap_reader *r);
void ap_reader__close(struct ap_reader *r);

#endif /* APERTURE_READER_H */
