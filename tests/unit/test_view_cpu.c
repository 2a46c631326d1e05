// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU view over a session fed with crafted frames: folded lines
 * (root first, kernel frames suffixed _[k], unresolved frames as
 * dso+0xOFF or [unknown]), self and children in the table, filters;
 * the pprof export of its profile (which mapping pprof calls the main
 * binary); the speedscope export's time order.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "report/ctxtab.h"
#include "export/export.h"
#include "format/format.h"
#include "export/profile.h"
#include "proto/profile.pb-c.h"
#include "format/reader.h"
#include "report/session.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "report/view.h"

struct fixture {
	struct ap_symbolizer *sym;
	struct ap_session *s;
	struct ap_buf b;
};

static void feed(struct fixture *fx)
{
	size_t off = 0;

	while (off + AP_FRAME_HDR_LEN <= fx->b.len) {
		struct ap_frame f;

		f.tag = ap_get_le32(fx->b.data + off);
		f.len = ap_get_le32(fx->b.data + off + 4);
		f.payload = fx->b.data + off + AP_FRAME_HDR_LEN;
		ck_assert_int_ge(ap_session__feed(fx->s, &f), 0);
		off += AP_FRAME_HDR_LEN + f.len;
	}
}

static void quiet(void *ctx, const char *msg)
{
}

static void setup_fixture(struct fixture *fx)
{
	struct ap_symbolizer_opts so = { .warn = quiet };
	struct ap_task t = { .ts = 1, .pid = 10, .start_ticks = 5, .kind = AP_TASK_SNAPSHOT };
	struct ap_comm c1 = { .ts = 1, .pid = 10, .tid = 10 };
	struct ap_comm c2 = { .ts = 1, .pid = 10, .tid = 11 };
	struct ap_ksym k1 = { .addr = 0xffffffff81000000ull, .size = 0x100 };
	struct ap_ksym k2 = { .addr = 0xffffffff81001000ull, .size = 0x100 };
	struct ap_mmap *m = calloc(1, sizeof(*m));
	uint64_t st1[] = { 0xffffffff81001010ull, 0xffffffff81000020ull };
	uint64_t st2[] = { 0x400123 };
	uint64_t st3[] = { 0x10 };
	struct ap_stack s1 = { .id = 1, .nr_kernel = 2, .nr_user = 0, .ips = st1 };
	struct ap_stack s2 = { .id = 2, .nr_kernel = 0, .nr_user = 1, .ips = st2 };
	struct ap_stack s3 = { .id = 3, .nr_kernel = 0, .nr_user = 1, .ips = st3 };
	int i;

	fx->sym = ap_symbolizer__new(&so);
	fx->s = ap_session__new(fx->sym);
	ap_buf__init(&fx->b);
	strcpy(t.comm, "prog");
	strcpy(c1.comm, "prog");
	strcpy(c2.comm, "worker");
	strcpy(k1.name, "do_syscall_64");
	strcpy(k2.name, "schedule");
	m->pid = 10;
	m->start = 0x400000;
	m->end = 0x500000;
	m->prot = 5;
	strcpy(m->path, "/nonexistent/libfoo.so");
	ap_task__encode(&t, &fx->b);
	ap_comm__encode(&c1, &fx->b);
	ap_comm__encode(&c2, &fx->b);
	ap_ksym__encode(&k1, &fx->b);
	ap_ksym__encode(&k2, &fx->b);
	ap_mmap__encode(m, &fx->b);
	ap_stack__encode(&s1, &fx->b);
	ap_stack__encode(&s2, &fx->b);
	ap_stack__encode(&s3, &fx->b);
	for (i = 0; i < 6; i++) {
		struct ap_cpu_sample e = {
			.ts = 100 + i, .pid = 10, .tid = i < 3 ? 10 : 11,
			.stack_id = i < 3 ? 1 : i < 5 ? 2 : 3,
		};

		ap_cpu_sample__encode(&e, &fx->b);
	}
	free(m);
	feed(fx);
}

static void teardown_fixture(struct fixture *fx)
{
	ap_session__free(fx->s);
	ap_symbolizer__free(fx->sym);
	ap_buf__free(&fx->b);
}

