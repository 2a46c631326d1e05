// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the record file reader, the session and every report
 * output (table, folded, JSON, pprof, speedscope, SVG, trace, events,
 * JSONL; -g call graphs, per-thread rows, histograms), one output a run,
 * picked by a hash of the input.  Built by `make fuzz` with clang's
 * -fsanitize=fuzzer,address,undefined; the seed corpus in
 * tests/fuzz/corpus is real recordings.
 *
 * Structure-aware: the custom mutator inflates the file's blocks,
 * mutates the frames inside (one frame's payload, a whole block, the
 * header) and writes them back with valid CRCs, lengths and trailer, so
 * that mutations reach the decoders and views instead of dying at the
 * block checksums; now and then it mutates the raw bytes, for the
 * reader's own checks.  An input is a record file as aperture writes
 * it: a crash reproduces with `aperture report -i crash-...`.
 *
 * Work a run is bounded: the first MAX_EVENTS event frames reach the
 * views (a seed of 4,000 mem samples took 50 ms a run, each interned
 * under ASan); the rest are read, and the session still takes them.
 *
 * Symbols: the symbolizer looks files up under an empty --symfs, so no
 * run opens a library of this machine (libc's debug info took 8-70 ms a
 * run); the file's own kernel symbols, vDSO image and JIT names remain.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "export/export.h"
#include "format/reader.h"
#include "report/evdump.h"
#include "report/header.h"
#include "report/input.h"
#include "report/session.h"
#include "report/view.h"
#include "report/viewset.h"
#include "symbols/symbolizer.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);

#define MAX_EVENTS	500

static char symfs[] = "/tmp/aperture-fuzz-symfs.XXXXXX";
static FILE *out;

static void quiet(void *ctx, const char *msg)
{
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* the exports write to stdout; libFuzzer writes to stderr */
	int fd = open("/dev/null", O_WRONLY);

	if (fd >= 0 && dup2(fd, STDOUT_FILENO) < 0)
		return 1;
	if (fd > STDOUT_FILENO)
		close(fd);
	out = fopen("/dev/null", "w");
	unsetenv("DEBUGINFOD_URLS");
	if (!out || !mkdtemp(symfs))
		return 1;
	return 0;
}

/* what one run prints, from the input's hash */
struct pick {
	int format;			/* AP_FMT_* */
	int call_graph;			/* AP_CG_* */
	int per_thread, hist, user_only, inline_rows, no_children;
	unsigned view;			/* exports: the first view tried */
};

static void pick_of(const uint8_t *data, size_t size, struct pick *p)
{
	uint32_t h = (uint32_t)crc32(0, data, (uInt)size);

	p->format = h % 9;		/* AP_FMT_TABLE .. AP_FMT_JSONL */
	h /= 9;
	p->call_graph = h % 3;
	h /= 3;
	p->per_thread = h & 1;
	p->hist = h >> 1 & 1;
	p->user_only = (h >> 2 & 7) == 0;
	p->inline_rows = h >> 5 & 1;
	p->no_children = h >> 6 & 1;
	p->view = h >> 7;
}

/* every view the file's events need, one for a profile export (a profile
 * holds one unit, as report's ap_viewset__one_unit keeps): the first
 * from the pick's on that has events and an export */
static void add_views(struct ap_viewset *vs, const struct ap_header *h,
		      const struct pick *p)
{
	static const char *const names[] = {
		"cpu", "syscall", "lock", "gpu", "mem", "sched", "io",
		"tracepoint",
	};
	const size_t nr = sizeof(names) / sizeof(names[0]);
	int format = p->format;
	size_t i;

	for (i = 0; i < nr; i++) {
		const char *name = names[(i + p->view) % nr];
		const struct ap_view_ops *ops = ap_view__find(name);

		if (!ops || !(h->events_requested & AP_EVMASK(ops->tag)))
			continue;
		if (ap_format__is_export(format) && !ops->profile)
			continue;
		ap_viewset__add(vs, name);
		if (ap_format__is_export(format) && vs->nr)
			return;
	}
	if (!vs->nr)
		ap_viewset__add(vs, "cpu");
}

