// SPDX-License-Identifier: GPL-2.0
/*
 * Syscalls: the AP_TAG_SYSCALL frame byte by byte (tag 2 as the reference
 * model pins it), round trip, short and long payloads; syscall and errno
 * names; exact percentiles and the log2 histogram; and the syscall view
 * over a session fed with crafted frames (table, --per-thread, --errors,
 * --hist, json, folded weights, in-flight calls, filters).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "syscall/codec.h"
#include "format/format.h"
#include "format/reader.h"
#include "report/session.h"
#include "symbols/symbolizer.h"
#include "syscall/syscalls.h"
#include "report/view.h"

static const struct ap_syscall sample = {
	.ts = 0x0102030405060708ull,
	.pid = 4242,
	.tid = 4243,
	.id = 0x11223344,
	.duration_ns = 0xa1a2a3a4a5a6a7a8ull,
	.ret = -2,
	.stack_id = 77,
	.cpu = 3,
	.flags = AP_SYSCALL_INFLIGHT,
};

START_TEST(test_frame_bytes)
{
	static const uint8_t want[] = {
		2, 0, 0, 0,			/* tag: syscall */
		48, 0, 0, 0,			/* payload length */
		8, 7, 6, 5, 4, 3, 2, 1,		/* ts */
		0x92, 0x10, 0, 0,		/* pid 4242 */
		0x93, 0x10, 0, 0,		/* tid 4243 */
		0x44, 0x33, 0x22, 0x11,		/* syscall id */
		0xa8, 0xa7, 0xa6, 0xa5, 0xa4, 0xa3, 0xa2, 0xa1, /* duration */
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* ret -2 */
		77, 0, 0, 0,			/* stack id */
		3, 0, 0, 0,			/* cpu */
		1, 0, 0, 0,			/* flags: in flight */
	};
	struct ap_buf b;

	ap_buf__init(&b);
	ap_syscall__encode(&sample, &b);
	ck_assert_int_eq(b.err, 0);
	ck_assert_uint_eq(b.len, sizeof(want));
	ck_assert_uint_eq(AP_TAG_SYSCALL, 2);
	ck_assert_uint_eq(AP_SYSCALL_PAYLOAD_LEN + AP_FRAME_HDR_LEN,
			  sizeof(want));
	ck_assert_mem_eq(b.data, want, sizeof(want));
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_round_trip)
{
	struct ap_syscall out;
	struct ap_buf b;

	ap_buf__init(&b);
	ap_syscall__encode(&sample, &b);
	ck_assert_int_eq(ap_syscall__decode(b.data + AP_FRAME_HDR_LEN,
					    b.len - AP_FRAME_HDR_LEN, &out), 0);
	ck_assert_uint_eq(out.ts, sample.ts);
	ck_assert_uint_eq(out.pid, sample.pid);
	ck_assert_uint_eq(out.tid, sample.tid);
	ck_assert_uint_eq(out.id, sample.id);
	ck_assert_uint_eq(out.duration_ns, sample.duration_ns);
	ck_assert_int_eq(out.ret, -2);
	ck_assert_uint_eq(out.stack_id, 77);
	ck_assert_uint_eq(out.cpu, 3);
	ck_assert_uint_eq(out.flags, AP_SYSCALL_INFLIGHT);
	ap_buf__free(&b);
}
END_TEST

/* every shorter payload is refused, a longer one (newer minor) accepted */
START_TEST(test_short_and_long)
{
	uint8_t p[AP_SYSCALL_PAYLOAD_LEN + 16];
	struct ap_syscall out;
	struct ap_buf b;
	size_t len = _i;

	ap_buf__init(&b);
	ap_syscall__encode(&sample, &b);
	memset(p, 0xee, sizeof(p));
	memcpy(p, b.data + AP_FRAME_HDR_LEN, AP_SYSCALL_PAYLOAD_LEN);
	if (len < AP_SYSCALL_PAYLOAD_LEN) {
		ck_assert_int_eq(ap_syscall__decode(p, len, &out), -EBADMSG);
	} else {
		ck_assert_int_eq(ap_syscall__decode(p, len, &out), 0);
		ck_assert_uint_eq(out.flags, AP_SYSCALL_INFLIGHT);
		ck_assert_int_eq(out.ret, -2);
	}
	ap_buf__free(&b);
}
END_TEST