/* a cpu view (ops) that has taken in the fixture's samples */
static void *fed_view(struct fixture *fx, struct ap_report_opts *o,
		      const struct ap_view_ops **ops)
{
	size_t off = 0;
	void *v;

	*ops = ap_view__find("cpu");
	ck_assert_ptr_nonnull(*ops);
	v = (*ops)->new(o, fx->s);
	while (off + AP_FRAME_HDR_LEN <= fx->b.len) {
		struct ap_frame fr;

		fr.tag = ap_get_le32(fx->b.data + off);
		fr.len = ap_get_le32(fx->b.data + off + 4);
		fr.payload = fx->b.data + off + AP_FRAME_HDR_LEN;
		if (fr.tag == AP_TAG_CPU)
			ck_assert_int_eq((*ops)->event(v, &fr), 0);
		off += AP_FRAME_HDR_LEN + fr.len;
	}
	return v;
}

/* runs the cpu view over the fixture's samples and returns its output */
static char *render(struct fixture *fx, struct ap_report_opts *o)
{
	const struct ap_view_ops *ops;
	void *v = fed_view(fx, o, &ops);
	char *out = NULL;
	size_t len;
	FILE *f;

	f = open_memstream(&out, &len);
	ck_assert_int_eq(ops->print(v, f), 0);
	fclose(f);
	ops->free(v);
	return out;
}

static void default_keys(struct ap_report_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->keys[0] = AP_KEY_COMM;
	o->keys[1] = AP_KEY_DSO;
	o->keys[2] = AP_KEY_SYM;
	o->nr_keys = 3;
}

START_TEST(test_folded_lines)
{
	struct ap_report_opts o;
	struct fixture fx;
	char *out;

	setup_fixture(&fx);
	default_keys(&o);
	o.format = AP_FMT_FOLDED;
	out = render(&fx, &o);
	ck_assert_str_eq(out,
			 "prog;do_syscall_64_[k];schedule_[k] 3\n"
			 "worker;[unknown] 1\n"
			 "worker;libfoo.so+0x123 2\n");
	free(out);
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_folded_user_only_and_filters)
{
	struct ap_report_opts o;
	struct fixture fx;
	char *out;

	setup_fixture(&fx);
	default_keys(&o);
	o.format = AP_FMT_FOLDED;
	o.user_only = 1;
	o.comm = "prog";
	out = render(&fx, &o);
	ck_assert_str_eq(out, "prog;[kernel]_[k] 3\n");
	free(out);
	o.comm = NULL;
	o.user_only = 0;
	o.tids[0] = 11;
	o.nr_tids = 1;
	out = render(&fx, &o);
	ck_assert_ptr_null(strstr(out, "prog"));
	free(out);
	teardown_fixture(&fx);
}
END_TEST

/* --percentage: filtered rows as shares of every sample (absolute, the
 * default as in perf) or of the filtered ones (relative) */
START_TEST(test_percentage_absolute_relative)
{
	struct ap_report_opts o;
	struct fixture fx;
	char *out;

	setup_fixture(&fx);
	default_keys(&o);
	o.no_children = 1;
	o.comm = "prog";		/* 3 of the 6 samples */
	out = render(&fx, &o);
	ck_assert_ptr_nonnull(strstr(out, "50.00%"));
	ck_assert_ptr_null(strstr(out, "100.00%"));
	ck_assert_ptr_nonnull(strstr(out, "6 before the filters"));
	free(out);
	o.pct_relative = 1;
	out = render(&fx, &o);
	ck_assert_ptr_nonnull(strstr(out, "100.00%"));
	ck_assert_ptr_null(strstr(out, "50.00%"));
	free(out);
	teardown_fixture(&fx);
}
END_TEST

/* a narrow terminal: Command and Shared Object give way, the symbol
 * name stays inside the width */
