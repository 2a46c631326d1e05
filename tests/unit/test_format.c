// SPDX-License-Identifier: GPL-2.0
/*
 * lib/format/format.c: every frame round-trips, the bytes of the cpu, task and
 * stack frames are pinned, short payloads are refused and long ones
 * accepted, and the header's TLV payload skips keys it does not know.
 *
 * man/aperture-file.5 against the tables of lib/format/format.h: every tag
 * of AP_FORMAT_TAGS has its section, with its number and name, and the
 * page has no section for a tag the table lacks; the reserved tags are the
 * ones left; the page states the version AP_FORMAT_MAJOR.AP_FORMAT_MINOR;
 * the lost frame lists the sources of AP_LOST_SOURCES.  The page is found
 * under $APERTURE_TEST_SRCDIR (default ".").
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* one row per frame type: fill a sample, encode it, decode it back */
struct frame_case {
	const char *name;
	uint32_t tag;
	size_t size;
	void (*fill)(void *e);
	void (*encode)(const void *e, struct ap_buf *b);
	int (*decode)(const void *p, size_t len, void *e);
};

static void fill_cpu(void *p)
{
	struct ap_cpu_sample *e = p;

	e->ts = 0x0102030405060708ull;
	e->pid = 4242;
	e->tid = 4243;
	e->cpu = 7;
	e->stack_id = 99;
}

static void fill_task(void *p)
{
	struct ap_task *e = p;

	e->ts = 123456789012ull;
	e->pid = 77;
	e->ppid = 1;
	e->start_ticks = 0xdeadbeefcafeull;
	e->kind = AP_TASK_EXITED;
	e->exit_code = -9;
	strcpy(e->comm, "worker/3");
}

static void fill_comm(void *p)
{
	struct ap_comm *e = p;

	e->ts = 55;
	e->pid = 10;
	e->tid = 11;
	strcpy(e->comm, "0123456789abcde");	/* AP_COMM_MAX - 1 */
}

