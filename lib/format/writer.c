// SPDX-License-Identifier: GPL-2.0
/*
 * The record file writer.  Layout (man/aperture-file.5):
 *
 *	file header	"APERTURE" u16 major u16 minor u32 len, payload, crc
 *	block ...	"APBK" u32 clen u32 rlen u32 frames u32 dcrc u32 hcrc
 *			then clen bytes of zlib data inflating to rlen bytes
 *	trailer		"APTR" u32 len payload u32 crc
 *	footer		u64 trailer offset, "APEND\0\0\0"
 *
 * Blocks go out with write(2) as soon as they are complete, so a block
 * written is in the kernel even if the recorder is killed.  A block that
 * fails to be written (ENOSPC, EFBIG, EIO) is dropped, the file is cut back
 * to the end of the last good block where it can be, and its frames are
 * added to lost[AP_LOST_WRITE] of the summary that close writes.
 */
#include "format/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/safefile.h"

/* level 1: measured on 256 KiB blocks of cpu and stack frames, 69 MB/s at
 * ratio 2.5 against 17 MB/s at ratio 2.9 for level 6; the writer is on
 * the recording hot path */
#define AP_ZLIB_LEVEL		1

struct ap_block_ent {
	uint64_t off;
	uint32_t frames;
};

struct ap_writer {
	int fd;
	int created;			/* a new regular file, ours */
	uint64_t off;			/* bytes in the file */
	struct ap_buf block;		/* frames of the current block */
	uint32_t block_frames;
	uint64_t block_tags[AP_TRAILER_TAGS];
	uint8_t *zbuf;			/* block header and zlib data */
	size_t zcap;
	z_stream zs;
	uint64_t frames;		/* frames in blocks written */
	uint64_t tag_frames[AP_TRAILER_TAGS];
	uint64_t frames_dropped;	/* in blocks that failed to write */
	struct ap_block_ent *idx;
	size_t nidx;
	size_t idx_cap;
};

static uint32_t crc(const void *p, size_t n)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

static int write_all(int fd, const void *p, size_t n, size_t *done)
{
	const uint8_t *d = p;

	*done = 0;
	while (*done < n) {
		ssize_t k = write(fd, d + *done, n - *done);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		*done += k;
	}
	return 0;
}

/*
 * Writes n bytes at the end of the file.  On failure, cuts the file back to
 * where it was so the next write does not leave a torn block in between;
 * where that is impossible (a pipe) the reader resyncs past the torn part.
 */
static int writer__write(struct ap_writer *w, const void *p, size_t n)
{
	size_t done;
	int err;

	err = write_all(w->fd, p, n, &done);
	if (!err) {
		w->off += n;
		return 0;
	}
	if (done && (ftruncate(w->fd, (off_t)w->off) ||
		     lseek(w->fd, (off_t)w->off, SEEK_SET) < 0))
		w->off += done;
	return err;
}

/*
 * An existing file that is not a regular one, opened as it is: a device
 * (no user can make one; /dev/null) or a FIFO or socket of the caller's
 * own.  One of another user's (planted in /tmp, with fs.protected_fifos 0)
 * would hand them the whole recording: refused, as a link is.
 */
static int writer__usable(const struct stat *st)
{
	if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode) ||
	    S_ISLNK(st->st_mode))
		return -EEXIST;
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return 0;
	return st->st_uid == geteuid() ? 0 : -AP_ENOTOURS;
}

/*
 * Opens the output without following a link or truncating anything: a
 * new file is created with O_EXCL; an existing regular file is unlinked
 * first (whoever holds it keeps its data); a device or a FIFO of one's
 * own the user named (/dev/null) is opened as it is, never created, never
 * chmod'ed.
 */
static int writer__open(const char *path, int *created)
{
	struct stat st, fst;
	int fd, fl, tries, err;

	*created = 0;
	for (tries = 0; tries < 2; tries++) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				O_CLOEXEC, 0600);
		if (fd >= 0) {
			*created = 1;
			return fd;
		}
		if (errno != EEXIST)
			return -errno;
		if (lstat(path, &st))
			return errno == ENOENT ? -EEXIST : -errno;
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISREG(st.st_mode))
			break;
		/* a second time means someone else keeps creating it */
		if (tries || (unlink(path) && errno != ENOENT))
			return tries ? -EEXIST : -errno;
	}
	/* checked before the open too: a reader at another user's FIFO
	 * does not even see a writer come */
	err = writer__usable(&st);
	if (err)
		return err;
	/* O_NONBLOCK: a FIFO without a reader fails instead of hanging */
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
			O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &fst)) {
		err = -errno;
		goto out_close;
	}
	/* replaced since lstat: judged again, as opened */
	err = writer__usable(&fst);
	if (!err && (fst.st_dev != st.st_dev || fst.st_ino != st.st_ino))
		err = -EEXIST;
	if (err)
		goto out_close;
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;