START_TEST(test_narrow_width_keeps_symbol)
{
	struct ap_report_opts o;
	struct fixture fx;
	char *out, *line, *save = NULL;
	int rows = 0;

	setup_fixture(&fx);
	default_keys(&o);
	o.max_width = 50;
	out = render(&fx, &o);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sym = strstr(line, "[k] schedule");

		if (!sym)
			continue;
		rows++;
		ck_assert_int_le((int)(sym - line) + 12, 50);
	}
	ck_assert_int_gt(rows, 0);
	free(out);
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_table_self_children)
{
	struct ap_report_opts o;
	struct fixture fx;
	char *out, *line;

	setup_fixture(&fx);
	default_keys(&o);
	out = render(&fx, &o);
	/* schedule is the leaf of 3 of 6 samples; do_syscall_64 only a
	 * caller: 50 % children, 0 % self */
	line = strstr(out, "[k] schedule");
	ck_assert_ptr_nonnull(line);
	ck_assert_ptr_nonnull(strstr(out, "50.00%    50.00%  prog"));
	ck_assert_ptr_nonnull(strstr(out, "50.00%     0.00%  prog"));
	ck_assert_ptr_nonnull(strstr(out, "[.] libfoo.so+0x123"));
	free(out);
	o.format = AP_FMT_JSON;
	out = render(&fx, &o);
	ck_assert_ptr_nonnull(strstr(out, "\"samples\": 6"));
	ck_assert_ptr_nonnull(strstr(out, "\"sym\": \"schedule\", \"kernel\": true"));
	free(out);
	teardown_fixture(&fx);
}
END_TEST

/*
 * A deep stack shared by many threads of one process: symbolized once,
 * not once per thread, and one folded line (a 131,070-frame stack of
 * 10,000 threads took over 40 minutes).  Counted in symbolizer lookups,
 * not timed.
 */
#define DEEP_FRAMES	1000
#define DEEP_THREADS	1000

START_TEST(test_deep_stack_many_threads)
{
	struct ap_symbolizer_opts so = { .warn = quiet };
	struct ap_task t = { .ts = 1, .pid = 10, .start_ticks = 5,
			     .kind = AP_TASK_SNAPSHOT };
	struct ap_mmap *m = calloc(1, sizeof(*m));
	uint64_t *ips = calloc(DEEP_FRAMES, sizeof(*ips));
	struct ap_stack st = { .id = 1, .nr_user = DEEP_FRAMES, .ips = ips };
	struct ap_symbolizer_stats ss;
	struct ap_report_opts o;
	struct fixture fx;
	uint64_t before;
	char *out, want[64];
	int i;

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(ips);
	fx.sym = ap_symbolizer__new(&so);
	fx.s = ap_session__new(fx.sym);
	ap_buf__init(&fx.b);
	strcpy(t.comm, "deep");
	m->pid = 10;
	m->start = 0x400000;
	m->end = 0x500000;
	m->prot = 5;
	strcpy(m->path, "/nonexistent/libdeep.so");
	for (i = 0; i < DEEP_FRAMES; i++)
		ips[i] = 0x400100 + 16 * (uint64_t)i;
	ap_task__encode(&t, &fx.b);
	ap_mmap__encode(m, &fx.b);
	ap_stack__encode(&st, &fx.b);
	for (i = 0; i < DEEP_THREADS; i++) {
		struct ap_cpu_sample e = { .ts = 100 + i, .pid = 10,
					   .tid = 10 + i, .stack_id = 1 };

		ap_cpu_sample__encode(&e, &fx.b);
	}
	ck_assert_int_eq(fx.b.err, 0);
	feed(&fx);

	default_keys(&o);
	ap_symbolizer__stats(fx.sym, &ss);
	before = ss.lookups + ss.cache_hits;
	out = render(&fx, &o);
	ap_symbolizer__stats(fx.sym, &ss);
	/* each frame looked up once (twice: a caller with no symbol is
	 * looked up at ip - 1, then at ip), not once per thread */
	ck_assert_uint_le(ss.lookups + ss.cache_hits - before, 2 * DEEP_FRAMES);
	ck_assert_ptr_nonnull(strstr(out, "libdeep.so+0x100"));
	free(out);

	o.format = AP_FMT_FOLDED;
	before = ss.lookups + ss.cache_hits;
	out = render(&fx, &o);
	ap_symbolizer__stats(fx.sym, &ss);
	ck_assert_uint_le(ss.lookups + ss.cache_hits - before, 2 * DEEP_FRAMES);
	/* one line: every thread is "deep" */
	ck_assert_ptr_eq(strchr(out, '\n'), out + strlen(out) - 1);
	snprintf(want, sizeof(want), ";libdeep.so+0x100 %d\n", DEEP_THREADS);
	ck_assert_ptr_nonnull(strstr(out, want));
	ck_assert(!strncmp(out, "deep;libdeep.so+0x", 18));
	free(out);

	/* keyed by pid: the threads are one group too */
	o.format = AP_FMT_TABLE;
	o.keys[0] = AP_KEY_PID;
	before = ss.lookups + ss.cache_hits;
	out = render(&fx, &o);
	ap_symbolizer__stats(fx.sym, &ss);
	ck_assert_uint_le(ss.lookups + ss.cache_hits - before, 2 * DEEP_FRAMES);
	free(out);
	free(ips);
	free(m);
	teardown_fixture(&fx);
}
END_TEST

