// SPDX-License-Identifier: GPL-2.0
/*
 * The live aggregation of top, fed with crafted recorder output: frames
 * through the sink reach the session and the cpu view, renders follow the
 * top options (order, filter, samples column), decay halves, pause drops
 * events but keeps metadata, rates per interval, bad frames counted, and
 * the layout that cuts a table to a screen.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "report/session.h"
#include "report/stackres.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "tui/top_live.h"
#include "report/view.h"

struct fixture {
	struct ap_symbolizer *sym;
	struct ap_session *s;
	struct ap_report_opts o;
	struct ap_top *t;
	struct ap_buf b;
};

static void quiet(void *ctx, const char *msg)
{
}

static void add_samples(struct ap_buf *b, int n, uint32_t tid,
			uint32_t stack_id)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ap_cpu_sample e = {
			.ts = 100 + i, .pid = 10, .tid = tid,
			.stack_id = stack_id,
		};

		ap_cpu_sample__encode(&e, b);
	}
}

/* prog (tid 10): 3 samples in schedule <- do_syscall_64 (kernel);
 * worker (tid 11): 2 in libfoo.so+0x123, 1 at an unmapped address */
static void setup_fixture(struct fixture *fx)
{
	struct ap_symbolizer_opts so = { .warn = quiet };
	struct ap_task t = { .ts = 1, .pid = 10, .start_ticks = 5 };
	struct ap_comm c1 = { .ts = 1, .pid = 10, .tid = 10 };
	struct ap_comm c2 = { .ts = 1, .pid = 10, .tid = 11 };
	struct ap_ksym k1 = { .addr = 0xffffffff81000000ull, .size = 0x100 };
	struct ap_ksym k2 = { .addr = 0xffffffff81001000ull, .size = 0x100 };
	struct ap_mmap *m = calloc(1, sizeof(*m));
	uint64_t st1[] = { 0xffffffff81001010ull, 0xffffffff81000020ull };
	uint64_t st2[] = { 0x400123 };
	uint64_t st3[] = { 0x10 };
	struct ap_stack s1 = { .id = 1, .nr_kernel = 2, .ips = st1 };
	struct ap_stack s2 = { .id = 2, .nr_user = 1, .ips = st2 };
	struct ap_stack s3 = { .id = 3, .nr_user = 1, .ips = st3 };

	memset(fx, 0, sizeof(*fx));
	fx->sym = ap_symbolizer__new(&so);
	fx->s = ap_session__new(fx->sym);
	ck_assert_ptr_nonnull(fx->s);
	fx->o.keys[0] = AP_KEY_COMM;
	fx->o.keys[1] = AP_KEY_DSO;
	fx->o.keys[2] = AP_KEY_SYM;
	fx->o.nr_keys = 3;
	fx->o.show_samples = 1;
	fx->o.no_children = 1;
	fx->t = ap_top__new(ap_view__find("cpu"), &fx->o, fx->s);
	ck_assert_ptr_nonnull(fx->t);
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
	add_samples(&fx->b, 3, 10, 1);
	add_samples(&fx->b, 2, 11, 2);
	add_samples(&fx->b, 1, 11, 3);
	free(m);
	ck_assert_int_eq(ap_top__sink(fx->t, fx->b.data, fx->b.len), 0);
	ap_buf__reset(&fx->b);
}

static void teardown_fixture(struct fixture *fx)
{
	ap_top__free(fx->t);
	ap_session__free(fx->s);
	ap_symbolizer__free(fx->sym);
	ap_buf__free(&fx->b);
}

