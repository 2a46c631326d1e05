// SPDX-License-Identifier: GPL-2.0
/*
 * The record file reader: maps the file, checks the header, validates the
 * trailer if there is one, then inflates blocks one at a time and hands out
 * their frames.  Nothing read from the file is trusted: every length is
 * checked against what is there, every block against its CRCs, and a
 * damaged block costs that block only (see RECOVERY in aperture-file(5)).
 */
#include "format/reader.h"
#include "util/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define AP_FILE_HDR_FIXED	16	/* magic, major, minor, length */
#define AP_TRAILER_FIXED	(16 + AP_TRAILER_TAGS * 8)
#define AP_FOOTER_LEN		16
/* bound on a block's raw length: the writer ends a block within one frame
 * of 256 KiB; a crafted one claiming a GiB cost a GiB of memory */
#define AP_BLOCK_RAW_MAX	(32u << 20)

struct ap_reader {
	const uint8_t *map;
	size_t size;
	int from_stdin;			/* map is malloc'd, not mapped */
	struct ap_header hdr;
	size_t off;			/* next block header */
	size_t end;			/* blocks end here: trailer or EOF */
	uint64_t block_no;		/* blocks met, good or bad */
	uint8_t *raw;			/* the current block, inflated */
	size_t raw_cap;
	size_t raw_len;
	size_t raw_off;			/* next frame in raw */
	z_stream zs;
	int done;
	uint64_t trailer_blocks;
	uint64_t trailer_frames;
	const char *trailer_bad;	/* why the trailer was ignored */
	uint64_t trailer_bad_off;
	uint64_t bad_summaries;		/* told once, counted */
	ap_warn_fn warn;
	void *warn_ctx;
	struct ap_read_stats stats;
};

/*
 * The file is mapped, and a file that shrinks while it is read (another
 * recorder writing it anew, a user truncating it) turns the next access
 * past its new end into SIGBUS.  Every access to the map is guarded: the
 * handler jumps back to the guard, which reports the file as cut there.
 */
static __thread sigjmp_buf *bus_jmp;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	if (bus_jmp)
		siglongjmp(*bus_jmp, 1);
	/* not ours: die of it as without the handler */
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

static void bus_guard(sigjmp_buf *jb, struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, old);
	bus_jmp = jb;
}

static void bus_unguard(const struct sigaction *old)
{
	bus_jmp = NULL;
	sigaction(SIGBUS, old, NULL);
}

static void default_warn(void *ctx, const char *msg)
{
	fprintf(stderr, "aperture: warning: %s\n", msg);
}

__attribute__((format(printf, 2, 3)))
static void reader__warn(struct ap_reader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->warn(r->warn_ctx, msg);
}