static void print_views(struct ap_viewset *vs, struct ap_input *in,
			int format)
{
	const struct ap_header *h = ap_reader__header(in->rd);
	const struct ap_read_stats *st = ap_reader__stats(in->rd);
	int i;

	if (format == AP_FMT_JSON)
		ap_report_header__json(out, h, st, in->s);
	else if (format == AP_FMT_TABLE)
		ap_report_header__table(out, "fuzz", h, st, in->s, 1);
	for (i = 0; i < vs->nr; i++) {
		vs->vi[i].ops->print(vs->vi[i].v, out);
		if (vs->vi[i].ops->decay) {	/* top's path */
			vs->vi[i].ops->decay(vs->vi[i].v, 1, 2);
			vs->vi[i].ops->print(vs->vi[i].v, out);
		}
	}
}

static void run(const char *path, const struct pick *p)
{
	struct ap_symbolizer_opts so = {
		.warn = quiet, .no_srcline = p->format != AP_FMT_PPROF &&
					     p->format != AP_FMT_JSON,
		.symfs = symfs,
	};
	struct ap_report_opts o = {
		.format = p->format, .call_graph = p->call_graph,
		.per_thread = p->per_thread, .hist = p->hist,
		.user_only = p->user_only, .inline_rows = p->inline_rows,
		.no_children = p->no_children, .top_sort = !p->no_children,
	};
	struct ap_export_opts eo = {
		.format = p->format, .format_name = "fuzz", .input = "fuzz",
		.icicle = p->hist, .user_only = p->user_only,
	};
	struct ap_evsink *sink = NULL;
	struct ap_viewset vs;
	struct ap_input in;
	struct ap_evout to;
	struct ap_frame f;
	FILE *saved = stderr;
	size_t nr = 0;

	/* the views' own messages (an export without a common unit) */
	stderr = out;
	if (ap_input__open(&in, path, 0, &so))
		goto out;
	ap_reader__set_warn(in.rd, quiet, NULL);
	o.keys[0] = AP_KEY_COMM;
	o.keys[1] = AP_KEY_DSO;
	o.keys[2] = AP_KEY_SYM;
	o.nr_keys = 3;
	o.freq = ap_reader__header(in.rd)->freq;
	ap_session__escape_names(in.s, p->format != AP_FMT_JSON);
	ap_viewset__init(&vs, "report", &o, in.s);
	add_views(&vs, ap_reader__header(in.rd), p);
	if (p->format == AP_FMT_FOLDED && ap_viewset__folded_unit(&vs, &o))
		goto done;
	if (p->format == AP_FMT_TRACE) {
		if (!ap_trace__evout(in.s, o.user_only, out, &to))
			sink = ap_evsink__new(p->format, ap_viewset__tags(&vs),
					      &o, in.s, out, &to);
	} else if (ap_format__is_dump(p->format)) {
		sink = ap_evsink__new(p->format, ap_viewset__tags(&vs), &o,
				      in.s, out, NULL);
	}
	if (ap_format__is_dump(p->format) && !sink)
		goto done;
	while (ap_input__next(&in, &f) > 0) {
		if (nr++ >= MAX_EVENTS)
			continue;
		if (sink)
			ap_evsink__event(sink, &f);
		else
			ap_viewset__event(&vs, &f);
	}
	if (sink)
		ap_evsink__finish(sink);
	else if (ap_format__is_export(p->format))
		ap_viewset__export(&vs, &eo, ap_reader__header(in.rd),
				   ap_session__span_ns(in.s));
	else
		print_views(&vs, &in, p->format);
done:
	ap_evsink__free(sink);
	ap_viewset__free(&vs);
	ap_input__close(&in);
out:
	stderr = saved;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pick p;
	char path[64];
	int fd;

	fd = memfd_create("aperture-fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		pick_of(data, size, &p);
		run(path, &p);
	}
	close(fd);
	return 0;
}