/* thread contexts: one per (pid, tid, comm, address space), found again
 * without making a key string per lookup */
START_TEST(test_ctxtab_binary_key)
{
	struct ap_strtab *strs = ap_strtab__new();
	struct fixture fx;
	struct ap_ctxtab t;
	size_t before;
	long a, b, c;
	int i;

	setup_fixture(&fx);
	ap_ctxtab__init(&t, strs);
	before = ap_strtab__count(strs);
	for (i = 0; i < 1000; i++) {
		a = ap_ctxtab__index(&t, fx.s, 10, 10);
		b = ap_ctxtab__index(&t, fx.s, 10, 11);
		c = ap_ctxtab__index(&t, fx.s, 99, 99);
		ck_assert_int_ge(a, 0);
		ck_assert_int_ne(a, b);
		ck_assert_int_ne(b, c);
	}
	ck_assert_uint_eq(t.nr, 3);
	ck_assert_uint_eq(ap_ctxtab__get(&t, a)->tid, 10);
	ck_assert_uint_eq(ap_ctxtab__get(&t, b)->tid, 11);
	ck_assert_str_eq(ap_ctxtab__get(&t, b)->comm, "worker");
	ck_assert_uint_eq(ap_ctxtab__get(&t, c)->pid, 99);
	/* nothing interned per lookup */
	ck_assert_uint_eq(ap_strtab__count(strs), before);
	ap_ctxtab__free(&t);
	ap_strtab__free(strs);
	teardown_fixture(&fx);
}
END_TEST