START_TEST(test_names)
{
	char buf[32];

	ck_assert_str_eq(ap_syscall__name(SYS_read, buf, sizeof(buf)), "read");
	ck_assert_str_eq(ap_syscall__name(SYS_write, buf, sizeof(buf)),
			 "write");
	ck_assert_str_eq(ap_syscall__name(SYS_exit_group, buf, sizeof(buf)),
			 "exit_group");
	ck_assert_str_eq(ap_syscall__name(99999, buf, sizeof(buf)),
			 "syscall_99999");
	ck_assert_int_eq(ap_syscall__id("openat"), SYS_openat);
	ck_assert_int_eq(ap_syscall__id("no_such_call"), -ENOENT);
	ck_assert_uint_gt(ap_syscall_names_nr, SYS_openat);
}
END_TEST

START_TEST(test_errnos)
{
	char buf[16];

	ck_assert_int_eq(ap_syscall__errno(-2), 2);
	ck_assert_int_eq(ap_syscall__errno(-4095), 4095);
	ck_assert_int_eq(ap_syscall__errno(-4096), 0);	/* an address */
	ck_assert_int_eq(ap_syscall__errno(0), 0);
	ck_assert_int_eq(ap_syscall__errno(17), 0);
	ck_assert_str_eq(ap_errno__name(ENOENT, buf, sizeof(buf)), "ENOENT");
	ck_assert_str_eq(ap_errno__name(EAGAIN, buf, sizeof(buf)), "EAGAIN");
	ck_assert_str_eq(ap_errno__name(512, buf, sizeof(buf)), "ERESTARTSYS");
	ck_assert_str_eq(ap_errno__name(516, buf, sizeof(buf)),
			 "ERESTART_RESTARTBLOCK");
	ck_assert_str_eq(ap_errno__name(4000, buf, sizeof(buf)), "E4000");
}
END_TEST

START_TEST(test_percentiles)
{
	uint64_t v[100], ten[10], one = 7;
	int i;

	for (i = 0; i < 100; i++)
		v[i] = 100 - i;		/* unsorted on purpose */
	ap_sort_u64(v, 100);
	ck_assert_uint_eq(v[0], 1);
	ck_assert_uint_eq(v[99], 100);
	ck_assert_uint_eq(ap_percentile(v, 100, 50), 50);
	ck_assert_uint_eq(ap_percentile(v, 100, 95), 95);
	ck_assert_uint_eq(ap_percentile(v, 100, 99), 99);
	ck_assert_uint_eq(ap_percentile(v, 100, 100), 100);
	ck_assert_uint_eq(ap_percentile(v, 100, 0), 1);
	ck_assert_uint_eq(ap_percentile(v, 100, 99.5), 100);
	/* nearest rank: ceil(p * n / 100) */
	for (i = 0; i < 10; i++)
		ten[i] = (i + 1) * 10;
	ck_assert_uint_eq(ap_percentile(ten, 10, 50), 50);
	ck_assert_uint_eq(ap_percentile(ten, 10, 51), 60);
	ck_assert_uint_eq(ap_percentile(ten, 10, 95), 100);
	ck_assert_uint_eq(ap_percentile(ten, 10, 10), 10);
	ck_assert_uint_eq(ap_percentile(ten, 10, 11), 20);
	ck_assert_uint_eq(ap_percentile(&one, 1, 99), 7);
	ck_assert_uint_eq(ap_percentile(NULL, 0, 50), 0);
}
END_TEST

