// SPDX-License-Identifier: GPL-2.0
/*
 * lib/format/writer.c and lib/format/reader.c together: a file written is read back
 * frame for frame; a file cut short anywhere yields exactly its complete
 * blocks; a damaged block costs that block only; files that are not
 * aperture files, or are newer, or are empty, are refused with the errno
 * reader.h promises.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zlib.h>

#include "format/format.h"
#include "format/reader.h"
#include "util/safefile.h"
#include "symbols/symbolizer.h"
#include "format/writer.h"

#define NBLOCKS		8	/* data blocks of the master file */
#define MAXFRAMES	4096

/* warnings collected from the reader */
struct warns {
	int n;
	char all[8192];
};

static void collect_warn(void *ctx, const char *msg)
{
	struct warns *w = ctx;
	size_t len = strlen(w->all);

	w->n++;
	snprintf(w->all + len, sizeof(w->all) - len, "%s\n", msg);
}

static void tmp_path(char *buf, size_t size)
{
	int fd;

	snprintf(buf, size, "/tmp/aperture-test-XXXXXX");
	fd = mkstemp(buf);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

/* frame i: a cpu sample with ts = i, every 4th a stack with id = i */
static void encode_frame(uint64_t i, struct ap_buf *b)
{
	if (i % 4 == 3) {
		uint64_t ips[6] = { i, i + 1, i + 2, 0x7f00000000ull + i,
				    i * 3, 42 };
		struct ap_stack s = { (uint32_t)i, 2, (uint16_t)(i % 5),
				      ips };

		ap_stack__encode(&s, b);
	} else {
		struct ap_cpu_sample s = { i, 100 + (uint32_t)i % 3,
					   200 + (uint32_t)i % 7,
					   (uint32_t)i % 4, (uint32_t)i / 2 };

		ap_cpu_sample__encode(&s, b);
	}
}

static void append_frames(struct ap_writer *w, uint64_t from, uint64_t n)
{
	struct ap_buf b;
	uint64_t i;

	ap_buf__init(&b);
	for (i = from; i < from + n; i++)
		encode_frame(i, &b);
	ck_assert_int_eq(b.err, 0);
	ck_assert_int_eq(ap_writer__append(w, b.data, b.len), 0);
	ap_buf__free(&b);
}

static void fill_header(struct ap_header *h)
{
	ap_header__init(h);
	h->start_mono_ns = 5000;
	h->freq = 49;
	h->ncpus = 4;
	strcpy(h->host, "testhost");
	strcpy(h->kernel, "6.1.0");
	strcpy(h->cmdline, "aperture record -F 49 -p 1");
	strcpy(h->target, "pid 1");
}

static void fill_summary(struct ap_summary *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->end_mono_ns = 99999;
	s->samples = 1234;
	s->events = 2345;
	for (i = 0; i < AP_LOST_NR; i++)
		s->lost[i] = i * 11;
	s->exit_status = -1;
}

/* the master file: NBLOCKS data blocks, a summary block, a trailer */
static char master[64];
static uint64_t blk_off[NBLOCKS + 2];	/* [NBLOCKS]: summary block */
static uint64_t blk_first[NBLOCKS + 1];	/* first frame of each block */
static uint64_t master_frames;		/* data frames */
static uint64_t master_size;

static void master_setup(void)
{
	struct ap_summary sum;
	struct ap_header h;
	struct ap_writer *w;
	struct stat st;
	uint64_t next = 0;
	int k, err = 0;

	tmp_path(master, sizeof(master));
	fill_header(&h);
	fill_summary(&sum);
	w = ap_writer__create(master, &h, &err);
	ck_assert_ptr_nonnull(w);
	for (k = 0; k < NBLOCKS; k++) {
		uint64_t n = 10 + k * 13;

		blk_off[k] = ap_writer__bytes(w);
		blk_first[k] = next;
		append_frames(w, next, n);
		next += n;
		ck_assert_int_eq(ap_writer__flush(w), 0);
		ck_assert_uint_eq(ap_writer__frames(w), next);
	}
	/* a flush with nothing pending writes nothing */
	ck_assert_int_eq(ap_writer__flush(w), 0);
	blk_off[NBLOCKS] = ap_writer__bytes(w);
	blk_first[NBLOCKS] = next;
	master_frames = next;
	ck_assert_int_eq(ap_writer__close(w, &sum), 0);
	ck_assert_int_eq(stat(master, &st), 0);
	master_size = (uint64_t)st.st_size;
	/* the trailer starts where the footer says */
	{
		uint8_t foot[16];
		int fd = open(master, O_RDONLY);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(pread(fd, foot, 16, (off_t)master_size - 16),
				 16);
		close(fd);
		ck_assert_mem_eq(foot + 8, "APEND\0\0\0", 8);
		blk_off[NBLOCKS + 1] = ap_get_le64(foot);
	}
}

static void master_teardown(void)
{
	unlink(master);
}

/* copies the first len bytes of src to a new temp file, xor-ing the byte
 * at flip (if flip < len) with 0x55 */
static void copy_variant(const char *src, char *dst, size_t dsize,
			 uint64_t len, uint64_t flip)
{
	uint8_t *buf = malloc(len + 1);
	int fd;

	ck_assert_ptr_nonnull(buf);
	fd = open(src, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, buf, len, 0), (ssize_t)len);
	close(fd);
	if (flip < len)
		buf[flip] ^= 0x55;
	tmp_path(dst, dsize);
	fd = open(dst, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
}

/*
 * Reads path to the end; checks each frame against encode_frame and
 * stores the frame numbers in got.  Returns how many data frames came.
 */
static size_t read_all(const char *path, uint64_t *got, struct warns *wn,
		       struct ap_read_stats *st)
{
	char errbuf[256] = "";
	struct ap_reader *r;
	struct ap_frame f;
	struct ap_buf want;
	size_t n = 0;
	int err = 0, ret;

	memset(wn, 0, sizeof(*wn));
	r = ap_reader__open(path, &err, errbuf, sizeof(errbuf));
	ck_assert_msg(r != NULL, "open: %d %s", err, errbuf);
	ap_reader__set_warn(r, collect_warn, wn);
	ap_buf__init(&want);
	while ((ret = ap_reader__next(r, &f)) == 1) {
		uint64_t i;

		if (f.tag == AP_TAG_SUMMARY)
			continue;
		ck_assert_uint_ge(f.len, 8);
		i = f.tag == AP_TAG_STACK ? ap_get_le32(f.payload)
					  : ap_get_le64(f.payload);
		ap_buf__reset(&want);
		encode_frame(i, &want);
		ck_assert_uint_eq(f.len + AP_FRAME_HDR_LEN, want.len);
		ck_assert_uint_eq(f.tag, ap_get_le32(want.data));
		ck_assert_mem_eq(f.payload, want.data + AP_FRAME_HDR_LEN,
				 f.len);
		ck_assert_uint_lt(n, MAXFRAMES);
		got[n++] = i;
	}
	ck_assert_int_eq(ret, 0);
	/* the end stays the end */
	ck_assert_int_eq(ap_reader__next(r, &f), 0);
	*st = *ap_reader__stats(r);
	ap_buf__free(&want);
	ap_reader__close(r);
	return n;
}

/* got must be frames [0, master_frames) less those of block skip
 * (skip < 0: none) and of blocks >= upto */
static void expect_blocks(const uint64_t *got, size_t n, int skip, int upto)
{
	uint64_t i, k = 0;
	int b;

	for (b = 0; b < NBLOCKS && b < upto; b++) {
		if (b == skip)
			continue;
		for (i = blk_first[b]; i < blk_first[b + 1]; i++) {
			ck_assert_uint_lt(k, n);
			ck_assert_uint_eq(got[k], i);
			k++;
		}
	}
	ck_assert_uint_eq(k, n);
}

START_TEST(test_read_all)
{
	static uint64_t got[MAXFRAMES];
	struct ap_read_stats st;
	struct ap_summary sum;
	struct warns wn;
	size_t n;

	n = read_all(master, got, &wn, &st);
	expect_blocks(got, n, -1, NBLOCKS);
	ck_assert_msg(wn.n == 0, "warnings: %s", wn.all);
	ck_assert_uint_eq(st.blocks, NBLOCKS + 1);
	ck_assert_uint_eq(st.blocks_bad, 0);
	ck_assert_uint_eq(st.frames, master_frames + 1);
	ck_assert_uint_eq(st.frames_skipped, 0);
	ck_assert_uint_eq(st.bytes_read, blk_off[NBLOCKS + 1] - blk_off[0]);
	ck_assert_uint_eq(st.file_size, master_size);
	ck_assert_int_eq(st.truncated, 0);
	ck_assert_int_eq(st.has_trailer, 1);
	ck_assert_int_eq(st.has_summary, 1);
	fill_summary(&sum);
	ck_assert_mem_eq(&st.summary, &sum, sizeof(sum));
}
END_TEST

START_TEST(test_read_header)
{
	struct ap_header want, *got = NULL;
	struct ap_reader *r;
	char errbuf[256];
	int err = 0;

	fill_header(&want);
	r = ap_reader__open(master, &err, errbuf, sizeof(errbuf));
	ck_assert_ptr_nonnull(r);
	got = (struct ap_header *)ap_reader__header(r);
	ck_assert_mem_eq(got, &want, sizeof(want));
	ap_reader__close(r);
}
END_TEST

/*
 * Cut at each block's start, inside its header and inside its data, for
 * every block including the summary block; then in the trailer and the
 * footer.
 */
START_TEST(test_truncated)
{
	static uint64_t got[MAXFRAMES];
	int k = _i / 3, v = _i % 3;
	struct ap_read_stats st;
	char path[64];
	struct warns wn;
	uint64_t cut;
	size_t n;

	if (k <= NBLOCKS) {
		cut = blk_off[k];
		if (v == 1)
			cut += 10;
		else if (v == 2)
			cut += (blk_off[k + 1] - blk_off[k]) / 2;
	} else if (v == 0) {
		cut = blk_off[NBLOCKS + 1];		/* no trailer */
	} else if (v == 1) {
		cut = blk_off[NBLOCKS + 1] + 20;	/* in the trailer */
	} else {
		cut = master_size - 3;		/* in the footer */
	}
	copy_variant(master, path, sizeof(path), cut, UINT64_MAX);
	n = read_all(path, got, &wn, &st);
	unlink(path);

	if (k > NBLOCKS)
		k = NBLOCKS + 1;
	expect_blocks(got, n, -1, k);
	ck_assert_uint_eq(st.blocks, (uint64_t)k);
	ck_assert_uint_eq(st.blocks_bad, 0);
	ck_assert_uint_eq(st.bytes_read, blk_off[k] - blk_off[0]);
	ck_assert_int_eq(st.truncated, 1);
	ck_assert_int_eq(st.has_trailer, 0);
	ck_assert_int_eq(st.has_summary, k > NBLOCKS);
	ck_assert_int_ge(wn.n, 1);
	ck_assert_msg(strstr(wn.all, "file cut short at offset") != NULL,
		      "warnings: %s", wn.all);
	ck_assert_msg(strstr(wn.all, "recovered") != NULL, "warnings: %s",
		      wn.all);
}
END_TEST

/* a byte flipped in block _i's compressed data: that block only is lost */
START_TEST(test_bad_crc)
{
	static uint64_t got[MAXFRAMES];
	struct ap_read_stats st;
	char path[64], want[128];
	struct warns wn;
	size_t n;

	copy_variant(master, path, sizeof(path), master_size,
		     blk_off[_i] + 24 + 5);
	n = read_all(path, got, &wn, &st);
	unlink(path);

	expect_blocks(got, n, _i, NBLOCKS);
	ck_assert_uint_eq(st.blocks, NBLOCKS);
	ck_assert_uint_eq(st.blocks_bad, 1);
	ck_assert_uint_eq(st.frames_skipped, blk_first[_i + 1] - blk_first[_i]);
	ck_assert_int_eq(st.truncated, 0);
	ck_assert_int_eq(st.has_trailer, 1);
	ck_assert_int_eq(st.has_summary, 1);
	snprintf(want, sizeof(want),
		 "block %d at offset %llu: CRC mismatch, skipped (%llu bytes)",
		 _i, (unsigned long long)blk_off[_i],
		 (unsigned long long)(blk_off[_i + 1] - blk_off[_i]));
	ck_assert_msg(strstr(wn.all, want) != NULL, "warnings: %s", wn.all);
}
END_TEST

/*
 * Block 1's compressed bytes changed and its CRC made to match, as only
 * someone writing a file on purpose would: a bad zlib header skips the
 * block with one line; a changed Adler-32 trailer is not looked at (the
 * CRC-32 covers those bytes), the block reads whole.
 */
START_TEST(test_zlib_stream)
{
	static uint64_t got[MAXFRAMES];
	const uint64_t b = 1, h = blk_off[b];
	struct ap_read_stats st;
	char path[64], want[128];
	struct warns wn;
	uint8_t hdr[AP_BLOCK_HDR_LEN], *z;
	uint32_t clen;
	size_t n;
	int fd;

	copy_variant(master, path, sizeof(path), master_size, (uint64_t)-1);
	fd = open(path, O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, hdr, sizeof(hdr), (off_t)h),
			 (ssize_t)sizeof(hdr));
	clen = ap_get_le32(hdr + 4);
	z = malloc(clen);
	ck_assert_ptr_nonnull(z);
	ck_assert_int_eq(pread(fd, z, clen, (off_t)h + sizeof(hdr)),
			 (ssize_t)clen);
	if (_i == 0)
		z[1] ^= 0x20;		/* a preset dictionary */
	else
		z[clen - 1] ^= 0x55;	/* the Adler-32 */
	ap_put_le32(hdr + 16, (uint32_t)crc32(crc32(0L, Z_NULL, 0), z, clen));
	ap_put_le32(hdr + 20, (uint32_t)crc32(crc32(0L, Z_NULL, 0), hdr, 20));
	ck_assert_int_eq(pwrite(fd, z, clen, (off_t)h + sizeof(hdr)),
			 (ssize_t)clen);
	ck_assert_int_eq(pwrite(fd, hdr, sizeof(hdr), (off_t)h),
			 (ssize_t)sizeof(hdr));
	close(fd);
	free(z);
	n = read_all(path, got, &wn, &st);
	unlink(path);

	if (_i == 1) {
		expect_blocks(got, n, -1, NBLOCKS);
		ck_assert_uint_eq(st.blocks_bad, 0);
		return;
	}
	expect_blocks(got, n, (int)b, NBLOCKS);
	ck_assert_uint_eq(st.blocks_bad, 1);
	snprintf(want, sizeof(want),
		 "block %d at offset %llu: inflate failed (not a zlib stream), skipped",
		 (int)b, (unsigned long long)h);
	ck_assert_msg(strstr(wn.all, want) != NULL, "warnings: %s", wn.all);
}
END_TEST