static const char *render(struct fixture *fx)
{
	const char *text;
	size_t len;

	ck_assert_int_eq(ap_top__render(fx->t, &text, &len), 0);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

/* the first line of the table that is not a '#' line */
static void first_row(const char *text, char *buf, size_t len)
{
	const char *p = text;

	while (*p == '#')
		p = strchr(p, '\n') + 1;
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
}

START_TEST(test_sink_render)
{
	struct fixture fx;
	const char *text;
	char row[256];

	setup_fixture(&fx);
	ck_assert_uint_eq(ap_top__stats(fx.t)->events, 6);
	ck_assert_uint_eq(ap_top__stats(fx.t)->bad_frames, 0);
	text = render(&fx);
	ck_assert_ptr_nonnull(strstr(text, "# Samples: 6 of event 'cpu'"));
	ck_assert_ptr_nonnull(strstr(text, "Samples  Command"));
	ck_assert_ptr_null(strstr(text, "Children"));
	first_row(text, row, sizeof(row));
	/* overhead, samples, comm, dso, symbol */
	ck_assert_str_eq(row,
			 "     50.00%         3  prog     [kernel.kallsyms]  [k] schedule");
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_orders_and_filter)
{
	const char *const *names = ap_view__find("cpu")->sort_names;
	struct fixture fx;
	const char *text;
	char row[256];

	ck_assert_ptr_nonnull(names);
	ck_assert_str_eq(names[0], "self");
	ck_assert_str_eq(names[1], "children");
	ck_assert_str_eq(names[2], "comm");
	ck_assert_str_eq(names[3], "symbol");
	ck_assert_ptr_null(names[4]);
	setup_fixture(&fx);
	fx.o.top_sort = 3;		/* symbol: "[unknown]" sorts first */
	first_row(render(&fx), row, sizeof(row));
	ck_assert_ptr_nonnull(strstr(row, "[.] [unknown]"));
	fx.o.top_sort = 2;		/* comm: prog before worker */
	first_row(render(&fx), row, sizeof(row));
	ck_assert_ptr_nonnull(strstr(row, "prog"));
	fx.o.top_sort = 1;		/* children: ties broken by self */
	fx.o.no_children = 0;
	text = render(&fx);
	ck_assert_ptr_nonnull(strstr(text, "Children"));
	first_row(text, row, sizeof(row));
	ck_assert_ptr_nonnull(strstr(row, "schedule"));
	fx.o.top_sort = 0;
	fx.o.sym_filter = "sys";
	text = render(&fx);
	ck_assert_ptr_nonnull(strstr(text, "do_syscall_64"));
	ck_assert_ptr_null(strstr(text, "schedule"));
	ck_assert_ptr_null(strstr(text, "libfoo"));
	/* without the children column, callers-only rows are left out */
	fx.o.no_children = 1;
	text = render(&fx);
	ck_assert_ptr_nonnull(strstr(text, "# no samples match the filters"));
	fx.o.sym_filter = "sched";
	text = render(&fx);
	ck_assert_ptr_nonnull(strstr(text, "[k] schedule"));
	fx.o.sym_filter = "nothing-matches";
	text = render(&fx);
	ck_assert_ptr_nonnull(strstr(text, "# no samples match the filters"));
	/* hiding kernel frames and the comm column */
	fx.o.sym_filter = NULL;
	fx.o.user_only = 1;
	fx.o.keys[0] = AP_KEY_DSO;
	fx.o.keys[1] = AP_KEY_SYM;
	fx.o.nr_keys = 2;
	text = render(&fx);
	ck_assert_ptr_null(strstr(text, "schedule"));
	ck_assert_ptr_null(strstr(text, "Command"));
	ck_assert_ptr_nonnull(strstr(text, "[k] [kernel]"));
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_decay_pause_rate)
{
	struct fixture fx;
	const struct ap_top_stats *st;
	struct ap_comm c = { .ts = 5, .pid = 10, .tid = 12 };

	setup_fixture(&fx);
	st = ap_top__stats(fx.t);
	ap_top__decay(fx.t, 1, 2);
	ck_assert_ptr_nonnull(strstr(render(&fx), "# Samples: 3 of event"));

	/* paused: events dropped, a new thread name still learned */
	ap_top__set_paused(fx.t, 1);
	strcpy(c.comm, "late");
	ap_comm__encode(&c, &fx.b);
	add_samples(&fx.b, 4, 10, 1);
	ap_top__sink(fx.t, fx.b.data, fx.b.len);
	ap_buf__reset(&fx.b);
	ck_assert_uint_eq(st->dropped_paused, 4);
	ck_assert_uint_eq(st->events, 6);
	ck_assert_str_eq(ap_session__comm(fx.s, 10, 12), "late");
	ck_assert_ptr_nonnull(strstr(render(&fx), "# Samples: 3 of event"));

	/* resumed: 6 events in a 3 s interval */
	ap_top__set_paused(fx.t, 0);
	ap_top__restart_interval(fx.t, 1000000000ull);
	add_samples(&fx.b, 6, 12, 2);
	ap_top__sink(fx.t, fx.b.data, fx.b.len);
	ap_buf__reset(&fx.b);
	ap_top__end_interval(fx.t, 4000000000ull);
	ck_assert_uint_eq(st->interval_events, 6);
	ck_assert(st->interval_s > 2.99 && st->interval_s < 3.01);
	ck_assert(st->rate > 1.99 && st->rate < 2.01);
	ck_assert_ptr_nonnull(strstr(render(&fx), "# Samples: 9 of event"));
	ck_assert_ptr_nonnull(strstr(render(&fx), "late"));
	/* 0/1 clears */
	ap_top__decay(fx.t, 0, 1);
	ck_assert_ptr_nonnull(strstr(render(&fx), "# Samples: 0 of event"));
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_bad_frames)
{
	struct fixture fx;
	uint8_t short_cpu[8 + 4] = { AP_TAG_CPU, 0, 0, 0, 4, 0, 0, 0 };

	setup_fixture(&fx);
	/* a cpu sample whose payload is too short for the view */
	ap_top__sink(fx.t, short_cpu, sizeof(short_cpu));
	ck_assert_uint_eq(ap_top__stats(fx.t)->bad_frames, 1);
	/* a frame header announcing more than there is */
	add_samples(&fx.b, 1, 10, 1);
	ap_top__sink(fx.t, fx.b.data, fx.b.len - 3);
	ck_assert_uint_eq(ap_top__stats(fx.t)->bad_frames, 2);
	ck_assert_uint_eq(ap_top__stats(fx.t)->events, 7);
	teardown_fixture(&fx);
}
END_TEST

static const char table[] =
	"# Samples: 4 of event 'cpu'\n"
	"#\n"
	"# Self  Symbol\n"
	"#\n"
	"  40%  alpha\n"
	"  30%  beta\n"
	"  20%  gamma\n"
	"  10%  alphabet\n";

START_TEST(test_layout)
{
	struct ap_top_line l[16];
	struct ap_top_layout lo;

	ap_top__layout(table, strlen(table), 0, NULL, 4, l, &lo);
	ck_assert_int_eq(lo.total_rows, 4);
	ck_assert_int_eq(lo.nr_lines, 4);
	ck_assert_int_eq(lo.offset, 0);
	ck_assert(l[0].head && l[1].head && !l[2].head);
	ck_assert_int_eq(l[1].len, (int)strlen("# Self  Symbol"));
	ck_assert(!strncmp(l[2].s, "  40%  alpha", l[2].len));
	ck_assert(!strncmp(l[3].s, "  30%  beta", l[3].len));
	/* past the end: clamped so that the last page is full */
	ap_top__layout(table, strlen(table), 99, NULL, 4, l, &lo);
	ck_assert_int_eq(lo.offset, 2);
	ck_assert(!strncmp(l[2].s, "  20%  gamma", l[2].len));
	ck_assert(!strncmp(l[3].s, "  10%  alphabet", l[3].len));
	ap_top__layout(table, strlen(table), -5, NULL, 4, l, &lo);
	ck_assert_int_eq(lo.offset, 0);
	/* filter on the rows, never on the head */
	ap_top__layout(table, strlen(table), 0, "alpha", 10, l, &lo);
	ck_assert_int_eq(lo.total_rows, 2);
	ck_assert_int_eq(lo.nr_lines, 4);
	ck_assert(!strncmp(l[3].s, "  10%  alphabet", l[3].len));
	/* a screen too small for the head */
	ap_top__layout(table, strlen(table), 0, NULL, 1, l, &lo);
	ck_assert_int_eq(lo.nr_lines, 1);
	ap_top__layout("", 0, 0, NULL, 5, l, &lo);
	ck_assert_int_eq(lo.nr_lines, 0);
	ck_assert_int_eq(lo.total_rows, 0);
}
END_TEST

START_TEST(test_header)
{
	struct ap_top_header h = {
		.event = "cpu", .rate = 1998.4, .lost = 5, .lost_interval = 2,
		.targets = "pid 12,13", .targets_alive = 1, .nr_targets = 2,
		.interval_s = 2, .wall_s = 0,
	};
	char buf[512];

	ap_top__header(&h, buf, sizeof(buf));
	ck_assert_str_eq(strstr(buf, "  cpu:"),
			 "  cpu: 1998 samples/s  lost: 5 (+2)  targets: pid 12,13 (1 of 2 alive)  decaying 1/2 per 2 s");
	h.targets_alive = 2;
	h.lost_interval = 0;
	ap_top__header(&h, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "lost: 5  targets: pid 12,13  decaying"));
	ck_assert(!strncmp(buf, "aperture top - ", 15));
	h.event = "syscall";
	h.targets = "system-wide";
	h.targets_alive = -1;
	h.cumulative = 1;
	ap_top__header(&h, buf, sizeof(buf));
	/* the kernel-summed kinds count calls */
	ck_assert_ptr_nonnull(strstr(buf, "syscall: 1998 calls/s"));
	ck_assert_ptr_nonnull(strstr(buf, "targets: system-wide  cumulative"));
	h.event = "io";
	ap_top__header(&h, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "io: 1998 calls/s"));
	h.event = "lock";
	ap_top__header(&h, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "lock: 1998 events/s"));
	h.targets = "pid 1,2";
	h.targets_alive = 0;
	ap_top__header(&h, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "targets: pid 1,2 (exited)"));
}
END_TEST