START_TEST(test_hist_buckets)
{
	static const struct {
		uint64_t ns;
		unsigned k;
	} cases[] = {
		{ 0, 0 }, { 63, 0 }, { 64, 1 }, { 127, 1 }, { 128, 2 },
		{ 511, 3 }, { 512, 4 }, { 999, 4 }, { 1000, 5 }, { 1999, 5 },
		{ 2000, 6 }, { 3999, 6 }, { 4000, 7 }, { 1023999, 14 },
		{ 1024000, 15 },
	};
	uint64_t lo, hi, prev_hi = 0;
	unsigned k;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(ap_hist__bucket(cases[i].ns) == cases[i].k,
			      "%llu ns: bucket %u, want %u",
			      (unsigned long long)cases[i].ns,
			      ap_hist__bucket(cases[i].ns), cases[i].k);
	ck_assert_uint_eq(ap_hist__bucket(UINT64_MAX), AP_HIST_BUCKETS - 1);
	/* the ranges tile [0, inf) and agree with ap_hist__bucket */
	for (k = 0; k < AP_HIST_BUCKETS; k++) {
		ap_hist__range(k, &lo, &hi);
		ck_assert_uint_eq(lo, prev_hi);
		ck_assert_uint_lt(lo, hi);
		ck_assert_uint_eq(ap_hist__bucket(lo), k);
		ck_assert_uint_eq(ap_hist__bucket(hi - 1), k);
		prev_hi = hi;
	}
	ck_assert_uint_eq(prev_hi, UINT64_MAX);
}
END_TEST

/* percentiles from a histogram: in the bucket of the rank, never past
 * the longest call; exact where the totals tell */
START_TEST(test_hist_percentile)
{
	double h[AP_HIST_BUCKETS] = { 0 };
	uint64_t lo, hi, v;
	int exact;

	ck_assert_uint_eq(ap_hist__percentile(h, 0, 0, 0, 50, &exact), 0);
	/* 10 calls of 1.8 to 1.9 us, 18.5 us in all: all in [1us, 2us) */
	h[ap_hist__bucket(1800)] = 10;
	v = ap_hist__percentile(h, 10, 18500, 1900, 50, &exact);
	ck_assert_uint_eq(v, 1450);
	ck_assert(!exact);
	ck_assert_uint_eq(ap_hist__percentile(h, 10, 18500, 1900, 0, &exact),
			  1090);
	ck_assert(!exact);
	/* the 10th of 10 is the longest */
	ck_assert_uint_eq(ap_hist__percentile(h, 10, 18500, 1900, 95, &exact),
			  1900);
	ck_assert(exact);
	ck_assert_uint_eq(ap_hist__percentile(h, 10, 18500, 1900, 100,
					      &exact), 1900);
	ck_assert(exact);
	/* the longest below the bucket's top: the top is the longest */
	ck_assert_uint_eq(ap_hist__percentile(h, 10, 11000, 1200, 90, &exact),
			  1180);
	/* 90 calls in [256, 512) ns, 10 in [1, 2) ms: p50 among the fast,
	 * p95 among the slow, past neither the bucket nor the maximum */
	memset(h, 0, sizeof(h));
	h[ap_hist__bucket(300)] = 90;
	h[ap_hist__bucket(1500000)] = 10;
	v = ap_hist__percentile(h, 100, 1.5e7, 1500000, 50, &exact);
	ck_assert_uint_ge(v, 256);
	ck_assert_uint_lt(v, 512);
	v = ap_hist__percentile(h, 100, 1.5e7, 1500000, 90, &exact);
	ck_assert_uint_eq(v, 511);
	ap_hist__range(ap_hist__bucket(1500000), &lo, &hi);
	v = ap_hist__percentile(h, 100, 1.5e7, 1500000, 95, &exact);
	ck_assert_uint_ge(v, lo);
	ck_assert_uint_le(v, 1500000);
	ck_assert(!exact);
	/* one call: the maximum; of two the other is the total less it */
	memset(h, 0, sizeof(h));
	h[ap_hist__bucket(700)] = 1;
	ck_assert_uint_eq(ap_hist__percentile(h, 1, 700, 700, 50, &exact),
			  700);
	ck_assert(exact);
	h[ap_hist__bucket(700)] = 2;
	ck_assert_uint_eq(ap_hist__percentile(h, 2, 1300, 700, 50, &exact),
			  600);
	ck_assert(exact);
	ck_assert_uint_eq(ap_hist__percentile(h, 2, 1300, 700, 99, &exact),
			  700);
	ck_assert(exact);
	/* fewer counted than timed (decayed): the maximum bounds it */
	ck_assert_uint_eq(ap_hist__percentile(h, 5, 2000, 700, 50, &exact),
			  700);
}
END_TEST