static void fill_mmap(void *p)
{
	struct ap_mmap *e = p;
	int i;

	e->ts = 9;
	e->pid = 300;
	e->prot = 5;
	e->start = 0x555555554000ull;
	e->end = 0x555555558000ull;
	e->pgoff = 0x1000;
	e->inode = 1234567;
	e->build_id_len = AP_BUILD_ID_MAX;
	for (i = 0; i < AP_BUILD_ID_MAX; i++)
		e->build_id[i] = (uint8_t)(0xa0 + i);
	strcpy(e->path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

static void fill_ksym(void *p)
{
	struct ap_ksym *e = p;

	e->addr = 0xffffffff81000000ull;
	e->size = 0x40;
	strcpy(e->name, "do_syscall_64");
	strcpy(e->module, "");
}

static void fill_lost(void *p)
{
	struct ap_lost *e = p;

	e->ts = 1;
	e->source = AP_LOST_USTACK;
	e->tag = AP_TAG_CPU;
	e->count = 1ull << 40;
}

static void fill_lost_proc(void *p)
{
	struct ap_lost_proc *e = p;

	e->ts = 2;
	e->pid = 4321;
	e->flags = 0;
	e->start_ticks = 987654;
	e->source = AP_LOST_TABLE;
	e->tag = AP_TAG_SYSCALL;
	e->count = 3192;
	strcpy(e->comm, "sleepers");
}

static void fill_sensor(void *p)
{
	struct ap_sensor *e = p;

	e->tag = AP_TAG_GPU;
	e->state = AP_SENSOR_UNAVAILABLE;
	strcpy(e->name, "gpu");
	strcpy(e->source, "cupti");
	strcpy(e->reason, "no NVIDIA driver loaded");
}

static void fill_summary(void *p)
{
	struct ap_summary *e = p;
	int i;

	e->end_mono_ns = 999999;
	e->samples = 1000;
	e->events = 1500;
	for (i = 0; i < AP_LOST_NR; i++)
		e->lost[i] = 10 + i;
	e->exit_status = -1;
}

#define CASE(type, tagv, fillfn)					\
static void enc_##type(const void *e, struct ap_buf *b)		\
{									\
	ap_##type##__encode(e, b);					\
}									\
static int dec_##type(const void *p, size_t len, void *e)		\
{									\
	return ap_##type##__decode(p, len, e);				\
}
CASE(cpu_sample, AP_TAG_CPU, fill_cpu)
CASE(task, AP_TAG_TASK, fill_task)
CASE(comm, AP_TAG_COMM, fill_comm)
CASE(mmap, AP_TAG_MMAP, fill_mmap)
CASE(ksym, AP_TAG_KSYM, fill_ksym)
CASE(lost, AP_TAG_LOST, fill_lost)
CASE(lost_proc, AP_TAG_LOST_PROC, fill_lost_proc)
CASE(sensor, AP_TAG_SENSOR, fill_sensor)
CASE(summary, AP_TAG_SUMMARY, fill_summary)

#define ROW(type, tagv, fillfn, st)					\
	{ #type, tagv, sizeof(st), fillfn, enc_##type, dec_##type }

static const struct frame_case cases[] = {
	ROW(cpu_sample, AP_TAG_CPU, fill_cpu, struct ap_cpu_sample),
	ROW(task, AP_TAG_TASK, fill_task, struct ap_task),
	ROW(comm, AP_TAG_COMM, fill_comm, struct ap_comm),
	ROW(mmap, AP_TAG_MMAP, fill_mmap, struct ap_mmap),
	ROW(ksym, AP_TAG_KSYM, fill_ksym, struct ap_ksym),
	ROW(lost, AP_TAG_LOST, fill_lost, struct ap_lost),
	ROW(lost_proc, AP_TAG_LOST_PROC, fill_lost_proc, struct ap_lost_proc),
	ROW(sensor, AP_TAG_SENSOR, fill_sensor, struct ap_sensor),
	ROW(summary, AP_TAG_SUMMARY, fill_summary, struct ap_summary),
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

/* encodes row i into b; returns the zero-initialised source struct */
static void *encode_case(const struct frame_case *c, struct ap_buf *b)
{
	void *in = calloc(1, c->size);

	ck_assert_ptr_nonnull(in);
	c->fill(in);
	ap_buf__init(b);
	c->encode(in, b);
	ck_assert_int_eq(b->err, 0);
	return in;
}

START_TEST(test_roundtrip)
{
	const struct frame_case *c = &cases[_i];
	struct ap_buf b;
	void *in = encode_case(c, &b), *out = malloc(c->size);

	ck_assert_ptr_nonnull(out);
	memset(out, 0x5a, c->size);
	ck_assert_uint_ge(b.len, AP_FRAME_HDR_LEN);
	ck_assert_uint_eq(ap_get_le32(b.data), c->tag);
	ck_assert_uint_eq(ap_get_le32(b.data + 4), b.len - AP_FRAME_HDR_LEN);
	ck_assert_int_eq(c->decode(b.data + AP_FRAME_HDR_LEN,
				   b.len - AP_FRAME_HDR_LEN, out), 0);
	ck_assert_mem_eq(in, out, c->size);
	free(in);
	free(out);
	ap_buf__free(&b);
}
END_TEST

/* every strict prefix of the payload is refused */
START_TEST(test_short_payload)
{
	const struct frame_case *c = &cases[_i];
	size_t n, plen;
	struct ap_buf b;
	void *in = encode_case(c, &b), *out = malloc(c->size);

	plen = b.len - AP_FRAME_HDR_LEN;
	for (n = 0; n < plen; n++)
		ck_assert_int_eq(c->decode(b.data + AP_FRAME_HDR_LEN, n, out),
				 -EBADMSG);
	free(in);
	free(out);
	ap_buf__free(&b);
}
END_TEST

/* fields appended by a newer minor version are ignored */
START_TEST(test_long_payload)
{
	const struct frame_case *c = &cases[_i];
	struct ap_buf b;
	void *in = encode_case(c, &b), *out = malloc(c->size);

	ap_buf__put(&b, "\x01\x02\x03\x04\x05\x06\x07\x08\x09", 9);
	ck_assert_int_eq(c->decode(b.data + AP_FRAME_HDR_LEN,
				   b.len - AP_FRAME_HDR_LEN, out), 0);
	ck_assert_mem_eq(in, out, c->size);
	free(in);
	free(out);
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_cpu_bytes)
{
	static const uint8_t want[] = {
		0, 0, 0, 0,			/* tag AP_TAG_CPU */
		24, 0, 0, 0,			/* payload length */
		8, 7, 6, 5, 4, 3, 2, 1,		/* ts */
		0x92, 0x10, 0, 0,		/* pid 4242 */
		0x93, 0x10, 0, 0,		/* tid 4243 */
		7, 0, 0, 0,			/* cpu */
		99, 0, 0, 0,			/* stack_id */
	};
	struct ap_cpu_sample e = { 0 };
	struct ap_buf b;

	fill_cpu(&e);
	ap_buf__init(&b);
	ap_cpu_sample__encode(&e, &b);
	ck_assert_uint_eq(b.len, sizeof(want));
	ck_assert_mem_eq(b.data, want, sizeof(want));
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_task_bytes)
{
	static const uint8_t want[] = {
		16, 0, 0, 0,			/* tag AP_TAG_TASK */
		42, 0, 0, 0,			/* 32 + 2 + 8 */
		0x14, 0x1a, 0x99, 0xbe, 0x1c, 0, 0, 0, /* ts 123456789012 */
		77, 0, 0, 0,			/* pid */
		1, 0, 0, 0,			/* ppid */
		0xfe, 0xca, 0xef, 0xbe, 0xad, 0xde, 0, 0, /* start_ticks */
		3, 0, 0, 0,			/* kind AP_TASK_EXITED */
		0xf7, 0xff, 0xff, 0xff,		/* exit_code -9 */
		8, 0,				/* comm length */
		'w', 'o', 'r', 'k', 'e', 'r', '/', '3',
	};
	struct ap_task e = { 0 };
	struct ap_buf b;

	fill_task(&e);
	ap_buf__init(&b);
	ap_task__encode(&e, &b);
	ck_assert_uint_eq(b.len, sizeof(want));
	ck_assert_mem_eq(b.data, want, sizeof(want));
	ap_buf__free(&b);
}
END_TEST

static const uint64_t stack_ips[3] = {
	0xffffffff81001234ull, 0x00007f0011223344ull, 0x0000555555555000ull,
};

START_TEST(test_stack_bytes)
{
	static const uint8_t want[] = {
		19, 0, 0, 0,			/* tag AP_TAG_STACK */
		36, 0, 0, 0,			/* 8 + 3 * 8 + 4 */
		5, 0, 0, 0,			/* id */
		1, 0,				/* nr_kernel */
		2, 0,				/* nr_user */
		0x34, 0x12, 0x00, 0x81, 0xff, 0xff, 0xff, 0xff,
		0x44, 0x33, 0x22, 0x11, 0x00, 0x7f, 0x00, 0x00,
		0x00, 0x50, 0x55, 0x55, 0x55, 0x55, 0x00, 0x00,
		1, 0, 0, 0,			/* flags (1.1): truncated */
	};
	struct ap_stack e = { 5, 1, 2, stack_ips, AP_STACK_TRUNCATED };
	struct ap_buf b;

	ap_buf__init(&b);
	ap_stack__encode(&e, &b);
	ck_assert_uint_eq(b.len, sizeof(want));
	ck_assert_mem_eq(b.data, want, sizeof(want));
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_stack_decode)
{
	struct ap_stack e = { 5, 1, 2, stack_ips }, out;
	uint8_t unaligned[64];
	struct ap_buf b;
	uint64_t ips[3];
	size_t plen, n;

	ap_buf__init(&b);
	ap_stack__encode(&e, &b);
	plen = b.len - AP_FRAME_HDR_LEN;
	/* an odd address: the payload need not be aligned */
	memcpy(unaligned + 1, b.data + AP_FRAME_HDR_LEN, plen);
	ck_assert_int_eq(ap_stack__decode(unaligned + 1, plen, &out), 0);
	ck_assert_uint_eq(out.id, 5);
	ck_assert_uint_eq(out.nr_kernel, 1);
	ck_assert_uint_eq(out.nr_user, 2);
	ck_assert_ptr_null(out.ips);
	ck_assert_int_eq(ap_stack__decode_ips(unaligned + 1, plen, &out,
					      ips, 3), 0);
	ck_assert_ptr_eq(out.ips, ips);
	ck_assert_mem_eq(ips, stack_ips, sizeof(ips));
	ck_assert_int_eq(ap_stack__decode_ips(unaligned + 1, plen, &out,
					      ips, 2), -E2BIG);
	ck_assert_uint_eq(out.nr_kernel + out.nr_user, 3);
	ck_assert_uint_eq(out.flags, 0);
	/* a 1.0 payload (no flags): read, flags 0 */
	e.flags = AP_STACK_TRUNCATED;
	ap_buf__reset(&b);
	ap_stack__encode(&e, &b);
	memcpy(unaligned + 1, b.data + AP_FRAME_HDR_LEN, plen);
	ck_assert_int_eq(ap_stack__decode(unaligned + 1, plen, &out), 0);
	ck_assert_uint_eq(out.flags, AP_STACK_TRUNCATED);
	ck_assert_int_eq(ap_stack__decode(unaligned + 1, plen - 4, &out), 0);
	ck_assert_uint_eq(out.flags, 0);
	for (n = 0; n < plen - 4; n++) {
		ck_assert_int_eq(ap_stack__decode(unaligned + 1, n, &out),
				 -EBADMSG);
		ck_assert_int_eq(ap_stack__decode_ips(unaligned + 1, n, &out,
						      ips, 3), -EBADMSG);
	}
	/* longer: accepted */
	memset(unaligned + 1 + plen, 0xee, 4);
	ck_assert_int_eq(ap_stack__decode_ips(unaligned + 1, plen + 4, &out,
					      ips, 3), 0);
	ck_assert_mem_eq(ips, stack_ips, sizeof(ips));
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_mmap_bad_build_id)
{
	struct ap_mmap e = { 0 }, out;
	struct ap_buf b;

	fill_mmap(&e);
	e.build_id_len = 3;
	memset(e.build_id + 3, 0, AP_BUILD_ID_MAX - 3);
	ap_buf__init(&b);
	ap_mmap__encode(&e, &b);
	/* build_id_len sits at payload offset 48 */
	ck_assert_uint_eq(ap_get_le32(b.data + AP_FRAME_HDR_LEN + 48), 3);
	ck_assert_int_eq(ap_mmap__decode(b.data + AP_FRAME_HDR_LEN,
					 b.len - AP_FRAME_HDR_LEN, &out), 0);
	ck_assert_mem_eq(&out, &e, sizeof(e));
	ap_put_le32(b.data + AP_FRAME_HDR_LEN + 48, AP_BUILD_ID_MAX + 1);
	ck_assert_int_eq(ap_mmap__decode(b.data + AP_FRAME_HDR_LEN,
					 b.len - AP_FRAME_HDR_LEN, &out),
			 -EBADMSG);
	ap_buf__free(&b);
}
END_TEST

/* a newer writer with more lost sources; an older one with fewer */
START_TEST(test_summary_lost_count)
{
	struct ap_summary out;
	struct ap_buf b;
	size_t mark;
	int i;

	ap_buf__init(&b);
	ap_frame__begin(&b, AP_TAG_SUMMARY, &mark);
	ap_buf__u64(&b, 1);
	ap_buf__u64(&b, 2);
	ap_buf__u64(&b, 3);
	ap_buf__u32(&b, 0);
	ap_buf__u32(&b, AP_LOST_NR + 2);
	for (i = 0; i < AP_LOST_NR + 2; i++)
		ap_buf__u64(&b, 100 + i);
	ap_frame__end(&b, mark);
	ck_assert_int_eq(ap_summary__decode(b.data + 8, b.len - 8, &out), 0);
	ck_assert_uint_eq(out.events, 3);
	for (i = 0; i < AP_LOST_NR; i++)
		ck_assert_uint_eq(out.lost[i], 100 + i);

	ap_buf__reset(&b);
	ap_frame__begin(&b, AP_TAG_SUMMARY, &mark);
	ap_buf__u64(&b, 1);
	ap_buf__u64(&b, 2);
	ap_buf__u64(&b, 3);
	ap_buf__u32(&b, 5);
	ap_buf__u32(&b, 2);
	ap_buf__u64(&b, 7);
	ap_buf__u64(&b, 8);
	ap_frame__end(&b, mark);
	ck_assert_int_eq(ap_summary__decode(b.data + 8, b.len - 8, &out), 0);
	ck_assert_int_eq(out.exit_status, 5);
	ck_assert_uint_eq(out.lost[0], 7);
	ck_assert_uint_eq(out.lost[1], 8);
	ck_assert_uint_eq(out.lost[AP_LOST_WRITE], 0);
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_frame_begin_end)
{
	struct ap_buf b;
	size_t m1, m2;

	ap_buf__init(&b);
	ap_buf__put(&b, "xyz", 3);
	ap_frame__begin(&b, 999, &m1);
	ck_assert_uint_eq(m1, 3);
	ap_buf__put(&b, "hello", 5);
	ap_frame__end(&b, m1);
	ap_frame__begin(&b, 1000, &m2);
	ap_frame__end(&b, m2);
	ck_assert_uint_eq(b.len, 3 + 8 + 5 + 8);
	ck_assert_uint_eq(ap_get_le32(b.data + 3), 999);
	ck_assert_uint_eq(ap_get_le32(b.data + 7), 5);
	ck_assert_mem_eq(b.data + 11, "hello", 5);
	ck_assert_uint_eq(ap_get_le32(b.data + 16), 1000);
	ck_assert_uint_eq(ap_get_le32(b.data + 20), 0);
	ap_buf__free(&b);
}
END_TEST

static void fill_header(struct ap_header *h)
{
	ap_header__init(h);
	h->start_mono_ns = 1234567890123ull;
	h->mono_to_real_ns = -42;
	h->freq = 99;
	h->events_requested = AP_EVMASK(AP_TAG_CPU) | AP_EVMASK(AP_TAG_GPU);
	h->events_available = AP_EVMASK(AP_TAG_CPU);
	h->ncpus = 64;
	strcpy(h->host, "build-01");
	strcpy(h->kernel, "6.1.0-18-amd64");
	strcpy(h->cmdline, "aperture record -F 99 -- ./a.out");
	strcpy(h->target, "command ./a.out");
}

START_TEST(test_header_init)
{
	struct ap_header h, zero;

	memset(&h, 0xff, sizeof(h));
	ap_header__init(&h);
	ck_assert_uint_eq(h.major, AP_FORMAT_MAJOR);
	ck_assert_uint_eq(h.minor, AP_FORMAT_MINOR);
	memset(&zero, 0, sizeof(zero));
	zero.major = AP_FORMAT_MAJOR;
	zero.minor = AP_FORMAT_MINOR;
	ck_assert_mem_eq(&h, &zero, sizeof(h));
}
END_TEST

START_TEST(test_header_roundtrip)
{
	struct ap_header *in = calloc(1, sizeof(*in));
	struct ap_header *out = calloc(1, sizeof(*out));
	struct ap_buf b;

	fill_header(in);
	ap_buf__init(&b);
	ck_assert_int_eq(ap_header__encode(in, &b), 0);
	/* the first field: key 1, length 8, start_mono_ns */
	ck_assert_uint_eq(ap_get_le16(b.data), 1);
	ck_assert_uint_eq(ap_get_le16(b.data + 2), 8);
	ck_assert_uint_eq(ap_get_le64(b.data + 4), 1234567890123ull);
	ck_assert_int_eq(ap_header__decode(b.data, b.len, out), 0);
	ck_assert_mem_eq(in, out, sizeof(*in));
	free(in);
	free(out);
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_header_unknown_key)
{
	struct ap_header *in = calloc(1, sizeof(*in));
	struct ap_header *out = calloc(1, sizeof(*out));
	struct ap_buf b;

	fill_header(in);
	ap_buf__init(&b);
	/* unknown keys before, between (an empty one) and after */
	ap_buf__u16(&b, 0x7777);
	ap_buf__u16(&b, 5);
	ap_buf__put(&b, "hello", 5);
	ap_buf__u16(&b, 0x7778);
	ap_buf__u16(&b, 0);
	ck_assert_int_eq(ap_header__encode(in, &b), 0);
	ap_buf__u16(&b, 0xffff);
	ap_buf__u16(&b, 3);
	ap_buf__put(&b, "abc", 3);
	ck_assert_int_eq(ap_header__decode(b.data, b.len, out), 0);
	ck_assert_mem_eq(in, out, sizeof(*in));

	/* a field that runs past the payload is refused */
	ck_assert_int_eq(ap_header__decode(b.data, b.len - 1, out), -EBADMSG);
	/* so is a known integer of the wrong width */
	ap_buf__reset(&b);
	ap_buf__u16(&b, 3);		/* freq */
	ap_buf__u16(&b, 2);
	ap_buf__u16(&b, 99);
	ck_assert_int_eq(ap_header__decode(b.data, b.len, out), -EBADMSG);
	/* an empty payload is a header with every field zero */
	ck_assert_int_eq(ap_header__decode(b.data, 0, out), 0);
	ck_assert_uint_eq(out->freq, 0);
	ck_assert_str_eq(out->host, "");
	free(in);
	free(out);
	ap_buf__free(&b);
}
END_TEST

static const struct {
	uint32_t tag;
	const char *name;
} tag_names[] = {
	{ AP_TAG_CPU, "cpu" }, { AP_TAG_LOCK, "lock" },
	{ AP_TAG_SYSCALL, "syscall" }, { AP_TAG_GPU, "gpu" },
	{ AP_TAG_MEM, "mem" }, { AP_TAG_SCHED, "sched" },
	{ AP_TAG_IO, "io" }, { AP_TAG_TASK, "task" },
	{ AP_TAG_COMM, "comm" }, { AP_TAG_MMAP, "mmap" },
	{ AP_TAG_STACK, "stack" }, { AP_TAG_KSYM, "ksym" },
	{ AP_TAG_LOST, "lost" }, { AP_TAG_SENSOR, "sensor" },
	{ AP_TAG_SUMMARY, "summary" },
	{ AP_TAG_GPU_DEV, "gpu-device" }, { AP_TAG_LOST_PROC, "lost-proc" },
	{ AP_TAG_TRACEPOINT, "tracepoint" }, { AP_TAG_CGROUP, "cgroup" },
	{ 9, NULL }, { 15, NULL }, { 26, NULL }, { 999, NULL },
	{ UINT32_MAX, NULL },
};

START_TEST(test_tag_name)
{
	const char *got = ap_tag__name(tag_names[_i].tag);

	if (tag_names[_i].name)
		ck_assert_str_eq(got, tag_names[_i].name);
	else
		ck_assert_ptr_null(got);
}
END_TEST

static const struct {
	uint32_t source;
	const char *name;
} lost_names[] = {
	{ AP_LOST_RINGBUF, "ringbuf" }, { AP_LOST_KSTACK, "kernel-stack" },
	{ AP_LOST_USTACK, "user-stack" }, { AP_LOST_TABLE, "table-full" },
	{ AP_LOST_UNRESOLVED, "unresolved" }, { AP_LOST_WRITE, "write" },
	{ AP_LOST_NR, NULL }, { 1000, NULL },
};

START_TEST(test_lost_source_name)
{
	const char *got = ap_lost__source_name(lost_names[_i].source);

	if (lost_names[_i].name)
		ck_assert_str_eq(got, lost_names[_i].name);
	else
		ck_assert_ptr_null(got);
}
END_TEST

struct entry {
	unsigned int value;
	const char *name;
};

#define ENTRY(name, v, str)	{ v, str },
static const struct entry tags[] = { AP_FORMAT_TAGS(ENTRY) };
static const struct entry sources[] = { AP_LOST_SOURCES(ENTRY) };
#undef ENTRY

/* the page's lines, "\-" read as "-" */
static char **lines;
static size_t nr_lines;

static void man_load(void)
{
	const char *dir = getenv("APERTURE_TEST_SRCDIR");
	char path[4096], buf[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/man/aperture-file.5",
		 dir ? dir : ".");
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s: set APERTURE_TEST_SRCDIR",
		      path);
	while (fgets(buf, sizeof(buf), f)) {
		char *s = strdup(buf), *w = s;
		const char *r;

		ck_assert_ptr_nonnull(s);
		for (r = buf; *r && *r != '\n'; r++) {
			if (r[0] == '\\' && r[1] == '-')
				r++;
			*w++ = *r;
		}
		*w = '\0';
		lines = realloc(lines, (nr_lines + 1) * sizeof(*lines));
		ck_assert_ptr_nonnull(lines);
		lines[nr_lines++] = s;
	}
	fclose(f);
	ck_assert_msg(nr_lines > 0, "%s is empty", path);
}

static void man_free(void)
{
	while (nr_lines)
		free(lines[--nr_lines]);
	free(lines);
	lines = NULL;
}

/* the line that starts with prefix, exactly once; NULL if none */
static const char *man_line(const char *prefix)
{
	const char *found = NULL;
	size_t i;

	for (i = 0; i < nr_lines; i++) {
		if (strncmp(lines[i], prefix, strlen(prefix)))
			continue;
		ck_assert_msg(!found, "two lines start with \"%s\"", prefix);
		found = lines[i];
	}
	return found;
}

static const struct entry *find(const struct entry *t, size_t n,
				unsigned int value)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].value == value)
			return &t[i];
	return NULL;
}