out_close:
	close(fd);
	return err;
}

struct ap_writer *ap_writer__create(const char *path,
				    const struct ap_header *hdr, int *err)
{
	struct ap_writer *w;
	struct ap_buf b;
	size_t lenpos;
	uint8_t *p;
	int ret;

	ap_buf__init(&b);
	w = calloc(1, sizeof(*w));
	if (!w) {
		ret = -ENOMEM;
		goto out;
	}
	ap_buf__init(&w->block);
	if (deflateInit(&w->zs, AP_ZLIB_LEVEL) != Z_OK) {
		ret = -ENOMEM;
		goto out_free;
	}
	/* "-": standard output, a pipe usually; blocks go out in order
	 * and the reader takes the stream as it comes */
	if (!strcmp(path, "-")) {
		w->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (w->fd < 0)
			w->fd = -errno;
	} else {
		w->fd = writer__open(path, &w->created);
	}
	if (w->fd < 0) {
		ret = w->fd;
		goto out_deflate;
	}
	/* the umask may have taken bits off; only a file made here */
	if (w->created && fchmod(w->fd, 0600)) {
		ret = -errno;
		goto out_unlink;
	}

	ap_buf__put(&b, AP_FILE_MAGIC, 8);
	ap_buf__u16(&b, AP_FORMAT_MAJOR);
	ap_buf__u16(&b, AP_FORMAT_MINOR);
	lenpos = b.len;
	ap_buf__u32(&b, 0);
	ret = ap_header__encode(hdr, &b);
	if (ret)
		goto out_close;
	if (b.len - lenpos - 4 > UINT32_MAX) {
		ret = -E2BIG;
		goto out_close;
	}
	ap_put_le32(b.data + lenpos, (uint32_t)(b.len - lenpos - 4));
	/* from 1.5 on the CRC covers the version and length too: a flipped
	 * version bit is corruption, not another format */
	p = b.data + 8;
	ap_buf__u32(&b, crc(p, b.len - 8));
	if (b.err) {
		ret = b.err;
		goto out_close;
	}
	ret = writer__write(w, b.data, b.len);
	if (ret)
		goto out_unlink;
	ap_buf__free(&b);
	return w;

out_unlink:
	if (w->created)
		unlink(path);
out_close:
	close(w->fd);
out_deflate:
	deflateEnd(&w->zs);
out_free:
	free(w);
out:
	ap_buf__free(&b);
	*err = ret;
	return NULL;
}

/* checks that [p, p + len) is whole frames; counts them per tag */
static int frames__check(const uint8_t *p, size_t len, uint32_t *n)
{
	size_t off = 0;

	*n = 0;
	while (off < len) {
		uint32_t flen;

		if (len - off < AP_FRAME_HDR_LEN)
			return -EINVAL;
		flen = ap_get_le32(p + off + 4);
		if (flen > len - off - AP_FRAME_HDR_LEN)
			return -EINVAL;
		off += AP_FRAME_HDR_LEN + flen;
		(*n)++;
	}
	return 0;
}

int ap_writer__append(struct ap_writer *w, const void *frames, size_t len)
{
	const uint8_t *p = frames;
	size_t off = 0;
	uint32_t n;
	int err, ret = 0;

	err = frames__check(p, len, &n);
	if (err)
		return err;
	/* frame by frame, so a block ends near the target */
	while (off < len) {
		uint32_t tag = ap_get_le32(p + off);
		size_t flen = AP_FRAME_HDR_LEN + ap_get_le32(p + off + 4);

		ap_buf__put(&w->block, p + off, flen);
		if (w->block.err) {
			w->block.err = 0;
			return -ENOMEM;
		}
		w->block_frames++;
		if (tag < AP_TRAILER_TAGS)
			w->block_tags[tag]++;
		off += flen;
		if (w->block.len >= AP_BLOCK_TARGET) {
			err = ap_writer__flush(w);
			if (err && !ret)
				ret = err;
		}
	}
	return ret;
}

static void writer__drop_block(struct ap_writer *w)
{
	ap_buf__reset(&w->block);
	w->block_frames = 0;
	memset(w->block_tags, 0, sizeof(w->block_tags));
}