/* a byte flipped in block _i's length or magic: detected, resynced */
START_TEST(test_bad_block_header)
{
	static uint64_t got[MAXFRAMES];
	int k = _i / 2;
	uint64_t flip = blk_off[k] + (_i % 2 ? 5 : 1);
	struct ap_read_stats st;
	char path[64], want[128];
	struct warns wn;
	size_t n;

	copy_variant(master, path, sizeof(path), master_size, flip);
	n = read_all(path, got, &wn, &st);
	unlink(path);

	expect_blocks(got, n, k, NBLOCKS);
	ck_assert_uint_eq(st.blocks, NBLOCKS);
	ck_assert_uint_eq(st.blocks_bad, 1);
	ck_assert_int_eq(st.has_summary, 1);
	snprintf(want, sizeof(want), "resynced at offset %llu",
		 (unsigned long long)blk_off[k + 1]);
	ck_assert_msg(strstr(wn.all, want) != NULL, "warnings: %s", wn.all);
}
END_TEST

/* a damaged trailer is ignored: every block is still read */
START_TEST(test_bad_trailer)
{
	static uint64_t got[MAXFRAMES];
	struct ap_read_stats st;
	struct warns wn;
	char path[64];
	size_t n;

	copy_variant(master, path, sizeof(path), master_size,
		     blk_off[NBLOCKS + 1] + 30);
	n = read_all(path, got, &wn, &st);
	unlink(path);
	expect_blocks(got, n, -1, NBLOCKS);
	ck_assert_uint_eq(st.blocks, NBLOCKS + 1);
	ck_assert_int_eq(st.has_trailer, 0);
	ck_assert_int_eq(st.truncated, 1);
	ck_assert_msg(strstr(wn.all, "is corrupt (CRC mismatch); ignored"),
		      "warnings: %s", wn.all);
}
END_TEST