/* gunzip src into a new buffer; *out_len its length */
static uint8_t *gunzip(const uint8_t *src, size_t len, size_t *out_len)
{
	size_t cap = 1 << 20;
	uint8_t *dst = malloc(cap);
	z_stream z = { 0 };

	ck_assert_ptr_nonnull(dst);
	ck_assert_int_eq(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	z.next_in = (uint8_t *)src;
	z.avail_in = len;
	z.next_out = dst;
	z.avail_out = cap;
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	*out_len = z.total_out;
	inflateEnd(&z);
	return dst;
}

/*
 * pprof's "File:" is mapping[0]: the program whose code most samples ran,
 * weighed by their counts.  A hot loop is one stack of many samples; the
 * start-up in the loader, many stacks of one sample each, must not win.
 */
START_TEST(test_pprof_main_mapping_by_samples)
{
	struct ap_symbolizer_opts so = { .warn = quiet };
	struct ap_task t = { .ts = 1, .pid = 10, .start_ticks = 5,
			     .kind = AP_TASK_SNAPSHOT };
	struct ap_mmap *m = calloc(1, sizeof(*m));
	struct ap_report_opts o;
	struct ap_profile pr;
	struct fixture fx;
	Perftools__Profiles__Profile *pp;
	const struct ap_view_ops *ops;
	char *gz = NULL;
	uint8_t *raw;
	size_t gz_len, raw_len;
	FILE *f;
	void *v;
	int i;

	ck_assert_ptr_nonnull(m);
	fx.sym = ap_symbolizer__new(&so);
	fx.s = ap_session__new(fx.sym);
	ap_buf__init(&fx.b);
	strcpy(t.comm, "prog");
	ap_task__encode(&t, &fx.b);
	/* the loader first: a profile's mappings come in the order seen */
	m->pid = 10;
	m->start = 0x7f0000000000ull;
	m->end = 0x7f0000100000ull;
	m->prot = 5;
	strcpy(m->path, "/nonexistent/ld.so");
	ap_mmap__encode(m, &fx.b);
	m->start = 0x400000;
	m->end = 0x500000;
	strcpy(m->path, "/nonexistent/prog");
	ap_mmap__encode(m, &fx.b);
	/* stack 1: the loop in prog; stacks 2..9: one each in ld.so */
	for (i = 1; i < 10; i++) {
		uint64_t ip = i == 1 ? 0x400100 : 0x7f0000000100ull + 64 * i;
		struct ap_stack st = { .id = i, .nr_user = 1, .ips = &ip };

		ap_stack__encode(&st, &fx.b);
	}
	for (i = 0; i < 8 + 50; i++) {
		struct ap_cpu_sample e = { .ts = 100 + i, .pid = 10, .tid = 10,
					   .stack_id = i < 8 ? 2 + i : 1 };

		ap_cpu_sample__encode(&e, &fx.b);
	}
	ck_assert_int_eq(fx.b.err, 0);
	feed(&fx);

	default_keys(&o);
	o.freq = 999;
	v = fed_view(&fx, &o, &ops);
	ap_profile__init(&pr, fx.s);
	ck_assert_int_eq(ops->profile(v, &pr), 0);
	f = open_memstream(&gz, &gz_len);
	ck_assert_int_eq(ap_export_pprof(&pr, f), 0);
	fclose(f);
	raw = gunzip((uint8_t *)gz, gz_len, &raw_len);
	pp = perftools__profiles__profile__unpack(NULL, raw_len, raw);
	ck_assert_ptr_nonnull(pp);
	ck_assert_uint_eq(pp->n_mapping, 2);
	ck_assert_str_eq(pp->string_table[pp->mapping[0]->filename],
			 "/nonexistent/prog");
	perftools__profiles__profile__free_unpacked(pp, NULL);
	free(raw);
	free(gz);
	ap_profile__free(&pr);
	ops->free(v);
	free(m);
	teardown_fixture(&fx);
}
END_TEST

/* the speedscope text of the cpu view of samples at ts (ms, the period's
 * end, in file order) on stack ids: 1 "schedule", 2 "do_syscall_64",
 * recorded from 0 for 10 ms at 1000 Hz */
static char *speedscope_of(int format, const int *ms, const int *ids, int n,
			   size_t *nr_times)
{
	struct ap_symbolizer_opts so = { .warn = quiet };
	struct ap_task t = { .ts = 0, .pid = 10, .start_ticks = 5,
			     .kind = AP_TASK_SNAPSHOT };
	struct ap_ksym k1 = { .addr = 0xffffffff81000000ull, .size = 0x100 };
	struct ap_ksym k2 = { .addr = 0xffffffff81001000ull, .size = 0x100 };
	uint64_t ip1 = 0xffffffff81001010ull, ip2 = 0xffffffff81000020ull;
	struct ap_stack s1 = { .id = 1, .nr_kernel = 1, .ips = &ip1 };
	struct ap_stack s2 = { .id = 2, .nr_kernel = 1, .ips = &ip2 };
	const struct ap_view_ops *ops;
	struct ap_report_opts o;
	struct ap_profile pr;
	struct fixture fx;
	char *out = NULL;
	size_t len;
	FILE *f;
	void *v;
	int i;

	fx.sym = ap_symbolizer__new(&so);
	fx.s = ap_session__new(fx.sym);
	ap_buf__init(&fx.b);
	strcpy(t.comm, "prog");
	strcpy(k1.name, "do_syscall_64");
	strcpy(k2.name, "schedule");
	ap_task__encode(&t, &fx.b);
	ap_ksym__encode(&k1, &fx.b);
	ap_ksym__encode(&k2, &fx.b);
	ap_stack__encode(&s1, &fx.b);
	ap_stack__encode(&s2, &fx.b);
	for (i = 0; i < n; i++) {
		struct ap_cpu_sample e = { .ts = ms[i] * 1000000ull, .pid = 10,
					   .tid = 10, .stack_id = ids[i] };

		ap_cpu_sample__encode(&e, &fx.b);
	}
	ck_assert_int_eq(fx.b.err, 0);
	feed(&fx);
	default_keys(&o);
	o.format = format;
	o.freq = 1000;
	v = fed_view(&fx, &o, &ops);
	ap_profile__init(&pr, fx.s);
	pr.duration_ns = 10000000;
	ck_assert_int_eq(ops->profile(v, &pr), 0);
	*nr_times = pr.nr_times;
	f = open_memstream(&out, &len);
	ck_assert_int_eq(ap_export_speedscope(&pr, "t", f), 0);
	fclose(f);
	ap_profile__free(&pr);
	ops->free(v);
	teardown_fixture(&fx);
	return out;
}

/*
 * speedscope's time order is the samples' own: each where it was taken
 * (the period before its time), gaps where the thread was elsewhere, the
 * whole recording in nanoseconds; not one entry per stack.  The file's
 * order is not time order.
 */
START_TEST(test_speedscope_time_order)
{
	static const int ms[] = { 7, 2, 6, 3 }, ids[] = { 2, 1, 2, 1 };
	size_t nr_times;
	char *out;

	out = speedscope_of(AP_FMT_SPEEDSCOPE, ms, ids, 4, &nr_times);
	ck_assert_uint_eq(nr_times, 4);
	ck_assert_ptr_nonnull(strstr(out, "\"name\": \"cpu prog 10/10\", \"unit\": \"nanoseconds\", \"startValue\": 0, \"endValue\": 10000000,"));
	/* [1, 3) schedule, [5, 7) do_syscall_64 */
	ck_assert_ptr_nonnull(strstr(out, "\"samples\": [[], [0], [], [1], []],"));
	ck_assert_ptr_nonnull(strstr(out, "\"weights\": [1000000, 2000000, 2000000, 2000000, 3000000]}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"name\": \"schedule\", \"file\": \"[kernel.kallsyms]\"},\n    {\"name\": \"do_syscall_64\""));
	free(out);
	/* other formats keep no times */
	out = speedscope_of(AP_FMT_TABLE, ms, ids, 4, &nr_times);
	ck_assert_uint_eq(nr_times, 0);
	ck_assert_ptr_nonnull(strstr(out, "\"unit\": \"none\", \"startValue\": 0, \"endValue\": 4,"));
	free(out);
}
END_TEST

/* past its cap (AP_PROF_MAX_TIMES) a view keeps no times and is exported
 * by stack */
START_TEST(test_prof_times_cap)
{
	struct ap_prof_sample smp = { .comm = "prog", .ref = 0 };
	struct ap_prof_times t = { .max = 1000 };
	struct ap_profile p;
	uint32_t i;

	for (i = 0; i <= 1000; i++)
		ck_assert_int_eq(ap_prof_times__add(&t, i, 1, 0), 0);
	ck_assert_int_eq(t.over, 1);
	ck_assert_ptr_null(t.t);
	ck_assert_int_eq(ap_prof_times__add(&t, i, 1, 0), 0);
	ck_assert_uint_eq(t.nr, 0);
	ap_profile__init(&p, NULL);
	smp.view = ap_profile__add_kind(&p, AP_TAG_CPU, 0);
	ck_assert_int_eq(smp.view, 0);
	ck_assert_int_eq(ap_profile__add(&p, &smp), 0);
	ck_assert_int_eq(ap_profile__take_times(&p, 0, &t), 0);
	ck_assert_int_eq(p.views[0].timed, -1);
	ck_assert_uint_eq(p.nr_times, 0);
	ap_profile__free(&p);
}
END_TEST

static Suite *view_cpu_suite(void)
{
	Suite *s = suite_create("view_cpu");
	TCase *tc;

	tc = tcase_create("folded");
	tcase_add_test(tc, test_folded_lines);
	tcase_add_test(tc, test_folded_user_only_and_filters);
	suite_add_tcase(s, tc);
	tc = tcase_create("table");
	/* the deep stack case under ASan on a loaded machine */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_table_self_children);
	tcase_add_test(tc, test_percentage_absolute_relative);
	tcase_add_test(tc, test_narrow_width_keeps_symbol);
	tcase_add_test(tc, test_ctxtab_binary_key);
	tcase_add_test(tc, test_deep_stack_many_threads);
	suite_add_tcase(s, tc);
	tc = tcase_create("export");
	tcase_add_test(tc, test_pprof_main_mapping_by_samples);
	tcase_add_test(tc, test_speedscope_time_order);
	tcase_add_test(tc, test_prof_times_cap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(view_cpu_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