/*
 * The mutator's view of a file: the header, then blocks inflated.
 * Offsets and formats: man/aperture-file.5.
 */
#define MAX_BLOCKS	64
#define MAX_RAW		(1u << 20)	/* a block's inflated bytes */

struct blk {
	uint8_t *raw;
	size_t len, cap;
};

struct file {
	const uint8_t *hdr;		/* header payload */
	size_t hdr_len;
	struct blk b[MAX_BLOCKS];
	int nr;
};

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void file_free(struct file *f)
{
	while (f->nr)
		free(f->b[--f->nr].raw);
}

/* 0, or -1 when data is no file with blocks */
static int file_parse(struct file *f, const uint8_t *d, size_t size)
{
	size_t off;

	memset(f, 0, sizeof(*f));
	if (size < 20 || memcmp(d, "APERTURE", 8))
		return -1;
	f->hdr = d + 16;
	f->hdr_len = le32(d + 12);
	if (f->hdr_len > size - 20)
		return -1;
	off = 20 + f->hdr_len;
	while (f->nr < MAX_BLOCKS && size - off >= 24 &&
	       !memcmp(d + off, "APBK", 4)) {
		uLongf clen = le32(d + off + 4), rlen = le32(d + off + 8);
		struct blk *b = &f->b[f->nr];

		if (clen > size - off - 24 || rlen > MAX_RAW)
			break;
		b->cap = rlen * 2 + 4096;
		b->raw = malloc(b->cap);
		if (!b->raw || uncompress(b->raw, &rlen, d + off + 24, clen)) {
			free(b->raw);
			break;
		}
		b->len = rlen;
		f->nr++;
		off += 24 + clen;
	}
	if (!f->nr)
		return -1;
	return 0;
}

/* frames in raw that end inside it; *tags counts them by tag */
static uint32_t count_frames(const uint8_t *raw, size_t len, uint64_t *tags)
{
	size_t off = 0;
	uint32_t n = 0;

	while (len - off >= 8 && le32(raw + off + 4) <= len - off - 8) {
		if (le32(raw + off) < 32)
			tags[le32(raw + off)]++;
		off += 8 + le32(raw + off + 4);
		n++;
	}
	return n;
}

/* the file, its blocks deflated again with both CRCs and a trailer that
 * indexes them; its size, or 0 when it does not fit in max */
static size_t file_write(const struct file *f, uint8_t *d, size_t max)
{
	uint64_t tags[32] = { 0 }, nframes = 0, offs[MAX_BLOCKS];
	uint32_t nfr[MAX_BLOCKS];
	size_t off, t;
	int i;

	if (20 + f->hdr_len > max)
		return 0;
	memmove(d + 16, f->hdr, f->hdr_len);
	memcpy(d, "APERTURE", 8);
	put32(d + 12, (uint32_t)f->hdr_len);
	put32(d + 16 + f->hdr_len,
	      (uint32_t)crc32(0, d + 8, (uInt)(8 + f->hdr_len)));
	off = 20 + f->hdr_len;
	for (i = 0; i < f->nr; i++) {
		const struct blk *b = &f->b[i];
		uLongf clen;

		if (max - off < 24)
			return 0;
		clen = max - off - 24;
		if (compress2(d + off + 24, &clen, b->raw, b->len, 1) != Z_OK)
			return 0;
		offs[i] = off;
		nfr[i] = count_frames(b->raw, b->len, tags);
		nframes += nfr[i];
		memcpy(d + off, "APBK", 4);
		put32(d + off + 4, (uint32_t)clen);
		put32(d + off + 8, (uint32_t)b->len);
		put32(d + off + 12, nfr[i]);
		put32(d + off + 16, (uint32_t)crc32(0, d + off + 24, clen));
		put32(d + off + 20, (uint32_t)crc32(0, d + off, 20));
		off += 24 + clen;
	}
	t = off;
	if (max - off < 8 + 272 + 12 * (size_t)f->nr + 4 + 16)
		return 0;
	memcpy(d + off, "APTR", 4);
	put32(d + off + 4, 272 + 12 * f->nr);
	put64(d + off + 8, f->nr);
	put64(d + off + 16, nframes);
	for (i = 0; i < 32; i++)
		put64(d + off + 24 + 8 * i, tags[i]);
	off += 280;
	for (i = 0; i < f->nr; i++, off += 12) {
		put64(d + off, offs[i]);
		put32(d + off + 8, nfr[i]);
	}
	put32(d + off, (uint32_t)crc32(0, d + t, (uInt)(off - t)));
	off += 4;
	put64(d + off, t);
	memcpy(d + off + 8, "APEND\0\0\0", 8);
	return off + 16;
}