int ap_writer__flush(struct ap_writer *w)
{
	size_t need, clen;
	uint8_t *h;
	int i, err;

	if (!w->block_frames)
		return 0;
	if (w->block.len > UINT32_MAX) {
		err = -E2BIG;
		goto out_drop;
	}
	if (w->nidx == w->idx_cap) {
		size_t cap = w->idx_cap ? w->idx_cap * 2 : 64;
		struct ap_block_ent *idx;

		idx = realloc(w->idx, cap * sizeof(*idx));
		if (!idx)
			return -ENOMEM;	/* the block stays for a retry */
		w->idx = idx;
		w->idx_cap = cap;
	}
	need = AP_BLOCK_HDR_LEN + deflateBound(&w->zs, w->block.len);
	if (need > w->zcap) {
		uint8_t *z = realloc(w->zbuf, need);

		if (!z)
			return -ENOMEM;
		w->zbuf = z;
		w->zcap = need;
	}

	w->zs.next_in = w->block.data;
	w->zs.avail_in = (uInt)w->block.len;
	w->zs.next_out = w->zbuf + AP_BLOCK_HDR_LEN;
	w->zs.avail_out = (uInt)(need - AP_BLOCK_HDR_LEN);
	i = deflate(&w->zs, Z_FINISH);
	clen = need - AP_BLOCK_HDR_LEN - w->zs.avail_out;
	deflateReset(&w->zs);
	if (i != Z_STREAM_END) {
		err = -EIO;
		goto out_drop;
	}

	h = w->zbuf;
	memcpy(h, "APBK", 4);
	ap_put_le32(h + 4, (uint32_t)clen);
	ap_put_le32(h + 8, (uint32_t)w->block.len);
	ap_put_le32(h + 12, w->block_frames);
	ap_put_le32(h + 16, crc(h + AP_BLOCK_HDR_LEN, clen));
	ap_put_le32(h + 20, crc(h, 20));

	w->idx[w->nidx].off = w->off;
	w->idx[w->nidx].frames = w->block_frames;
	err = writer__write(w, h, AP_BLOCK_HDR_LEN + clen);
	if (err)
		goto out_drop;
	w->nidx++;
	w->frames += w->block_frames;
	for (i = 0; i < AP_TRAILER_TAGS; i++)
		w->tag_frames[i] += w->block_tags[i];
	writer__drop_block(w);
	return 0;

out_drop:
	w->frames_dropped += w->block_frames;
	writer__drop_block(w);
	return err;
}

static int writer__trailer(struct ap_writer *w)
{
	uint64_t toff = w->off;
	struct ap_buf b;
	size_t i;
	int err;

	ap_buf__init(&b);
	ap_buf__put(&b, "APTR", 4);
	ap_buf__u32(&b, 0);
	ap_buf__u64(&b, w->nidx);
	ap_buf__u64(&b, w->frames);
	for (i = 0; i < AP_TRAILER_TAGS; i++)
		ap_buf__u64(&b, w->tag_frames[i]);
	for (i = 0; i < w->nidx; i++) {
		ap_buf__u64(&b, w->idx[i].off);
		ap_buf__u32(&b, w->idx[i].frames);
	}
	if (b.err) {
		err = b.err;
		goto out_free;
	}
	if (b.len - 8 > UINT32_MAX) {
		err = -E2BIG;
		goto out_free;
	}
	ap_put_le32(b.data + 4, (uint32_t)(b.len - 8));
	ap_buf__u32(&b, crc(b.data, b.len));
	ap_buf__u64(&b, toff);
	ap_buf__put(&b, "APEND\0\0\0", 8);
	err = b.err;
	if (!err)
		err = writer__write(w, b.data, b.len);
out_free:
	ap_buf__free(&b);
	return err;
}

/*
 * sum may be NULL: no summary frame then.  Its lost[AP_LOST_WRITE] is
 * written plus the frames of blocks this writer failed to write.
 */
int ap_writer__close(struct ap_writer *w, const struct ap_summary *sum)
{
	int err, ret;

	if (!w)
		return 0;
	ret = ap_writer__flush(w);
	if (sum) {
		struct ap_summary s = *sum;
		struct ap_buf b;

		s.lost[AP_LOST_WRITE] += w->frames_dropped;
		ap_buf__init(&b);
		ap_summary__encode(&s, &b);
		err = b.err;
		if (!err)
			err = ap_writer__append(w, b.data, b.len);
		if (!err)
			err = ap_writer__flush(w);
		if (err && !ret)
			ret = err;
		ap_buf__free(&b);
	}
	err = writer__trailer(w);
	if (err && !ret)
		ret = err;
	if (close(w->fd) && !ret)
		ret = -errno;
	deflateEnd(&w->zs);
	ap_buf__free(&w->block);
	free(w->zbuf);
	free(w->idx);
	free(w);
	return ret;
}

int ap_writer__chown(struct ap_writer *w, uid_t uid, gid_t gid)
{
	if (!w->created)
		return 0;
	return fchown(w->fd, uid, gid) ? -errno : 0;
}

uint64_t ap_writer__bytes(const struct ap_writer *w)
{
	return w ? w->off : 0;
}

uint64_t ap_writer__frames(const struct ap_writer *w)
{
	return w ? w->frames : 0;
}