/* a file of malformed summary frames: one warning and a count, not one
 * warning per frame */
START_TEST(test_bad_summaries_once)
{
	struct ap_header h;
	struct ap_writer *w;
	struct ap_reader *r;
	struct ap_frame f;
	struct warns wn = { 0 };
	struct ap_buf b;
	char path[64];
	size_t mark;
	int i, n = 0, err = 0;

	tmp_path(path, sizeof(path));
	fill_header(&h);
	ap_buf__init(&b);
	for (i = 0; i < 1000; i++) {
		ap_frame__begin(&b, AP_TAG_SUMMARY, &mark);
		ap_buf__put(&b, "short", 5);
		ap_frame__end(&b, mark);
	}
	ck_assert_int_eq(b.err, 0);
	w = ap_writer__create(path, &h, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(ap_writer__append(w, b.data, b.len), 0);
	ck_assert_int_eq(ap_writer__close(w, NULL), 0);
	ap_buf__free(&b);

	r = ap_reader__open(path, &err, NULL, 0);
	ck_assert_ptr_nonnull(r);
	ap_reader__set_warn(r, collect_warn, &wn);
	while (ap_reader__next(r, &f) == 1)
		n++;
	ck_assert_int_eq(n, 1000);
	ck_assert_int_eq(ap_reader__stats(r)->has_summary, 0);
	ap_reader__close(r);
	ck_assert_int_eq(wn.n, 2);
	ck_assert_str_eq(wn.all, "malformed summary frame (5 bytes)\n"
				 "1000 malformed summary frames in all\n");
	unlink(path);
}
END_TEST

START_TEST(test_unknown_tag)
{
	struct ap_cpu_sample a = { 1, 2, 3, 4, 5 }, c = { 6, 7, 8, 9, 10 };
	struct ap_cpu_sample got;
	struct ap_header h;
	struct ap_writer *w;
	struct ap_reader *r;
	struct ap_frame f;
	struct ap_buf b;
	char path[64];
	size_t mark;
	int err = 0;

	tmp_path(path, sizeof(path));
	fill_header(&h);
	ap_buf__init(&b);
	ap_cpu_sample__encode(&a, &b);
	ap_frame__begin(&b, 999, &mark);
	ap_buf__put(&b, "opaque-payload", 14);
	ap_frame__end(&b, mark);
	ap_cpu_sample__encode(&c, &b);
	w = ap_writer__create(path, &h, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(ap_writer__append(w, b.data, b.len), 0);
	ck_assert_int_eq(ap_writer__close(w, NULL), 0);
	ap_buf__free(&b);

	r = ap_reader__open(path, &err, NULL, 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(ap_reader__next(r, &f), 1);
	ck_assert_uint_eq(f.tag, AP_TAG_CPU);
	ck_assert_int_eq(ap_reader__next(r, &f), 1);
	ck_assert_uint_eq(f.tag, 999);
	ck_assert_uint_eq(f.len, 14);
	ck_assert_mem_eq(f.payload, "opaque-payload", 14);
	ck_assert_int_eq(ap_reader__next(r, &f), 1);
	ck_assert_uint_eq(f.tag, AP_TAG_CPU);
	ck_assert_int_eq(ap_cpu_sample__decode(f.payload, f.len, &got), 0);
	ck_assert_mem_eq(&got, &c, sizeof(c));
	ck_assert_int_eq(ap_reader__next(r, &f), 0);
	ck_assert_uint_eq(ap_reader__stats(r)->frames, 3);
	ck_assert_uint_eq(ap_reader__stats(r)->frames_skipped, 0);
	/* closed without a summary */
	ck_assert_int_eq(ap_reader__stats(r)->has_summary, 0);
	ck_assert_int_eq(ap_reader__stats(r)->has_trailer, 1);
	ap_reader__close(r);
	unlink(path);
}
END_TEST

/* what ap_reader__open refuses */
static void expect_open_err(const char *path, int want, const char *msg)
{
	char errbuf[256] = "";
	struct ap_reader *r;
	int err = 0;

	r = ap_reader__open(path, &err, errbuf, sizeof(errbuf));
	ck_assert_ptr_null(r);
	ck_assert_int_eq(err, want);
	ck_assert_msg(strstr(errbuf, msg) != NULL, "errbuf: %s", errbuf);
	ck_assert_msg(strncmp(errbuf, path, strlen(path)) == 0 ||
		      strstr(errbuf, path), "errbuf: %s", errbuf);
}

static void write_file(char *path, size_t size, const void *p, size_t n)
{
	int fd;

	tmp_path(path, size);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, p, n), (ssize_t)n);
	close(fd);
}

START_TEST(test_open_not_aperture)
{
	static const char text[] = "#!/bin/sh\necho this is not a record\n";
	char path[64];

	write_file(path, sizeof(path), text, sizeof(text) - 1);
	expect_open_err(path, -EPROTO,
			": not an aperture record file (bad magic)");
	unlink(path);
	/* shorter than the magic, and not a prefix of it */
	write_file(path, sizeof(path), "APX", 3);
	expect_open_err(path, -EPROTO, "bad magic");
	unlink(path);
}
END_TEST

/*
 * Sets the version of the file at path and its header CRC as a writer of
 * that version would: over version, length and payload (1.5 on) or over
 * the payload only (1.0 to 1.4, payload_crc).
 */
static void set_version(const char *path, uint16_t major, uint16_t minor,
			int payload_crc)
{
	uint8_t h[16 + 4096];
	uint32_t len, c;
	int fd = open(path, O_RDWR);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, h, sizeof(h), 0), (ssize_t)sizeof(h));
	ap_put_le16(h + 8, major);
	ap_put_le16(h + 10, minor);
	len = ap_get_le32(h + 12);
	ck_assert_uint_le(len, sizeof(h) - 20);
	c = payload_crc ? crc32(crc32(0, Z_NULL, 0), h + 16, len) :
			  crc32(crc32(0, Z_NULL, 0), h + 8, 8 + len);
	ap_put_le32(h + 16 + len, c);
	ck_assert_int_eq(pwrite(fd, h, 20 + len, 0), (ssize_t)(20 + len));
	close(fd);
}