/* the entries of a table the page names, each once */
struct seen {
	const char *what, *list;	/* "tag", "AP_FORMAT_TAGS" */
	const struct entry *t;
	size_t n;
	int seen[AP_TRAILER_TAGS];
};

/* the page names value v name on line (from 1) */
static void seen__add(struct seen *s, size_t line, unsigned int v,
		      const char *name)
{
	const struct entry *e = find(s->t, s->n, v);

	ck_assert_msg(e, "line %zu: %s %u is not in %s", line, s->what, v,
		      s->list);
	ck_assert_msg(!strcmp(e->name, name),
		      "line %zu: %s %u is \"%s\" in the page, \"%s\" in %s",
		      line, s->what, v, name, e->name, s->list);
	ck_assert_msg(!s->seen[e - s->t]++, "line %zu: %s %u twice", line,
		      s->what, v);
}

static void seen__all(const struct seen *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		ck_assert_msg(s->seen[i], "%s %u (%s) of %s is not in the page",
			      s->what, s->t[i].value, s->t[i].name, s->list);
}

/* ".SS Tag N: name (what)": a section per tag, none more */
START_TEST(test_man_tags)
{
	struct seen s = { "tag", "AP_FORMAT_TAGS", tags, NELEM(tags) };
	size_t i;

	for (i = 0; i < nr_lines; i++) {
		unsigned int v;
		char name[64];

		if (strncmp(lines[i], ".SS Tag ", 8))
			continue;
		ck_assert_msg(sscanf(lines[i], ".SS Tag %u: %63[^ (]", &v,
				     name) == 2,
			      "line %zu: \"%s\": not \"Tag N: name\"", i + 1,
			      lines[i]);
		seen__add(&s, i + 1, v, name);
	}
	seen__all(&s);
}
END_TEST