__attribute__((format(printf, 3, 4)))
static void set_err(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errbuf || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

static uint32_t crc(const void *p, size_t n)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

typedef unsigned long long ull;

/*
 * Checks the header at the start of the map; returns the offset of the
 * first block or -errno with errbuf filled in.
 */
static long reader__header(struct ap_reader *r, const char *path,
			   char *errbuf, size_t errlen)
{
	const uint8_t *m = r->map;
	size_t n = r->size < 8 ? r->size : 8;
	uint32_t hlen, stored;
	uint16_t major, minor;
	int err;

	if (memcmp(m, AP_FILE_MAGIC, n)) {
		set_err(errbuf, errlen,
			"%s: not an aperture record file (bad magic)", path);
		return -EPROTO;
	}
	if (r->size < AP_FILE_HDR_FIXED)
		goto out_short;
	major = ap_get_le16(m + 8);
	minor = ap_get_le16(m + 10);
	hlen = ap_get_le32(m + 12);
	if (r->size - AP_FILE_HDR_FIXED < (size_t)hlen + 4)
		goto out_short;
	stored = ap_get_le32(m + AP_FILE_HDR_FIXED + hlen);
	/* 1.5 on: version, length and payload; 1.0 to 1.4: the payload */
	if (crc(m + 8, AP_FILE_HDR_FIXED - 8 + (size_t)hlen) != stored &&
	    (major != 1 || minor >= AP_FORMAT_MINOR_HDR_CRC ||
	     crc(m + AP_FILE_HDR_FIXED, hlen) != stored)) {
		set_err(errbuf, errlen,
			"%s: header CRC mismatch: the file is corrupt", path);
		return -EBADMSG;
	}
	if (major > AP_FORMAT_MAJOR) {
		set_err(errbuf, errlen,
			"%s: format version %u.%u is newer than this aperture (%d.%d); upgrade aperture",
			path, major, minor, AP_FORMAT_MAJOR, AP_FORMAT_MINOR);
		return -EPROTONOSUPPORT;
	}
	err = ap_header__decode(m + AP_FILE_HDR_FIXED, hlen, &r->hdr);
	if (err) {
		set_err(errbuf, errlen, "%s: malformed header", path);
		return err;
	}
	r->hdr.major = major;
	r->hdr.minor = minor;
	return AP_FILE_HDR_FIXED + (long)hlen + 4;

out_short:
	set_err(errbuf, errlen,
		"%s: header cut short (%zu bytes): not a complete aperture file",
		path, r->size);
	return -ENODATA;
}

/* Looks for a valid trailer; sets r->end to where blocks stop. */
static void reader__trailer(struct ap_reader *r, size_t data_off)
{
	const uint8_t *m = r->map, *foot, *t;
	uint64_t toff, nblocks;
	uint32_t tlen;
	const char *why;

	r->end = r->size;
	if (r->size < data_off + AP_FOOTER_LEN)
		return;
	foot = m + r->size - AP_FOOTER_LEN;
	if (memcmp(foot + 8, "APEND\0\0\0", 8))
		return;
	toff = ap_get_le64(foot);
	why = "bad offset";
	if (toff < data_off || toff > r->size - AP_FOOTER_LEN ||
	    r->size - AP_FOOTER_LEN - toff < 12)
		goto out_bad;
	t = m + toff;
	tlen = ap_get_le32(t + 4);
	why = "bad magic or length";
	if (memcmp(t, "APTR", 4) ||
	    (uint64_t)tlen + 12 != r->size - AP_FOOTER_LEN - toff)
		goto out_bad;
	why = "CRC mismatch";
	if (crc(t, 8 + (size_t)tlen) != ap_get_le32(t + 8 + tlen))
		goto out_bad;
	why = "bad block count";
	nblocks = ap_get_le64(t + 8);
	if (tlen < AP_TRAILER_FIXED ||
	    (tlen - AP_TRAILER_FIXED) / 12 != nblocks ||
	    (tlen - AP_TRAILER_FIXED) % 12)
		goto out_bad;
	r->trailer_blocks = nblocks;
	r->trailer_frames = ap_get_le64(t + 16);
	r->stats.has_trailer = 1;
	r->end = toff;
	return;

out_bad:
	/* told at the first ap_reader__next, once the caller's warn is set */
	r->trailer_bad = why;
	r->trailer_bad_off = toff;
}

/* header and trailer, the map guarded against a shrinking file */
static long reader__parse(struct ap_reader *r, const char *path,
			  char *errbuf, size_t errlen)
{
	struct sigaction old;
	volatile long off;
	sigjmp_buf jb;

	bus_guard(&jb, &old);
	if (sigsetjmp(jb, 1)) {
		bus_unguard(&old);
		set_err(errbuf, errlen,
			"%s: the file shrank while being read", path);
		return -ENODATA;
	}
	off = reader__header(r, path, errbuf, errlen);
	if (off >= 0)
		reader__trailer(r, (size_t)off);
	bus_unguard(&old);
	return off;
}

/*
 * "-": the whole stream from standard input (record -o - | report -i -),
 * or from a FIFO the user named (/dev/stdin of a pipe); the reader then
 * works on it as on a mapped file.
 */
static int reader__slurp(struct ap_reader *r, int fd, const char *name,
			 char *errbuf, size_t errlen)
{
	size_t cap = 1 << 20, len = 0;
	uint8_t *buf = malloc(cap), *n;
	ssize_t k;

	while (buf) {
		if (len == cap) {
			n = realloc(buf, cap * 2);
			if (!n)
				break;
			buf = n;
			cap *= 2;
		}
		k = read(fd, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;

			free(buf);
			set_err(errbuf, errlen, "reading %s: %s", name,
				strerror(e));
			return -e;
		}
		if (!k)
			break;
		len += (size_t)k;
	}
	if (!buf || len == cap) {
		free(buf);
		set_err(errbuf, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	if (!len) {
		free(buf);
		set_err(errbuf, errlen, "%s is empty: not an aperture stream",
			name);
		return -ENODATA;
	}
	r->map = buf;
	r->size = len;
	r->stats.file_size = len;
	return 0;
}

/* how long a FIFO may stay silent before its first bytes: a writer that
 * is about to send (record -o FIFO started just before), not one that
 * never comes (a FIFO another user planted at the path) */
#define FIFO_FIRST_MS	10000

/* path opened for reading if it is a FIFO or a socket (what /dev/stdin
 * of a pipe is) and bytes come within FIFO_FIRST_MS, else -1: never a
 * device, which can be endless; never a wait for ever */
static int open_fifo(const char *path)
{
	struct pollfd pfd = { .events = POLLIN };
	struct stat st;
	int fd, fl;

	/* non-blocking: the open of a FIFO waits for a writer otherwise */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		goto fail;
	pfd.fd = fd;
	if (poll(&pfd, 1, FIFO_FIRST_MS) != 1 || !(pfd.revents & POLLIN))
		goto fail;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

static void reader__unmap(struct ap_reader *r)
{
	if (r->from_stdin)
		free((void *)r->map);
	else if (r->map)
		munmap((void *)r->map, r->size);
}

struct ap_reader *ap_reader__open(const char *path, int *err,
				  char *errbuf, size_t errlen)
{
	return ap_reader__open_stream(path, 0, err, errbuf, errlen);
}

struct ap_reader *ap_reader__open_stream(const char *path, int fifo_ok,
					 int *err, char *errbuf, size_t errlen)
{
	struct ap_reader *r;
	struct stat st;
	long data_off;
	int fd, ret;

	r = calloc(1, sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		set_err(errbuf, errlen, "%s: out of memory", path);
		goto out;
	}
	r->warn = default_warn;
	if (!strcmp(path, "-")) {
		ret = reader__slurp(r, STDIN_FILENO, "standard input", errbuf,
				    errlen);
		if (ret)
			goto out_free;
		r->from_stdin = 1;
		fd = -1;
		goto parse;
	}
	/* a pipe the user named: -i /dev/stdin, a FIFO (perf's).  Told
	 * apart before any open: opening a FIFO, even only to see what it
	 * is, lets its waiting writer in, and closing it then kills the
	 * writer with SIGPIPE */
	if (fifo_ok && !stat(path, &st) &&
	    (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		fd = -AP_ENOTREG;
	else
		fd = ap_open_regular(path, 0);
	if (fd == -AP_ENOTREG) {
		fd = fifo_ok ? open_fifo(path) : -1;
		if (fd < 0) {
			ret = -EINVAL;
			set_err(errbuf, errlen,
				"%s: not a regular file, nor a FIFO or pipe that sent a recording within %d s",
				path, FIFO_FIRST_MS / 1000);
			goto out_free;
		}
		ret = reader__slurp(r, fd, path, errbuf, errlen);
		close(fd);
		if (ret)
			goto out_free;
		r->from_stdin = 1;
		fd = -1;
		goto parse;
	}
	if (fd < 0) {
		ret = fd;
		set_err(errbuf, errlen, "cannot open '%s': %s", path,
			strerror(-fd));
		goto out_free;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		set_err(errbuf, errlen, "cannot stat '%s': %s", path,
			strerror(errno));
		goto out_close;
	}
	r->size = (size_t)st.st_size;
	r->stats.file_size = r->size;
	if (!r->size) {
		ret = -ENODATA;
		set_err(errbuf, errlen,
			"%s: header cut short (0 bytes): not a complete aperture file",
			path);
		goto out_close;
	}
	r->map = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (r->map == MAP_FAILED) {
		ret = -errno;
		r->map = NULL;
		set_err(errbuf, errlen, "cannot map '%s': %s", path,
			strerror(errno));
		goto out_close;
	}
	madvise((void *)r->map, r->size, MADV_SEQUENTIAL);
parse:
	data_off = reader__parse(r, path, errbuf, errlen);
	if (data_off < 0) {
		ret = (int)data_off;
		goto out_unmap;
	}
	/* raw deflate: each block's zlib header is checked by hand and its
	 * Adler-32 trailer not recomputed, the block's CRC-32 having
	 * covered those bytes already (Adler-32 was a twentieth of report) */
	if (inflateInit2(&r->zs, -MAX_WBITS) != Z_OK) {
		ret = -ENOMEM;
		set_err(errbuf, errlen, "%s: out of memory", path);
		goto out_unmap;
	}
	if (fd >= 0)
		close(fd);
	r->off = (size_t)data_off;
	r->stats.truncated = !r->stats.has_trailer;
	return r;

out_unmap:
	reader__unmap(r);
out_close:
	if (fd >= 0)
		close(fd);
out_free:
	free(r);
out:
	*err = ret;
	return NULL;
}

void ap_reader__set_warn(struct ap_reader *r, ap_warn_fn fn, void *ctx)
{
	r->warn = fn ? fn : default_warn;
	r->warn_ctx = ctx;
}

const struct ap_header *ap_reader__header(const struct ap_reader *r)
{
	return &r->hdr;
}

const struct ap_read_stats *ap_reader__stats(const struct ap_reader *r)
{
	return &r->stats;
}

/* a zlib stream's 2-byte header (RFC 1950): deflate, a window zlib can
 * use, no preset dictionary, the check bits right; and room for the
 * Adler-32 trailer */
#define ZLIB_TRAILER	4
static int zlib_hdr_ok(const uint8_t *z, uint32_t clen)
{
	return clen >= 2 + ZLIB_TRAILER && (z[0] & 0x0f) == Z_DEFLATED &&
	       (z[0] >> 4) <= 7 && !(z[1] & 0x20) &&
	       ((unsigned)z[0] << 8 | z[1]) % 31 == 0;
}

static int block_hdr_ok(const uint8_t *h)
{
	return !memcmp(h, "APBK", 4) && crc(h, 20) == ap_get_le32(h + 20);
}

/* the end of the data is reached: say what was recovered, if anything is
 * missing */
static void reader__finish(struct ap_reader *r)
{
	struct ap_read_stats *s = &r->stats;

	r->done = 1;
	if (r->bad_summaries > 1)
		reader__warn(r, "%llu malformed summary frames in all",
			     (ull)r->bad_summaries);
	if (!s->has_trailer)
		return;
	if (s->blocks + s->blocks_bad != r->trailer_blocks ||
	    s->frames + s->frames_skipped != r->trailer_frames)
		reader__warn(r,
			     "trailer lists %llu blocks (%llu frames), found %llu good and %llu bad (%llu frames read)",
			     (ull)r->trailer_blocks, (ull)r->trailer_frames,
			     (ull)s->blocks, (ull)s->blocks_bad,
			     (ull)s->frames);
}

static void reader__cut_short(struct ap_reader *r, const char *what,
			      uint64_t need)
{
	struct ap_read_stats *s = &r->stats;

	reader__warn(r,
		     "file cut short at offset %llu: %s %llu at offset %llu needs %llu bytes, %llu present; recovered %llu blocks, %llu frames (%llu of %llu bytes)",
		     (ull)r->size, what, (ull)r->block_no, (ull)r->off,
		     (ull)need, (ull)(r->size - r->off), (ull)s->blocks,
		     (ull)s->frames, (ull)s->bytes_read, (ull)r->size);
	reader__finish(r);
}

/* The header at r->off is bad: skip to the next valid block header. */
static void reader__resync(struct ap_reader *r, const char *why)
{
	size_t from = r->off, at;

	r->stats.blocks_bad++;
	for (at = from + 1; at + AP_BLOCK_HDR_LEN <= r->end; at++) {
		const uint8_t *p = memmem(r->map + at, r->end - at, "APBK", 4);

		if (!p)
			break;
		at = (size_t)(p - r->map);
		if (at + AP_BLOCK_HDR_LEN <= r->end && block_hdr_ok(p)) {
			reader__warn(r,
				     "block %llu at offset %llu: %s, resynced at offset %llu (%llu bytes skipped)",
				     (ull)r->block_no, (ull)from, why,
				     (ull)at, (ull)(at - from));
			r->block_no++;
			r->off = at;
			return;
		}
	}
	reader__warn(r,
		     "block %llu at offset %llu: %s, no block after it (%llu bytes skipped)",
		     (ull)r->block_no, (ull)from, why, (ull)(r->end - from));
	r->block_no++;
	r->off = r->end;
}

/* checks that raw holds exactly nframes whole frames */
static int frames_ok(const uint8_t *p, size_t len, uint32_t nframes)
{
	size_t off = 0;
	uint32_t n = 0;

	while (off < len) {
		if (len - off < AP_FRAME_HDR_LEN ||
		    ap_get_le32(p + off + 4) > len - off - AP_FRAME_HDR_LEN)
			return 0;
		off += AP_FRAME_HDR_LEN + ap_get_le32(p + off + 4);
		n++;
	}
	return n == nframes;
}

/*
 * Loads the next good block into r->raw.  Returns 1 when one is loaded,
 * 0 at the end of the data, -errno on an allocation failure.
 */
static int reader__load(struct ap_reader *r)
{
	struct ap_read_stats *s = &r->stats;

	if (r->trailer_bad) {
		reader__warn(r,
			     "trailer at offset %llu is corrupt (%s); ignored",
			     (ull)r->trailer_bad_off, r->trailer_bad);
		r->trailer_bad = NULL;
	}
	while (!r->done) {
		const uint8_t *h = r->map + r->off;
		size_t left = r->end - r->off, total;
		uint32_t clen, rlen, nframes;
		const char *why;
		char zmsg[96];
		int zret;

		if (!left) {
			if (!s->has_trailer)
				reader__warn(r,
					     "file cut short at offset %llu: no trailer (the recorder did not finish); recovered %llu blocks, %llu frames (%llu of %llu bytes)",
					     (ull)r->size, (ull)s->blocks,
					     (ull)s->frames,
					     (ull)s->bytes_read, (ull)r->size);
			reader__finish(r);
			break;
		}
		if (left < AP_BLOCK_HDR_LEN) {
			if (!s->has_trailer &&
			    !memcmp(h, "APBK", left < 4 ? left : 4)) {
				reader__cut_short(r, "header of block",
						  AP_BLOCK_HDR_LEN);
				break;
			}
		}
		if (!s->has_trailer && left >= 4 && !memcmp(h, "APTR", 4)) {
			/* a trailer without its footer: close was cut */
			reader__warn(r,
				     "file cut short at offset %llu: trailer at offset %llu incomplete; recovered %llu blocks, %llu frames (%llu of %llu bytes)",
				     (ull)r->size, (ull)r->off,
				     (ull)s->blocks, (ull)s->frames,
				     (ull)s->bytes_read, (ull)r->size);
			reader__finish(r);
			break;
		}
		if (left < AP_BLOCK_HDR_LEN || memcmp(h, "APBK", 4)) {
			reader__resync(r, "bad block magic");
			continue;
		}
		if (!block_hdr_ok(h)) {
			reader__resync(r, "block header CRC mismatch");
			continue;
		}
		clen = ap_get_le32(h + 4);
		rlen = ap_get_le32(h + 8);
		nframes = ap_get_le32(h + 12);
		total = AP_BLOCK_HDR_LEN + (size_t)clen;
		if (total > left) {
			if (!s->has_trailer) {
				s->frames_skipped += nframes;
				reader__cut_short(r, "block", total);
				break;
			}
			reader__resync(r, "block runs past the trailer");
			continue;
		}

		why = NULL;
		if (crc(h + AP_BLOCK_HDR_LEN, clen) != ap_get_le32(h + 16))
			why = "CRC mismatch";
		else if (rlen > AP_BLOCK_RAW_MAX ||
			 (uint64_t)rlen > (uint64_t)clen * 1032 + 64)
			why = "implausible raw length";
		if (!why && rlen + 1 > r->raw_cap) {
			uint8_t *raw = realloc(r->raw, (size_t)rlen + 1);

			if (!raw)
				return -ENOMEM;
			r->raw = raw;
			r->raw_cap = (size_t)rlen + 1;
		}
		if (!why && !zlib_hdr_ok(h + AP_BLOCK_HDR_LEN, clen))
			why = "inflate failed (not a zlib stream)";
		if (!why) {
			inflateReset(&r->zs);
			r->zs.next_in = (Bytef *)(h + AP_BLOCK_HDR_LEN + 2);
			r->zs.avail_in = clen - 2;
			r->zs.next_out = r->raw;
			r->zs.avail_out = rlen;
			zret = inflate(&r->zs, Z_FINISH);
			if (zret != Z_STREAM_END && r->zs.avail_out) {
				snprintf(zmsg, sizeof(zmsg),
					 "inflate failed (%s)",
					 r->zs.msg ? r->zs.msg : "truncated");
				why = zmsg;
			} else if (zret != Z_STREAM_END ||
				   r->zs.avail_in != ZLIB_TRAILER) {
				why = "inflated size differs from the header";
			} else if (r->zs.avail_out) {
				snprintf(zmsg, sizeof(zmsg),
					 "inflated to %llu bytes, header says %u",
					 (ull)(rlen - r->zs.avail_out), rlen);
				why = zmsg;
			} else if (!frames_ok(r->raw, rlen, nframes)) {
				why = "frames overrun the block";
			}
		}
		if (why) {
			reader__warn(r,
				     "block %llu at offset %llu: %s, skipped (%llu bytes)",
				     (ull)r->block_no, (ull)r->off, why,
				     (ull)total);
			s->blocks_bad++;
			s->frames_skipped += nframes;
			r->block_no++;
			r->off += total;
			continue;
		}
		s->blocks++;
		s->bytes_read += total;
		r->block_no++;
		r->off += total;
		r->raw_len = rlen;
		r->raw_off = 0;
		return 1;
	}
	return 0;
}

/* reader__load with the map guarded against a shrinking file */
static int reader__load_guarded(struct ap_reader *r)
{
	struct sigaction old;
	sigjmp_buf jb;
	int ret;

	bus_guard(&jb, &old);
	if (sigsetjmp(jb, 1)) {
		bus_unguard(&old);
		reader__warn(r,
			     "file cut short at offset %llu: it shrank while being read; recovered %llu blocks, %llu frames",
			     (ull)r->off, (ull)r->stats.blocks,
			     (ull)r->stats.frames);
		r->stats.truncated = 1;
		r->raw_len = r->raw_off = 0;
		r->done = 1;
		return 0;
	}
	ret = reader__load(r);
	bus_unguard(&old);
	return ret;
}

int ap_reader__next(struct ap_reader *r, struct ap_frame *f)
{
	const uint8_t *p;
	int err;

	while (r->raw_off >= r->raw_len) {
		r->raw_off = r->raw_len = 0;
		err = reader__load_guarded(r);
		if (err <= 0)
			return err;
	}
	/* frames_ok() vouched for the framing of the whole block */
	p = r->raw + r->raw_off;
	f->tag = ap_get_le32(p);
	f->len = ap_get_le32(p + 4);
	f->payload = p + AP_FRAME_HDR_LEN;
	r->raw_off += AP_FRAME_HDR_LEN + (size_t)f->len;
	r->stats.frames++;
	if (f->tag == AP_TAG_SUMMARY) {
		if (!ap_summary__decode(f->payload, f->len, &r->stats.summary))
			r->stats.has_summary = 1;
		else if (!r->bad_summaries++)
			/* once: a crafted file could hold millions */
			reader__warn(r, "malformed summary frame (%u bytes)",
				     f->len);
	}
	return 1;
}

void ap_reader__close(struct ap_reader *r)
{
	if (!r)
		return;
	inflateEnd(&r->zs);
	reader__unmap(r);
	free(r->raw);
	free(r);
}