/* the values that break arithmetic: sums, casts, the top bit */
static const uint64_t edges[] = {
	0, 1, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff,
	0x100000000ull, 1ull << 53, 0x7fffffffffffffffull,
	0x8000000000000000ull, 0xffffffffffffffffull,
};

/* one frame of b, its payload mutated and its length set to match; or
 * one of its aligned fields (the formats' u32s and u64s) set to an edge */
static void mutate_frame(struct blk *b, unsigned r)
{
	size_t off = 0, n = count_frames(b->raw, b->len, (uint64_t[32]){ 0 });
	size_t k, len, nlen, room, at;
	uint64_t e;

	if (!n)
		return;
	for (k = r % n; k; k--)
		off += 8 + le32(b->raw + off + 4);
	len = le32(b->raw + off + 4);
	if (rand() % 3 == 0 && len >= 8) {
		at = off + 8 + (size_t)rand() % (len / 4) * 4;
		e = edges[rand() % (sizeof(edges) / sizeof(edges[0]))];
		if (rand() % 2 && at + 8 <= off + 8 + len)
			put64(b->raw + at, e);
		else
			put32(b->raw + at, (uint32_t)e);
		return;
	}
	room = b->cap - b->len;
	if (room > 4096)
		room = 4096;
	/* the rest moves out of the way, the payload may grow into it */
	memmove(b->raw + off + 8 + len + room, b->raw + off + 8 + len,
		b->len - off - 8 - len);
	nlen = LLVMFuzzerMutate(b->raw + off + 8, len, len + room);
	memmove(b->raw + off + 8 + nlen, b->raw + off + 8 + len + room,
		b->len - off - 8 - len);
	put32(b->raw + off + 4, (uint32_t)nlen);
	b->len = b->len - len + nlen;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
			       unsigned seed)
{
	uint8_t *tmp, *hdr = NULL;
	struct file f;
	size_t n = 0;
	struct blk *b;

	srand(seed);
	/* one in eight: the bytes themselves (CRCs, framing, resync) */
	if (seed % 8 == 0 || file_parse(&f, data, size))
		return LLVMFuzzerMutate(data, size, max);
	b = &f.b[rand() % f.nr];
	switch (rand() % 8) {
	case 0:			/* the block's frames as bytes */
		b->len = LLVMFuzzerMutate(b->raw, b->len, b->cap);
		break;
	case 1:			/* the header's fields */
		hdr = malloc(f.hdr_len * 2 + 64);
		if (!hdr)
			break;
		memcpy(hdr, f.hdr, f.hdr_len);
		f.hdr_len = LLVMFuzzerMutate(hdr, f.hdr_len,
					     f.hdr_len * 2 + 64);
		f.hdr = hdr;
		break;
	case 2:			/* a block dropped */
		if (f.nr > 1) {
			free(b->raw);
			*b = f.b[--f.nr];
		}
		break;
	default:		/* one frame's payload */
		mutate_frame(b, (unsigned)rand());
	}
	tmp = malloc(max);
	if (tmp) {
		n = file_write(&f, tmp, max);
		if (n)
			memcpy(data, tmp, n);
	}
	free(tmp);
	free(hdr);
	file_free(&f);
	return n ? n : LLVMFuzzerMutate(data, size, max);
}