/* "Tags 8 to 15, 25 to 28 and 32 and above are reserved ...": the ranges
 * below AP_TRAILER_TAGS that no tag has */
START_TEST(test_man_reserved)
{
	char want[256];
	size_t off;
	unsigned int v, end;
	const char *got;

	off = (size_t)snprintf(want, sizeof(want), "Tags ");
	for (v = 0; v < AP_TRAILER_TAGS; v = end) {
		for (; v < AP_TRAILER_TAGS && find(tags, NELEM(tags), v); v++)
			;
		for (end = v; end < AP_TRAILER_TAGS &&
			      !find(tags, NELEM(tags), end); end++)
			;
		if (v == end)
			break;
		if (end == v + 1)
			off += (size_t)snprintf(want + off, sizeof(want) - off,
						"%u, ", v);
		else
			off += (size_t)snprintf(want + off, sizeof(want) - off,
						"%u to %u, ", v, end - 1);
	}
	off -= 2;
	snprintf(want + off, sizeof(want) - off,
		 " and %u and above are reserved for future use.",
		 AP_TRAILER_TAGS);
	got = man_line("Tags ");
	ck_assert_msg(got, "no line \"%s\"", want);
	ck_assert_str_eq(got, want);
}
END_TEST

/* the description's "(1.1 added ...; 1.2 ...; ...)": each minor version
 * once, in order, up to AP_FORMAT_MINOR */