START_TEST(test_hist_labels)
{
	char b[24];

	ck_assert_str_eq(ap_hist__label(0, b, sizeof(b)), "0ns");
	ck_assert_str_eq(ap_hist__label(64, b, sizeof(b)), "64ns");
	ck_assert_str_eq(ap_hist__label(1000, b, sizeof(b)), "1us");
	ck_assert_str_eq(ap_hist__label(512000, b, sizeof(b)), "512us");
	ck_assert_str_eq(ap_hist__label(1024000, b, sizeof(b)), "1.024ms");
	ck_assert_str_eq(ap_hist__label(2048000, b, sizeof(b)), "2.048ms");
	ck_assert_str_eq(ap_hist__label(1048576000ull, b, sizeof(b)),
			 "1.048576s");
	ck_assert_str_eq(ap_hist__label(UINT64_MAX, b, sizeof(b)), "inf");
}
END_TEST

/* the view over crafted frames */
struct fixture {
	struct ap_symbolizer *sym;
	struct ap_session *s;
	struct ap_buf b;
	struct ap_report_opts o;
	const struct ap_view_ops *ops;
	void *v;
	char *out;
};

static void quiet(void *ctx, const char *msg)
{
}

static void add_call(struct ap_buf *b, uint32_t tid, uint32_t id,
		     uint64_t dur, int64_t ret, uint32_t stack, uint32_t flags)
{
	struct ap_syscall e = {
		.ts = 100, .pid = 10, .tid = tid, .id = id,
		.duration_ns = dur, .ret = ret, .stack_id = stack,
		.flags = flags,
	};

	ap_syscall__encode(&e, b);
}

/* the frames of b to the session and the view */
static void feed(struct fixture *fx, const struct ap_buf *b)
{
	size_t off = 0;

	while (off + AP_FRAME_HDR_LEN <= b->len) {
		struct ap_frame f;

		f.tag = ap_get_le32(b->data + off);
		f.len = ap_get_le32(b->data + off + 4);
		f.payload = b->data + off + AP_FRAME_HDR_LEN;
		if (ap_session__feed(fx->s, &f) == 1)
			ck_assert_int_eq(fx->ops->event(fx->v, &f), 0);
		off += AP_FRAME_HDR_LEN + f.len;
	}
}

/*
 * pid 10: thread 10 "prog" makes read 1..100 us (the 1 us and 2 us ones
 * fail with EAGAIN, the 3 us one with EINTR) and 2 writes of 5 us;
 * thread 11 "worker" makes 10 writes of 1 ms, each from stack 1, fails
 * none; one read of thread 11 is in flight; exit_group never returns.
 */
static void setup(struct fixture *fx, int format, int per_thread)
{
	struct ap_symbolizer_opts so = { .warn = quiet };
	struct ap_task t = { .ts = 1, .pid = 10, .start_ticks = 5,
			     .kind = AP_TASK_SNAPSHOT };
	struct ap_comm c1 = { .ts = 1, .pid = 10, .tid = 10 };
	struct ap_comm c2 = { .ts = 1, .pid = 10, .tid = 11 };
	struct ap_mmap *m = calloc(1, sizeof(*m));
	uint64_t ips[] = { 0x400123 };
	struct ap_stack st = { .id = 1, .nr_user = 1, .ips = ips };
	int i;

	ck_assert_ptr_nonnull(m);
	memset(fx, 0, sizeof(*fx));
	fx->sym = ap_symbolizer__new(&so);
	fx->s = ap_session__new(fx->sym);
	ck_assert_ptr_nonnull(fx->s);
	ap_buf__init(&fx->b);
	strcpy(t.comm, "prog");
	strcpy(c1.comm, "prog");
	strcpy(c2.comm, "worker");
	m->pid = 10;
	m->start = 0x400000;
	m->end = 0x500000;
	m->prot = 5;
	strcpy(m->path, "/nonexistent/libfoo.so");
	ap_task__encode(&t, &fx->b);
	ap_comm__encode(&c1, &fx->b);
	ap_comm__encode(&c2, &fx->b);
	ap_mmap__encode(m, &fx->b);
	ap_stack__encode(&st, &fx->b);
	free(m);
	for (i = 100; i >= 1; i--)
		add_call(&fx->b, 10, SYS_read, i * 1000ull,
			 i <= 2 ? -EAGAIN : i == 3 ? -EINTR : 1, 0, 0);
	add_call(&fx->b, 10, SYS_write, 5000, 1, 0, 0);
	add_call(&fx->b, 10, SYS_write, 5000, 1, 0, 0);
	for (i = 0; i < 10; i++)
		add_call(&fx->b, 11, SYS_write, 1000000, 1, 1, 0);
	add_call(&fx->b, 11, SYS_read, 7000000, 0, 0, AP_SYSCALL_INFLIGHT);
	add_call(&fx->b, 10, SYS_exit_group, 0, 0, 0, AP_SYSCALL_NORETURN);

	fx->o.format = format;
	fx->o.per_thread = per_thread;
	fx->o.errors = 1;
	fx->o.hist = 1;
	fx->ops = ap_view__find("syscall");
	ck_assert_ptr_nonnull(fx->ops);
	ck_assert_uint_eq(fx->ops->tag, AP_TAG_SYSCALL);
	fx->v = fx->ops->new(&fx->o, fx->s);
	ck_assert_ptr_nonnull(fx->v);
	feed(fx, &fx->b);
}