START_TEST(test_open_newer_major)
{
	char path[64], msg[128];

	copy_variant(master, path, sizeof(path), master_size, UINT64_MAX);
	set_version(path, 84, AP_FORMAT_MINOR, 0);
	snprintf(msg, sizeof(msg),
		 ": format version 84.%d is newer than this aperture (1.%d); upgrade aperture",
		 AP_FORMAT_MINOR, AP_FORMAT_MINOR);
	expect_open_err(path, -EPROTONOSUPPORT, msg);
	unlink(path);
}
END_TEST

/* a flipped bit in the version is corruption, not another version */
START_TEST(test_open_version_flipped)
{
	char path[64];

	copy_variant(master, path, sizeof(path), master_size, 8 + _i);
	expect_open_err(path, -EBADMSG, "header CRC mismatch");
	unlink(path);
}
END_TEST

/* files of 1.0 to 1.4, whose header CRC covers the payload only, are read;
 * a 1.5 file with such a CRC is not */
START_TEST(test_open_old_minor)
{
	static uint64_t got[MAXFRAMES];
	struct ap_read_stats st;
	struct ap_reader *r;
	struct warns wn;
	char path[64];
	int err = 0;
	size_t n;

	copy_variant(master, path, sizeof(path), master_size, UINT64_MAX);
	set_version(path, 1, 2, 1);
	r = ap_reader__open(path, &err, NULL, 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(ap_reader__header(r)->minor, 2);
	ap_reader__close(r);
	n = read_all(path, got, &wn, &st);
	expect_blocks(got, n, -1, NBLOCKS);
	ck_assert_int_eq(wn.n, 0);
	set_version(path, 1, 4, 1);
	r = ap_reader__open(path, &err, NULL, 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(ap_reader__header(r)->minor, 4);
	ap_reader__close(r);
	set_version(path, 1, 5, 1);
	expect_open_err(path, -EBADMSG, "header CRC mismatch");
	unlink(path);
}
END_TEST

START_TEST(test_open_newer_minor)
{
	static uint64_t got[MAXFRAMES];
	struct ap_read_stats st;
	struct ap_reader *r;
	struct warns wn;
	char path[64];
	int err = 0;
	size_t n;

	copy_variant(master, path, sizeof(path), master_size, UINT64_MAX);
	set_version(path, 1, AP_FORMAT_MINOR + 84, 0);
	r = ap_reader__open(path, &err, NULL, 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(ap_reader__header(r)->major, 1);
	ck_assert_uint_eq(ap_reader__header(r)->minor, AP_FORMAT_MINOR + 84);
	ap_reader__close(r);
	n = read_all(path, got, &wn, &st);
	expect_blocks(got, n, -1, NBLOCKS);
	ck_assert_int_eq(wn.n, 0);
	unlink(path);
}
END_TEST

START_TEST(test_open_empty)
{
	char path[64];

	write_file(path, sizeof(path), "", 0);
	expect_open_err(path, -ENODATA,
			": header cut short (0 bytes): not a complete aperture file");
	unlink(path);
}
END_TEST

/* every length short of the whole header (and some twice) */
START_TEST(test_open_header_cut)
{
	uint64_t cut = 1 + (uint64_t)(_i - 1) % (blk_off[0] - 1);
	char path[64], want[96];

	copy_variant(master, path, sizeof(path), cut, UINT64_MAX);
	snprintf(want, sizeof(want), "header cut short (%llu bytes)",
		 (unsigned long long)cut);
	expect_open_err(path, -ENODATA, want);
	unlink(path);
}
END_TEST

START_TEST(test_open_header_crc)
{
	char path[64];

	copy_variant(master, path, sizeof(path), master_size, 20);
	expect_open_err(path, -EBADMSG, "header CRC mismatch");
	unlink(path);
}
END_TEST

START_TEST(test_open_missing)
{
	expect_open_err("/tmp/aperture-test-does-not-exist/x", -ENOENT,
			"No such file or directory");
}
END_TEST

static void create_and_check_mode(const char *path)
{
	struct ap_header h;
	struct ap_writer *w;
	struct stat st;
	int err = 0;

	fill_header(&h);
	w = ap_writer__create(path, &h, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(fstatat(AT_FDCWD, path, &st, 0), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(ap_writer__close(w, NULL), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
}

START_TEST(test_create_mode)
{
	char path[64];
	mode_t old = umask(0);

	tmp_path(path, sizeof(path));
	unlink(path);
	create_and_check_mode(path);		/* a new file */
	ck_assert_int_eq(chmod(path, 0644), 0);
	create_and_check_mode(path);		/* an existing 0644 file */
	umask(old);
	unlink(path);
}
END_TEST

START_TEST(test_create_bad_path)
{
	struct ap_header h;
	int err = 0;

	fill_header(&h);
	ck_assert_ptr_null(ap_writer__create("/tmp/aperture-no-such-dir/f",
					     &h, &err));
	ck_assert_int_eq(err, -ENOENT);
}
END_TEST

START_TEST(test_append_invalid)
{
	uint8_t frame[16] = { 0 };
	struct ap_header h;
	struct ap_writer *w;
	char path[64];
	int err = 0;

	tmp_path(path, sizeof(path));
	fill_header(&h);
	w = ap_writer__create(path, &h, &err);
	ck_assert_ptr_nonnull(w);
	/* half a frame header */
	ck_assert_int_eq(ap_writer__append(w, frame, 4), -EINVAL);
	/* a payload running past the data */
	ap_put_le32(frame + 4, 9);
	ck_assert_int_eq(ap_writer__append(w, frame, 16), -EINVAL);
	/* a whole frame of 8 bytes and the start of another */
	ap_put_le32(frame + 4, 0);
	ck_assert_int_eq(ap_writer__append(w, frame, 12), -EINVAL);
	ck_assert_int_eq(ap_writer__append(w, frame, 8), 0);
	ck_assert_int_eq(ap_writer__append(w, frame, 0), 0);
	ck_assert_int_eq(ap_writer__flush(w), 0);
	ck_assert_uint_eq(ap_writer__frames(w), 1);
	ck_assert_int_eq(ap_writer__close(w, NULL), 0);
	unlink(path);
}
END_TEST

/* appending more than AP_BLOCK_TARGET flushes on its own */
START_TEST(test_append_autoflush)
{
	uint64_t i, nframes = 0;
	struct ap_header h;
	struct ap_writer *w;
	struct ap_reader *r;
	struct ap_frame f;
	struct warns wn;
	struct ap_buf b;
	char path[64];
	int err = 0;

	tmp_path(path, sizeof(path));
	fill_header(&h);
	w = ap_writer__create(path, &h, &err);
	ck_assert_ptr_nonnull(w);
	ap_buf__init(&b);
	/* 3000 frames of ~100 bytes in one append: > one block */
	for (i = 0; i < 3000; i++) {
		size_t mark;

		ap_frame__begin(&b, AP_TAG_SENSOR, &mark);
		ap_buf__put(&b, "................................"
			    "................................"
			    "................................", 96);
		ap_frame__end(&b, mark);
	}
	ck_assert_uint_gt(b.len, AP_BLOCK_TARGET);
	ck_assert_int_eq(ap_writer__append(w, b.data, b.len), 0);
	ck_assert_uint_gt(ap_writer__frames(w), 0);
	ck_assert_uint_lt(ap_writer__frames(w), 3000);
	ck_assert_int_eq(ap_writer__close(w, NULL), 0);
	ap_buf__free(&b);

	memset(&wn, 0, sizeof(wn));
	r = ap_reader__open(path, &err, NULL, 0);
	ck_assert_ptr_nonnull(r);
	ap_reader__set_warn(r, collect_warn, &wn);
	while ((err = ap_reader__next(r, &f)) == 1) {
		ck_assert_uint_eq(f.tag, AP_TAG_SENSOR);
		ck_assert_uint_eq(f.len, 96);
		nframes++;
	}
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(nframes, 3000);
	ck_assert_uint_eq(ap_reader__stats(r)->blocks, 2);
	ck_assert_int_eq(wn.n, 0);
	ap_reader__close(r);
	unlink(path);
}
END_TEST

/*
 * A write that fails (here EFBIG, as ENOSPC would) drops that block only;
 * the writer goes on, close writes a good trailer and the summary counts
 * the frames lost.
 */
START_TEST(test_flush_write_error)
{
	static uint64_t got[MAXFRAMES];
	struct ap_read_stats st;
	struct ap_summary sum;
	struct ap_header h;
	struct ap_writer *w;
	struct rlimit old, lim;
	void (*oldsig)(int);
	struct warns wn;
	uint64_t before;
	char path[64];
	int err = 0, i;
	size_t n;

	tmp_path(path, sizeof(path));
	fill_header(&h);
	fill_summary(&sum);
	w = ap_writer__create(path, &h, &err);
	ck_assert_ptr_nonnull(w);
	append_frames(w, 0, 20);
	ck_assert_int_eq(ap_writer__flush(w), 0);
	before = ap_writer__bytes(w);

	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = before + 10;	/* the next block gets 10 bytes in */
	oldsig = signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	append_frames(w, 20, 30);
	err = ap_writer__flush(w);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, oldsig);
	ck_assert_int_eq(err, -EFBIG);
	ck_assert_uint_eq(ap_writer__bytes(w), before);
	ck_assert_uint_eq(ap_writer__frames(w), 20);

	append_frames(w, 50, 25);
	ck_assert_int_eq(ap_writer__flush(w), 0);
	ck_assert_int_eq(ap_writer__close(w, &sum), 0);

	n = read_all(path, got, &wn, &st);
	ck_assert_msg(wn.n == 0, "warnings: %s", wn.all);
	ck_assert_uint_eq(n, 45);
	for (i = 0; i < 20; i++)
		ck_assert_uint_eq(got[i], i);
	for (i = 20; i < 45; i++)
		ck_assert_uint_eq(got[i], i + 30);
	ck_assert_int_eq(st.has_trailer, 1);
	ck_assert_int_eq(st.has_summary, 1);
	ck_assert_uint_eq(st.summary.lost[AP_LOST_WRITE],
			  sum.lost[AP_LOST_WRITE] + 30);
	ck_assert_uint_eq(st.summary.samples, sum.samples);
	unlink(path);
}
END_TEST

START_TEST(test_close_null)
{
	ck_assert_int_eq(ap_writer__close(NULL, NULL), 0);
	ck_assert_uint_eq(ap_writer__bytes(NULL), 0);
	ck_assert_uint_eq(ap_writer__frames(NULL), 0);
	ap_reader__close(NULL);
}
END_TEST

/* the file shrinks under the reader (mapped): the rest reads as cut
 * short, with no SIGBUS */
START_TEST(test_shrinks_while_read)
{
	struct ap_reader *r;
	struct ap_frame f;
	struct warns wn;
	char path[64], errbuf[256];
	int err = 0, n = 0;

	copy_variant(master, path, sizeof(path), master_size, UINT64_MAX);
	r = ap_reader__open(path, &err, errbuf, sizeof(errbuf));
	ck_assert_ptr_nonnull(r);
	memset(&wn, 0, sizeof(wn));
	ap_reader__set_warn(r, collect_warn, &wn);
	ck_assert_int_eq(truncate(path, 0), 0);
	while (ap_reader__next(r, &f) > 0)
		n++;
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(ap_reader__stats(r)->truncated, 1);
	ck_assert_msg(strstr(wn.all, "shrank while being read") != NULL,
		      "warnings: %s", wn.all);
	ap_reader__close(r);
	unlink(path);
}
END_TEST

/* a link planted at the output is not followed, its target untouched */
START_TEST(test_create_symlink)
{
	char target[64], link[80];
	struct ap_header h;
	struct stat st;
	int err = 0;

	tmp_path(target, sizeof(target));
	ck_assert_int_eq(chmod(target, 0644), 0);
	snprintf(link, sizeof(link), "%s.lnk", target);
	ck_assert_int_eq(symlink(target, link), 0);
	fill_header(&h);
	ck_assert_ptr_null(ap_writer__create(link, &h, &err));
	ck_assert_int_eq(err, -ELOOP);
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(st.st_size, 0);
	/* a dangling link: nothing is created where it points */
	unlink(target);
	ck_assert_ptr_null(ap_writer__create(link, &h, &err));
	ck_assert_int_eq(err, -ELOOP);
	ck_assert_int_eq(access(target, F_OK), -1);
	unlink(link);
}
END_TEST

/* an existing file is replaced, not truncated: a hard link to it keeps
 * its bytes */
START_TEST(test_create_no_truncate)
{
	char path[64], other[80];
	struct ap_header h;
	struct ap_writer *w;
	struct stat st;
	int fd, err = 0;

	tmp_path(path, sizeof(path));
	fd = open(path, O_WRONLY);
	ck_assert_int_eq(write(fd, "precious", 8), 8);
	close(fd);
	snprintf(other, sizeof(other), "%s.hard", path);
	ck_assert_int_eq(link(path, other), 0);
	fill_header(&h);
	w = ap_writer__create(path, &h, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(ap_writer__close(w, NULL), 0);
	ck_assert_int_eq(stat(other, &st), 0);
	ck_assert_int_eq(st.st_size, 8);
	unlink(other);
	unlink(path);
}
END_TEST

/* a device is written as it is, its mode left alone; a FIFO without a
 * reader fails at once */
START_TEST(test_create_device_fifo)
{
	char path[64];
	struct ap_header h;
	struct ap_writer *w;
	struct stat st;
	int err = 0;

	fill_header(&h);
	tmp_path(path, sizeof(path));
	unlink(path);
	if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		ck_assert_int_eq(chmod(path, 0666), 0);
		w = ap_writer__create(path, &h, &err);
		ck_assert_ptr_nonnull(w);
		ck_assert_int_eq(ap_writer__close(w, NULL), 0);
		ck_assert_int_eq(lstat(path, &st), 0);
		ck_assert(S_ISCHR(st.st_mode));
		ck_assert_uint_eq(st.st_mode & 07777, 0666);
		unlink(path);
	}
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_ptr_null(ap_writer__create(path, &h, &err));
	ck_assert_int_eq(err, -ENXIO);
	unlink(path);
}
END_TEST

/* files named by a target or a record file: a FIFO is refused at once,
 * by every reader of them (a blocking open would hang here) */
START_TEST(test_open_fifo)
{
	char path[64], errbuf[256];
	uint8_t id[20];
	int err = 0;

	tmp_path(path, sizeof(path));
	unlink(path);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	alarm(10);
	ck_assert_int_eq(ap_open_regular(path, 0), -AP_ENOTREG);
	ck_assert_str_eq(ap_open_strerror(-AP_ENOTREG), "not a regular file");
	ck_assert_int_eq(ap_read_build_id(path, id, sizeof(id)), -AP_ENOTREG);
	ck_assert_ptr_null(ap_reader__open(path, &err, errbuf,
					   sizeof(errbuf)));
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_nonnull(strstr(errbuf, "not a regular file"));
	ck_assert_int_eq(ap_open_regular("/dev/null", 0), -AP_ENOTREG);
	ck_assert_int_eq(ap_open_regular("/tmp", 0), -AP_ENOTREG);
	alarm(0);
	unlink(path);
}
END_TEST

static Suite *file_suite(void)
{
	Suite *s = suite_create("file");
	TCase *tc;

	tc = tcase_create("writer__create");
	tcase_add_test(tc, test_create_mode);
	tcase_add_test(tc, test_create_bad_path);
	tcase_add_test(tc, test_create_symlink);
	tcase_add_test(tc, test_create_no_truncate);
	tcase_add_test(tc, test_create_device_fifo);
	tcase_add_test(tc, test_open_fifo);
	suite_add_tcase(s, tc);

	tc = tcase_create("writer__append");
	tcase_add_test(tc, test_append_invalid);
	tcase_add_test(tc, test_append_autoflush);
	tcase_add_test(tc, test_unknown_tag);
	tcase_add_test(tc, test_bad_summaries_once);
	suite_add_tcase(s, tc);

	tc = tcase_create("writer__flush");
	tcase_add_test(tc, test_flush_write_error);
	suite_add_tcase(s, tc);

	tc = tcase_create("writer__close");
	tcase_add_test(tc, test_close_null);
	suite_add_tcase(s, tc);

	tc = tcase_create("reader__open");
	tcase_add_unchecked_fixture(tc, master_setup, master_teardown);
	tcase_add_test(tc, test_read_header);
	tcase_add_test(tc, test_open_not_aperture);
	tcase_add_test(tc, test_open_newer_major);
	tcase_add_test(tc, test_open_newer_minor);
	tcase_add_loop_test(tc, test_open_version_flipped, 0, 4);
	tcase_add_test(tc, test_open_old_minor);
	tcase_add_test(tc, test_open_empty);
	/* 1 .. the header's length - 1, the header being under 256 bytes */
	tcase_add_loop_test(tc, test_open_header_cut, 1, 256);
	tcase_add_test(tc, test_open_header_crc);
	tcase_add_test(tc, test_open_missing);
	suite_add_tcase(s, tc);

	tc = tcase_create("reader__next");
	tcase_add_unchecked_fixture(tc, master_setup, master_teardown);
	tcase_add_test(tc, test_read_all);
	tcase_add_loop_test(tc, test_truncated, 0, 3 * (NBLOCKS + 2));
	tcase_add_loop_test(tc, test_bad_crc, 0, NBLOCKS);
	tcase_add_loop_test(tc, test_zlib_stream, 0, 2);
	tcase_add_loop_test(tc, test_bad_block_header, 0, 2 * NBLOCKS);
	tcase_add_test(tc, test_bad_trailer);
	tcase_add_test(tc, test_shrinks_while_read);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(file_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