static int history(void)
{
	char text[4096] = "", v[32];
	const char *p;
	size_t i, off = 0;
	int minor;

	for (i = 0; i < nr_lines && strncmp(lines[i], "This page ", 10); i++)
		;
	for (; i < nr_lines && strcmp(lines[i], ".PP"); i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s ",
					lines[i]);
	p = strchr(text, '(');
	for (minor = 1; p && minor <= AP_FORMAT_MINOR + 1; minor++) {
		snprintf(v, sizeof(v), "%d.%d ", AP_FORMAT_MAJOR, minor);
		p = strstr(p, v);
		if (!p)
			return minor == AP_FORMAT_MINOR + 1;
	}
	return 0;
}

START_TEST(test_man_version)
{
	char want[128];
	const char *got;

	snprintf(want, sizeof(want),
		 "This page describes every byte of format version %d.%d ",
		 AP_FORMAT_MAJOR, AP_FORMAT_MINOR);
	ck_assert_msg(man_line(want), "no line starting \"%s\"", want);
	ck_assert_msg(history(), "the page's list of minor versions does not end at %d.%d",
		      AP_FORMAT_MAJOR, AP_FORMAT_MINOR);
	snprintf(want, sizeof(want), "u16 major - format major version, %d.",
		 AP_FORMAT_MAJOR);
	got = man_line("u16 major ");
	ck_assert_msg(got, "no line \"%s\"", want);
	ck_assert_str_eq(got, want);
	snprintf(want, sizeof(want), "u16 minor - format minor version, %d.",
		 AP_FORMAT_MINOR);
	got = man_line("u16 minor ");
	ck_assert_msg(got, "no line \"%s\"", want);
	ck_assert_str_eq(got, want);
}
END_TEST