static const char *print(struct fixture *fx)
{
	size_t len;
	FILE *f = open_memstream(&fx->out, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fx->ops->print(fx->v, f), 0);
	fclose(f);
	return fx->out;
}

static void teardown(struct fixture *fx)
{
	fx->ops->free(fx->v);
	ap_session__free(fx->s);
	ap_symbolizer__free(fx->sym);
	ap_buf__free(&fx->b);
	free(fx->out);
}

/* the row of name in a table: its first 9 fields after the name */
static int row_fields(const char *out, const char *name, char f[9][16])
{
	char pat[40];
	const char *p;

	snprintf(pat, sizeof(pat), "\n  %s ", name);
	p = strstr(out, pat);
	if (!p)
		return 0;
	return sscanf(p + strlen(pat),
		      "%15s %15s %15s %15s %15s %15s %15s %15s %15s",
		      f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]);
}

/* is there a line of the errors table with these fields? */
static int has_err_line(const char *out, const char *sc, const char *e,
			unsigned count)
{
	char line[96];

	snprintf(line, sizeof(line), "\n  %-22s %-22s %10u\n", sc, e, count);
	return strstr(out, line) != NULL;
}

/* a histogram line: range, count, bar of n '@' in 52 columns */
static const char *hist_line(const char *h, const char *range,
			     unsigned count, int n)
{
	char line[128];

	snprintf(line, sizeof(line), "\n%-20s %10u |%.*s%*s|\n", range, count,
		 n, "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
		 52 - n, "");
	return strstr(h, line);
}

START_TEST(test_view_table)
{
	struct fixture fx;
	char f[9][16];
	const char *out, *w, *r;

	setup(&fx, AP_FMT_TABLE, 0);
	out = print(&fx);
	ck_assert_msg(strstr(out, "# Syscalls: 113 calls, 3 errors, 1 in flight"),
		      "%s", out);
	/* write: 12 calls, 10.01 ms in all: sorted before read (5.05 ms) */
	w = strstr(out, "\n  write ");
	r = strstr(out, "\n  read ");
	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_nonnull(r);
	ck_assert(w < r);
	/* read: 100 calls, 3 errors, total 5.05 ms, avg 50.50 us, p50 50 us,
	 * p95 95 us, p99 99 us, max 100 us ("5.05 ms" is two fields) */
	ck_assert_int_ge(row_fields(out, "read", f), 9);
	ck_assert_str_eq(f[0], "100");
	ck_assert_str_eq(f[1], "3");
	ck_assert_str_eq(f[2], "5.05");
	ck_assert_str_eq(f[4], "50.50");
	ck_assert_str_eq(f[6], "50.00");
	ck_assert_str_eq(f[8], "95.00");
	ck_assert_msg(strstr(out, "99.00 us  100.00 us\n"), "%s", out);
	/* exit_group: a call without a duration */
	ck_assert_int_ge(row_fields(out, "exit_group", f), 5);
	ck_assert_str_eq(f[0], "1");
	ck_assert_str_eq(f[4], "-");
	/* errors, most frequent first within a syscall */
	ck_assert_msg(has_err_line(out, "read", "EAGAIN", 2), "%s", out);
	ck_assert_msg(has_err_line(out, "read", "EINTR", 1), "%s", out);
	ck_assert(strstr(out, "EAGAIN") < strstr(out, "EINTR"));
	/* in flight, outside the statistics */
	ck_assert_msg(strstr(out, "not in the statistics): read 1\n"), "%s",
		      out);
	teardown(&fx);
}
END_TEST