/* between refreshes a live session takes new stacks and names all the
 * time: a stack resolved once stays resolved until its process's mappings
 * or the symbols change (it was resolved again at every refresh) */
START_TEST(test_resolved_once_while_live)
{
	struct fixture fx;
	struct ap_strtab *strs = ap_strtab__new();
	struct ap_stackres r;
	struct ap_addrspace *as;
	struct ap_comm c = { .ts = 200, .pid = 10, .tid = 12 };
	struct ap_ksym k = { .addr = 0xffffffff81002000ull, .size = 0x10 };
	struct ap_mmap *m = calloc(1, sizeof(*m));
	uint64_t ips[] = { 0x400200 };
	struct ap_stack st = { .id = 4, .nr_user = 1, .ips = ips };
	uint64_t ips5[] = { 0xffffffff81001010ull };
	struct ap_stack st5 = { .id = 5, .nr_kernel = 1, .ips = ips5 };
	uint64_t fmt;

	setup_fixture(&fx);
	ck_assert_ptr_nonnull(strs);
	ck_assert_ptr_nonnull(m);
	ap_stackres__init(&r, strs);
	as = ap_session__addrspace(fx.s, 10, 150);
	ck_assert_ptr_nonnull(as);
	ck_assert_int_eq(ap_stackres__resolve(&r, fx.s, as, 2, 0), 1);
	ck_assert_int_eq(ap_stackres__resolve(&r, fx.s, as, 1, 0), 2);
	ck_assert_int_eq(ap_stackres__resolve(&r, fx.s, as, 2, 0), 1);
	ck_assert_uint_eq(r.resolved, 2);

	/* a new stack and a new thread name: nothing to do again */
	strcpy(c.comm, "helper");
	ap_comm__encode(&c, &fx.b);
	ap_stack__encode(&st, &fx.b);
	ck_assert_int_eq(ap_top__sink(fx.t, fx.b.data, fx.b.len), 0);
	ap_buf__reset(&fx.b);
	ck_assert_int_eq(ap_stackres__resolve(&r, fx.s, as, 2, 0), 1);
	ck_assert_int_eq(ap_stackres__resolve(&r, fx.s, as, 1, 0), 2);
	ck_assert_uint_eq(r.resolved, 2);

	/* a mapping of the process: its stacks again */
	m->pid = 10;
	m->ts = 200;
	m->start = 0x600000;
	m->end = 0x601000;
	m->prot = 5;
	strcpy(m->path, "/nonexistent/libbar.so");
	ap_mmap__encode(m, &fx.b);
	ck_assert_int_eq(ap_top__sink(fx.t, fx.b.data, fx.b.len), 0);
	ap_buf__reset(&fx.b);
	as = ap_session__addrspace(fx.s, 10, 250);
	ck_assert_int_eq(ap_stackres__resolve(&r, fx.s, as, 2, 0), 1);
	ck_assert_uint_eq(r.resolved, 3);

	/* a kernel symbol: every stack may change */
	strcpy(k.name, "new_ksym");
	ap_ksym__encode(&k, &fx.b);
	ck_assert_int_eq(ap_top__sink(fx.t, fx.b.data, fx.b.len), 0);
	ap_buf__reset(&fx.b);
	ck_assert_int_eq(ap_stackres__resolve(&r, fx.s, as, 1, 0), 2);
	ck_assert_uint_eq(r.resolved, 4);

	/* another stack through an address already named: its frames
	 * are copied, not formatted again, with their own address */
	fmt = r.formatted;
	ap_stack__encode(&st5, &fx.b);
	ck_assert_int_eq(ap_top__sink(fx.t, fx.b.data, fx.b.len), 0);
	ap_buf__reset(&fx.b);
	ck_assert_int_eq(ap_stackres__resolve(&r, fx.s, as, 5, 0), 1);
	ck_assert_uint_eq(r.formatted, fmt);
	ck_assert_str_eq(r.frames[0].sym, "schedule");
	ck_assert_uint_eq(r.frames[0].addr, 0xffffffff81001010ull);
	ck_assert_uint_eq(r.frames[0].symoff, 0x10);
	ck_assert_int_eq(r.frames[0].kernel, 1);

	/* a symbol that now names it: made again */
	k.addr = 0xffffffff81001008ull;
	k.size = 0x100;
	strcpy(k.name, "closer_ksym");
	ap_ksym__encode(&k, &fx.b);
	ck_assert_int_eq(ap_top__sink(fx.t, fx.b.data, fx.b.len), 0);
	ap_buf__reset(&fx.b);
	ck_assert_int_eq(ap_stackres__resolve(&r, fx.s, as, 5, 0), 1);
	ck_assert_str_eq(r.frames[0].sym, "closer_ksym");
	ck_assert_uint_eq(r.frames[0].symoff, 0x8);
	ck_assert_uint_eq(r.formatted, fmt + 1);

	free(m);
	ap_stackres__free(&r);
	ap_strtab__free(strs);
	teardown_fixture(&fx);
}
END_TEST

static Suite *top_live_suite(void)
{
	Suite *s = suite_create("top_live");
	TCase *tc;

	tc = tcase_create("sink");
	tcase_add_test(tc, test_sink_render);
	tcase_add_test(tc, test_orders_and_filter);
	tcase_add_test(tc, test_decay_pause_rate);
	tcase_add_test(tc, test_bad_frames);
	tcase_add_test(tc, test_resolved_once_while_live);
	suite_add_tcase(s, tc);
	tc = tcase_create("layout");
	tcase_add_test(tc, test_layout);
	suite_add_tcase(s, tc);
	tc = tcase_create("header");
	tcase_add_test(tc, test_header);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(top_live_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