/* in the lost frame's section, "... N" then ".IR name ," for each source */
START_TEST(test_man_lost_sources)
{
	struct seen s = { "source", "AP_LOST_SOURCES", sources,
			  NELEM(sources) };
	size_t i, first = 0, last;

	for (i = 0; i < nr_lines; i++) {
		if (!strncmp(lines[i], ".SS Tag ", 8) && first)
			break;
		if (!strncmp(lines[i], ".SS Tag 21: lost ", 17))
			first = i;
	}
	last = i;
	ck_assert_msg(first, "no section \".SS Tag 21: lost\"");
	for (i = first + 1; i + 1 < last; i++) {
		char name[64];
		const char *p;
		unsigned int v;

		if (sscanf(lines[i + 1], ".IR %63[^ ,]", name) != 1)
			continue;
		p = strrchr(lines[i], ' ');
		if (!p || sscanf(p, " %u", &v) != 1)
			continue;
		seen__add(&s, i + 2, v, name);
	}
	seen__all(&s);
}
END_TEST

static Suite *format_suite(void)
{
	Suite *s = suite_create("format");
	TCase *tc;

	tc = tcase_create("encode_decode");
	tcase_add_loop_test(tc, test_roundtrip, 0, NCASES);
	tcase_add_loop_test(tc, test_short_payload, 0, NCASES);
	tcase_add_loop_test(tc, test_long_payload, 0, NCASES);
	suite_add_tcase(s, tc);

	tc = tcase_create("cpu_sample__encode");
	tcase_add_test(tc, test_cpu_bytes);
	suite_add_tcase(s, tc);

	tc = tcase_create("task__encode");
	tcase_add_test(tc, test_task_bytes);
	suite_add_tcase(s, tc);

	tc = tcase_create("stack__encode");
	tcase_add_test(tc, test_stack_bytes);
	suite_add_tcase(s, tc);

	tc = tcase_create("stack__decode");
	tcase_add_test(tc, test_stack_decode);
	suite_add_tcase(s, tc);

	tc = tcase_create("mmap__decode");
	tcase_add_test(tc, test_mmap_bad_build_id);
	suite_add_tcase(s, tc);

	tc = tcase_create("summary__decode");
	tcase_add_test(tc, test_summary_lost_count);
	suite_add_tcase(s, tc);

	tc = tcase_create("frame__begin_end");
	tcase_add_test(tc, test_frame_begin_end);
	suite_add_tcase(s, tc);

	tc = tcase_create("header__init");
	tcase_add_test(tc, test_header_init);
	suite_add_tcase(s, tc);

	tc = tcase_create("header__encode_decode");
	tcase_add_test(tc, test_header_roundtrip);
	tcase_add_test(tc, test_header_unknown_key);
	suite_add_tcase(s, tc);

	tc = tcase_create("tag__name");
	tcase_add_loop_test(tc, test_tag_name, 0, NELEM(tag_names));
	suite_add_tcase(s, tc);

	tc = tcase_create("lost__source_name");
	tcase_add_loop_test(tc, test_lost_source_name, 0, NELEM(lost_names));
	suite_add_tcase(s, tc);

	tc = tcase_create("aperture-file.5");
	tcase_add_checked_fixture(tc, man_load, man_free);
	tcase_add_test(tc, test_man_tags);
	tcase_add_test(tc, test_man_reserved);
	tcase_add_test(tc, test_man_version);
	tcase_add_test(tc, test_man_lost_sources);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(format_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