START_TEST(test_view_hist)
{
	struct fixture fx;
	const char *out, *h;

	setup(&fx, AP_FMT_TABLE, 0);
	out = print(&fx);
	/* read 1..100 us: [1us, 2us) 1, [2us, 4us) 2, [4us, 8us) 4, ...,
	 * [64us, 128us) 37 (64..100) */
	h = strstr(out, "# Latency of read: 100 calls\n");
	ck_assert_msg(h != NULL, "%s", out);
	ck_assert_msg(hist_line(h, "[1us, 2us)", 1, 1), "%s", h);
	ck_assert_msg(hist_line(h, "[2us, 4us)", 2, 2), "%s", h);
	ck_assert_msg(hist_line(h, "[32us, 64us)", 32, 44), "%s", h);
	ck_assert_msg(hist_line(h, "[64us, 128us)", 37, 52), "%s", h);
	ck_assert_ptr_null(strstr(h, "[0ns, 64ns)"));	/* before the first */
	/* write: 2 x 5 us and 10 x 1 ms: the buckets between are printed */
	h = strstr(out, "# Latency of write: 12 calls\n");
	ck_assert_ptr_nonnull(h);
	ck_assert_msg(hist_line(h, "[4us, 8us)", 2, 10), "%s", h);
	ck_assert_msg(hist_line(h, "[8us, 16us)", 0, 0), "%s", h);
	ck_assert_msg(hist_line(h, "[512us, 1.024ms)", 10, 52), "%s", h);
	teardown(&fx);
}
END_TEST

START_TEST(test_view_per_thread)
{
	struct fixture fx;
	const char *out, *t10, *t11;

	setup(&fx, AP_FMT_TABLE, 1);
	out = print(&fx);
	t11 = strstr(out, "# Thread 11 (worker, pid 10): 10 calls, 10.00 ms\n");
	t10 = strstr(out, "# Thread 10 (prog, pid 10): 103 calls, 5.06 ms\n");
	ck_assert_msg(t10 && t11, "%s", out);
	ck_assert(t11 < t10);	/* the busier thread first */
	ck_assert_msg(strstr(out, "read 1 (tid 11)"), "%s", out);
	teardown(&fx);
}
END_TEST

/* pid 10 exits and another process takes the pid: its thread 10 is
 * another thread, not more calls of the first one's */
START_TEST(test_view_per_thread_pid_reuse)
{
	struct ap_task gone = { .ts = 200, .pid = 10, .start_ticks = 5,
				.kind = AP_TASK_EXITED };
	struct ap_task again = { .ts = 300, .pid = 10, .start_ticks = 9,
				 .kind = AP_TASK_SNAPSHOT };
	struct ap_comm c = { .ts = 300, .pid = 10, .tid = 10 };
	struct fixture fx;
	struct ap_buf b;
	const char *out;
	size_t off = 0;
	int i;

	setup(&fx, AP_FMT_TABLE, 1);
	ap_buf__init(&b);
	strcpy(again.comm, "again");
	strcpy(c.comm, "again");
	ap_task__encode(&gone, &b);
	ap_task__encode(&again, &b);
	ap_comm__encode(&c, &b);
	for (i = 0; i < 4; i++)
		add_call(&b, 10, SYS_write, 1000000, 1, 0, 0);
	while (off + AP_FRAME_HDR_LEN <= b.len) {
		struct ap_frame f;

		f.tag = ap_get_le32(b.data + off);
		f.len = ap_get_le32(b.data + off + 4);
		f.payload = b.data + off + AP_FRAME_HDR_LEN;
		if (ap_session__feed(fx.s, &f) == 1)
			ck_assert_int_eq(fx.ops->event(fx.v, &f), 0);
		off += AP_FRAME_HDR_LEN + f.len;
	}
	ap_buf__free(&b);
	out = print(&fx);
	ck_assert_msg(strstr(out, "# Thread 10 (prog, pid 10): 103 calls, 5.06 ms\n"),
		      "%s", out);
	ck_assert_msg(strstr(out, "# Thread 10 (again, pid 10): 4 calls, 4.00 ms\n"),
		      "%s", out);
	teardown(&fx);
}
END_TEST

START_TEST(test_view_json)
{
	struct fixture fx;
	const char *out;

	setup(&fx, AP_FMT_JSON, 0);
	out = print(&fx);
	ck_assert_msg(strstr(out, "{\"calls\": 113, \"errors\": 3, \"in_flight\": 1, "),
		      "%s", out);
	ck_assert_msg(strstr(out, "{\"syscall\": \"read\", \"id\": 0, \"calls\": 100, \"errors\": 3, \"noreturn\": 0, \"in_flight\": 1, \"total_ns\": 5050000, \"avg_ns\": 50500, \"p50_ns\": 50000, \"p95_ns\": 95000, \"p99_ns\": 99000, \"estimated\": false, \"max_ns\": 100000, \"errnos\": [{\"errno\": \"EAGAIN\", \"code\": 11, \"count\": 2}, {\"errno\": \"EINTR\", \"code\": 4, \"count\": 1}], \"hist\": [{\"lo_ns\": 1000, \"hi_ns\": 2000, \"count\": 1}, "),
		      "%s", out);
	teardown(&fx);
}
END_TEST

/* in-kernel totals: percentiles estimated, and marked so; from per-call
 * records exact, unmarked */
START_TEST(test_view_summary_estimated)
{
	struct ap_syscall e = {
		.ts = 200, .pid = 10, .tid = 10, .id = SYS_openat,
		.flags = AP_SYSCALL_SUMMARY, .calls = 10,
		.duration_ns = 18500, .max_ns = 1900,
	};
	struct fixture fx;
	struct ap_buf b;
	char f[9][16];
	const char *out;
	int json;

	for (json = 0; json < 2; json++) {
		setup(&fx, json ? AP_FMT_JSON : AP_FMT_TABLE, 0);
		ap_buf__init(&b);
		e.hist[ap_hist__bucket(1800)] = 10;
		ap_syscall__encode(&e, &b);
		feed(&fx, &b);
		ap_buf__free(&b);
		out = print(&fx);
		if (json) {
			ck_assert_msg(strstr(out, "\"syscall\": \"openat\", \"id\": 257, \"calls\": 10, \"errors\": 0, \"noreturn\": 0, \"in_flight\": 0, \"total_ns\": 18500, \"avg_ns\": 1850, \"p50_ns\": 1450, \"p95_ns\": 1900, \"p99_ns\": 1900, \"estimated\": true, \"max_ns\": 1900,"),
				      "%s", out);
			ck_assert_msg(strstr(out, "\"p99_ns\": 99000, \"estimated\": false,"),
				      "%s", out);
		} else {
			/* calls errors total avg p50 p95 p99 max */
			ck_assert_int_ge(row_fields(out, "openat", f), 9);
			ck_assert_str_eq(f[0], "10");
			ck_assert_str_eq(f[4], "1.85");
			ck_assert_str_eq(f[6], "~1.45");
			/* p95 and p99: the 10th call, the longest */
			ck_assert_msg(strstr(out, "~1.45 us    1.90 us    1.90 us    1.90 us\n"),
				      "%s", out);
			ck_assert_int_ge(row_fields(out, "read", f), 9);
			ck_assert_str_eq(f[6], "50.00");
		}
		teardown(&fx);
	}
}
END_TEST

START_TEST(test_view_folded)
{
	struct fixture fx;
	const char *out;

	setup(&fx, AP_FMT_FOLDED, 0);
	out = print(&fx);
	/* weights are nanoseconds; stack 1 is outside any symbol */
	ck_assert_msg(strstr(out, "prog;sys_read_[k] 5050000\n"), "%s", out);
	ck_assert_msg(strstr(out, "prog;sys_write_[k] 10000\n"), "%s", out);
	ck_assert_msg(strstr(out, "worker;libfoo.so+0x122;sys_write_[k] 10000000\n") ||
		      strstr(out, "worker;libfoo.so+0x123;sys_write_[k] 10000000\n"),
		      "%s", out);
	/* neither the in-flight read nor exit_group has a duration */
	ck_assert_ptr_null(strstr(out, "worker;sys_read"));
	ck_assert_ptr_null(strstr(out, "exit_group"));
	teardown(&fx);
}
END_TEST

START_TEST(test_view_filter)
{
	struct fixture fx;
	const char *out;
	struct ap_report_opts o;

	setup(&fx, AP_FMT_TABLE, 0);
	/* a fresh view with --tid 11 over the same frames */
	fx.ops->free(fx.v);
	ap_session__free(fx.s);
	o = fx.o;
	fx.s = ap_session__new(fx.sym);
	o.tids[0] = 11;
	o.nr_tids = 1;
	fx.o = o;
	fx.v = fx.ops->new(&fx.o, fx.s);
	{
		size_t off = 0;

		while (off + AP_FRAME_HDR_LEN <= fx.b.len) {
			struct ap_frame f;

			f.tag = ap_get_le32(fx.b.data + off);
			f.len = ap_get_le32(fx.b.data + off + 4);
			f.payload = fx.b.data + off + AP_FRAME_HDR_LEN;
			if (ap_session__feed(fx.s, &f) == 1)
				fx.ops->event(fx.v, &f);
			off += AP_FRAME_HDR_LEN + f.len;
		}
	}
	out = print(&fx);
	ck_assert_msg(strstr(out, "# Syscalls: 10 calls, 0 errors, 1 in flight"),
		      "%s", out);
	ck_assert_ptr_null(strstr(out, "\n  read "));
	teardown(&fx);
}
END_TEST

START_TEST(test_view_decay)
{
	struct fixture fx;
	const char *out;

	setup(&fx, AP_FMT_TABLE, 0);
	/* keep the newest half: reads 50..1 us (fed from 100 down) */
	fx.ops->decay(fx.v, 1, 2);
	out = print(&fx);
	{
		char f[9][16];

		ck_assert_int_ge(row_fields(out, "read", f), 9);
		ck_assert_str_eq(f[0], "50");
	}
	ck_assert_msg(strstr(out, "50.00 us\n"), "%s", out);	/* max */
	free(fx.out);
	fx.out = NULL;
	fx.ops->decay(fx.v, 0, 1);
	out = print(&fx);
	ck_assert_msg(strstr(out, "# Syscalls: 0 calls, 0 errors"), "%s", out);
	teardown(&fx);
}
END_TEST

static Suite *syscall_suite(void)
{
	Suite *s = suite_create("syscall");
	TCase *tc;

	tc = tcase_create("frame");
	tcase_add_test(tc, test_frame_bytes);
	tcase_add_test(tc, test_round_trip);
	tcase_add_loop_test(tc, test_short_and_long, 0,
			    AP_SYSCALL_PAYLOAD_LEN + 16);
	suite_add_tcase(s, tc);

	tc = tcase_create("names");
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_errnos);
	suite_add_tcase(s, tc);

	tc = tcase_create("stats");
	tcase_add_test(tc, test_percentiles);
	tcase_add_test(tc, test_hist_buckets);
	tcase_add_test(tc, test_hist_percentile);
	tcase_add_test(tc, test_hist_labels);
	suite_add_tcase(s, tc);

	tc = tcase_create("view");
	tcase_add_test(tc, test_view_table);
	tcase_add_test(tc, test_view_hist);
	tcase_add_test(tc, test_view_per_thread);
	tcase_add_test(tc, test_view_per_thread_pid_reuse);
	tcase_add_test(tc, test_view_json);
	tcase_add_test(tc, test_view_summary_estimated);
	tcase_add_test(tc, test_view_folded);
	tcase_add_test(tc, test_view_filter);
	tcase_add_test(tc, test_view_decay);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(syscall_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
