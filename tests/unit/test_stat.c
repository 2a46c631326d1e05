// SPDX-License-Identifier: GPL-2.0
/*
 * aperture stat's output: thousands separators, perf stat's aligned line
 * (the lines expected are perf 6.1's, byte for byte), the CSV fields in
 * perf's order, the spread over runs (the standard error of the mean),
 * the metrics of a block of counters, the header and the times; and -e's
 * names, modifiers and unknown ones; the lines of the kernel's sums (io,
 * sched, lock), their metrics and an interval's differences.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "stat/counters.h"
#include "stat/ksums.h"
#include "stat/print.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	double v;
	int decimals;
	const char *want;
} groups[] = {
	{ 0, 0, "0" },
	{ 999, 0, "999" },
	{ 1000, 0, "1,000" },
	{ 58422, 0, "58,422" },
	{ 1234567, 0, "1,234,567" },
	{ 1003.214, 2, "1,003.21" },
	{ 999999.999, 2, "1,000,000.00" },
	{ 0.5, 2, "0.50" },
	{ -1234.5, 1, "-1,234.5" },
	{ 12345678901234.0, 0, "12,345,678,901,234" },
};

START_TEST(test_group)
{
	char buf[64];

	ap_stat_group(buf, sizeof(buf), groups[_i].v, groups[_i].decimals);
	ck_assert_str_eq(buf, groups[_i].want);
}
END_TEST

/* what f printed, NUL-terminated, in buf */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static void mem_open(struct mem *m, struct ap_stat_fmt *fmt)
{
	memset(m, 0, sizeof(*m));
	m->f = open_memstream(&m->buf, &m->len);
	ck_assert_ptr_nonnull(m->f);
	fmt->out = m->f;
}

static const char *mem_text(struct mem *m)
{
	fflush(m->f);
	return m->buf;
}

static void mem_close(struct mem *m)
{
	fclose(m->f);
	free(m->buf);
}

START_TEST(test_line_aligned)
{
	struct ap_stat_fmt f = { 0 };
	struct ap_stat_line clock = {
		.name = "task-clock", .unit = "msec", .value = 1080000,
		.ena = 1080000, .run = 1080000, .metric_fmt = "%8.3f",
		.metric = 0.021, .metric_unit = "CPUs utilized",
	};
	struct ap_stat_line cs = {
		.name = "context-switches", .value = 1, .ena = 5, .run = 5,
		.metric_fmt = "%8.3f", .metric = 925.654,
		.metric_unit = "/sec",
	};
	struct ap_stat_line bare = {
		.name = "page-faults", .value = 50, .ena = 5, .run = 5,
	};
	struct ap_stat_line cycles = {
		.name = "cycles", .state = AP_STAT_NOT_SUPPORTED,
	};
	struct mem m;

	mem_open(&m, &f);
	ap_stat_print_line(&f, &clock);
	ap_stat_print_line(&f, &cs);
	ap_stat_print_line(&f, &bare);
	ap_stat_print_line(&f, &cycles);
	ck_assert_str_eq(mem_text(&m),
		"              1.08 msec task-clock                       #    0.021 CPUs utilized          \n"
		"                 1      context-switches                 #  925.654 /sec                   \n"
		"                50      page-faults                                                        \n"
		"   <not supported>      cycles                                                      \n");
	mem_close(&m);
}
END_TEST

START_TEST(test_line_spread)
{
	struct ap_stat_fmt f = { .runs = 2 };
	struct ap_stat_line clock = {
		.name = "task-clock", .unit = "msec", .value = 1090000,
		.ena = 7, .run = 7, .noise_pct = 2.62, .metric_fmt = "%8.3f",
		.metric = 0.020, .metric_unit = "CPUs utilized",
	};
	struct ap_stat_line big = {
		.name = "page-faults", .value = 1234567, .ena = 7, .run = 7,
		.noise_pct = 0.66, .metric_fmt = "%8.3f", .metric = 71.618,
		.metric_unit = "K/sec",
	};
	struct ap_stat_line mux = {
		.name = "instructions", .value = 2000, .ena = 4, .run = 1,
	};
	struct mem m;

	mem_open(&m, &f);
	ap_stat_print_line(&f, &clock);
	ap_stat_print_line(&f, &big);
	/* no spread shown where there is none; multiplexed: the share run */
	f.runs = 1;
	ap_stat_print_line(&f, &mux);
	ck_assert_str_eq(mem_text(&m),
		"              1.09 msec task-clock                       #    0.020 CPUs utilized            ( +-  2.62% )\n"
		"         1,234,567      page-faults                      #   71.618 K/sec                    ( +-  0.66% )\n"
		"             2,000      instructions                                                         (25.00%)\n");
	mem_close(&m);
}
END_TEST

START_TEST(test_line_csv)
{
	struct ap_stat_fmt f = { .sep = "," };
	struct ap_stat_line clock = {
		.name = "task-clock", .unit = "msec", .value = 1071964,
		.ena = 1071964, .run = 1071964, .metric_fmt = "%8.3f",
		.metric = 0.011, .metric_unit = "CPUs utilized",
	};
	struct ap_stat_line pf = {
		.name = "page-faults", .value = 76543, .ena = 1071964,
		.run = 1071964, .metric_fmt = "%8.3f", .metric = 70.898,
		.metric_unit = "K/sec",
	};
	struct ap_stat_line bare = {
		.name = "page-faults", .value = 49, .ena = 745642,
		.run = 745642,
	};
	struct ap_stat_line cycles = {
		.name = "cycles", .state = AP_STAT_NOT_SUPPORTED,
	};
	struct ap_stat_line pct = {
		.name = "branch-misses", .value = 5, .ena = 10, .run = 10,
		.metric_fmt = "%7.2f%%", .metric = 1.5,
		.metric_unit = "of all branches",
	};
	struct mem m;

	mem_open(&m, &f);
	ap_stat_print_line(&f, &clock);
	ap_stat_print_line(&f, &pf);
	ap_stat_print_line(&f, &bare);
	ap_stat_print_line(&f, &cycles);
	ap_stat_print_line(&f, &pct);
	/* -r: the spread after the event; -I: the time first */
	f.runs = 3;
	f.sep = ";";
	f.prefix = "     0.200075673";
	clock.noise_pct = 4.27;
	ap_stat_print_line(&f, &clock);
	ap_stat_print_line(&f, &cycles);
	ck_assert_str_eq(mem_text(&m),
		"1.07,msec,task-clock,1071964,100.00,0.011,CPUs utilized\n"
		"76543,,page-faults,1071964,100.00,70.898,K/sec\n"
		"49,,page-faults,745642,100.00,,\n"
		"<not supported>,,cycles,0,100.00,,\n"
		"5,,branch-misses,10,100.00,1.50,of all branches\n"
		"     0.200075673;1.07;msec;task-clock;4.27%;1071964;100.00;0.011;CPUs utilized\n"
		"     0.200075673;<not supported>;;cycles;0.00%;0;100.00;;\n");
	mem_close(&m);
}
END_TEST

START_TEST(test_runs)
{
	struct ap_stat_runs r = { 0 };
	static const double v[] = { 10, 12, 14 };
	size_t i;

	ck_assert(ap_stat_runs__stderr(&r) == 0);
	ck_assert(ap_stat_runs__pct(&r) == 0);
	ap_stat_runs__add(&r, v[0]);
	/* one run has no spread */
	ck_assert(ap_stat_runs__stderr(&r) == 0);
	for (i = 1; i < NELEM(v); i++)
		ap_stat_runs__add(&r, v[i]);
	ck_assert_uint_eq(r.n, 3);
	ck_assert_double_eq_tol(r.mean, 12, 1e-12);
	/* sample variance 4, over 3 runs: sqrt(4 / 3) */
	ck_assert_double_eq_tol(ap_stat_runs__stderr(&r), sqrt(4.0 / 3),
				1e-12);
	ck_assert_double_eq_tol(ap_stat_runs__pct(&r),
				100 * sqrt(4.0 / 3) / 12, 1e-12);
}
END_TEST

/* a counter of s, as if read: val over ena == run */
static void fake(struct ap_stat_counters *s, int i, uint64_t val,
		 uint64_t time)
{
	s->c[i].now.val = val;
	s->c[i].now.ena = time;
	s->c[i].now.run = time;
}

START_TEST(test_block)
{
	struct ap_stat_counters s = { 0 };
	struct ap_stat_fmt f = { 0 };
	struct ap_stat_runs wall = { 0 };
	char bad[32];
	struct mem m;

	ck_assert_int_eq(ap_stat_counters__add(&s,
		"task-clock,cs,page-faults,cycles,minor-faults:u", bad,
		sizeof(bad)), 0);
	ck_assert_int_eq(s.nr, 5);
	ck_assert_str_eq(s.c[1].ev->name, "context-switches");
	ck_assert_str_eq(s.c[1].name, "cs");
	ck_assert(s.c[4].excl_kernel && !s.c[4].excl_user);
	fake(&s, 0, 500000000, 500000000);	/* 0.5 s of CPU */
	fake(&s, 1, 12, 500000000);
	fake(&s, 2, 58422, 500000000);
	s.c[3].err = -ENOENT;
	/* enabled, never ran: a thread asleep through an interval */
	s.c[4].now.ena = 10;

	mem_open(&m, &f);
	ap_stat_print_header(&f, "'./prog'");
	ap_stat_print_counters(&f, &s, AP_STAT_TOTAL, 1e9);
	ap_stat_runs__add(&wall, 1.000123456e9);
	ap_stat_print_footer(&f, &wall, 0.25e9, 0.003e9);
	ck_assert_str_eq(mem_text(&m),
		"\n Performance counter stats for './prog':\n\n"
		"            500.00 msec task-clock                       #    0.500 CPUs utilized          \n"
		"                12      cs                               #   24.000 /sec                   \n"
		"            58,422      page-faults                      #  116.844 K/sec                  \n"
		"   <not supported>      cycles                                                      \n"
		"     <not counted>      minor-faults:u                                              \n"
		"\n"
		"       1.000123456 seconds time elapsed\n"
		"\n"
		"       0.250000000 seconds user\n"
		"       0.003000000 seconds sys\n"
		"\n");
	mem_close(&m);

	/* -I: what the interval added, its CPUs over its own length */
	s.c[0].last = s.c[0].now;
	s.c[0].now.val += 100000000;
	s.c[0].now.ena += 100000000;
	s.c[0].now.run += 100000000;
	s.c[1].last = s.c[1].now;
	s.c[2].last = s.c[2].now;
	s.c[2].now.val += 1000;
	s.c[2].now.ena += 100000000;
	s.c[2].now.run += 100000000;
	f.sep = ",";
	f.prefix = "     1.000000000";
	mem_open(&m, &f);
	ap_stat_print_interval_head(&f, 0);
	ap_stat_print_counters(&f, &s, AP_STAT_DELTA, 2e8);
	ck_assert_str_eq(mem_text(&m),
		"     1.000000000,100.00,msec,task-clock,100000000,100.00,0.500,CPUs utilized\n"
		"     1.000000000,<not counted>,,cs,0,100.00,,\n"
		"     1.000000000,1000,,page-faults,100000000,100.00,10.000,K/sec\n"
		"     1.000000000,<not supported>,,cycles,0,100.00,,\n"
		"     1.000000000,<not counted>,,minor-faults:u,0,0.00,,\n");
	mem_close(&m);
	ap_stat_counters__free(&s);
}
END_TEST

START_TEST(test_footer_runs)
{
	struct ap_stat_fmt f = { .runs = 2 };
	struct ap_stat_runs wall = { 0 };
	struct mem m;

	ap_stat_runs__add(&wall, 0.01166e9);
	ap_stat_runs__add(&wall, 0.01570e9);
	mem_open(&m, &f);
	ap_stat_print_header(&f, "'sleep 0.01'");
	ap_stat_print_interval_head(&f, 0);
	ap_stat_print_interval_head(&f, 1);
	ap_stat_print_footer(&f, &wall, -1, 0);
	/* the spread 0.00202 s: two digits past its first */
	ck_assert_str_eq(mem_text(&m),
		"\n Performance counter stats for 'sleep 0.01' (2 runs):\n\n"
		"#           time             counts unit events\n"
		"\n"
		"           0.01368 +- 0.00202 seconds time elapsed  ( +- 14.77% )\n"
		"\n");
	mem_close(&m);
}
END_TEST

START_TEST(test_parse)
{
	struct ap_stat_counters s = { 0 };
	char bad[32] = "", names[512];
	int i;

	ck_assert_int_eq(ap_stat_counters__add(&s, "task-clock,bogus", bad,
					       sizeof(bad)), -EINVAL);
	ck_assert_str_eq(bad, "bogus");
	ck_assert_int_eq(ap_stat_counters__add(&s, "cycles:x", bad,
					       sizeof(bad)), -EINVAL);
	ck_assert_int_eq(ap_stat_counters__add(&s, "cycles:", bad,
					       sizeof(bad)), -EINVAL);
	ck_assert_int_eq(ap_stat_counters__add(&s, ",", bad, sizeof(bad)),
			 -EINVAL);
	ap_stat_counters__free(&s);
	ck_assert_int_eq(ap_stat_counters__add(&s, "cycles:k", bad,
					       sizeof(bad)), 0);
	ck_assert(s.c[0].excl_user && !s.c[0].excl_kernel);
	ap_stat_counters__free(&s);
	/* perf's default set; cpu-clock system-wide */
	ck_assert_int_eq(ap_stat_counters__add_defaults(&s, 1), 0);
	ck_assert_int_eq(s.nr, 8);
	ck_assert_str_eq(s.c[0].name, "cpu-clock");
	ck_assert_str_eq(s.c[3].name, "page-faults");
	for (i = 0; i < s.nr; i++)
		ck_assert_int_eq(s.c[i].optional, i >= 4);
	ap_stat_counters__free(&s);
	ap_stat_counters__valid(names, sizeof(names));
	ck_assert(!strncmp(names, "task-clock, cpu-clock, ", 23));
}
END_TEST

START_TEST(test_ks_add)
{
	struct ap_stat_ksums k = { 0 };

	ck_assert_int_eq(ap_stat_ksums__add(&k, "io"), 1);
	ck_assert_int_eq(ap_stat_ksums__add(&k, "lock"), 1);
	ck_assert_int_eq(ap_stat_ksums__add(&k, "sched"), 1);
	ck_assert_int_eq(ap_stat_ksums__add(&k, "syscall"), 1);
	ck_assert_int_eq(ap_stat_ksums__add(&k, "io:calls"), 0);
	ck_assert_int_eq(ap_stat_ksums__add(&k, "task-clock"), 0);
	ck_assert_int_eq(k.events, AP_EVMASK(AP_TAG_IO) |
			 AP_EVMASK(AP_TAG_LOCK) | AP_EVMASK(AP_TAG_SCHED) |
			 AP_EVMASK(AP_TAG_SYSCALL));
}
END_TEST

/* the lines of the events asked for only, in their order; times in
 * msec; the metrics per call, per wait, CPUs; -r's spreads */
START_TEST(test_ks_lines)
{
	struct ap_stat_fmt f = { .runs = 3 };
	double v[AP_STAT_KS_NR] = { 0 }, pct[AP_STAT_KS_NR] = { 0 };
	struct mem m;

	v[AP_STAT_KS_IO_RCALLS] = 1000;
	v[AP_STAT_KS_IO_RBYTES] = 4096000;
	v[AP_STAT_KS_IO_RNS] = 2500000;
	v[AP_STAT_KS_IO_RERRS] = 3;
	v[AP_STAT_KS_IO_WCALLS] = 10;
	v[AP_STAT_KS_IO_WBYTES] = 61;
	v[AP_STAT_KS_SCHED_ON] = 500000000;
	v[AP_STAT_KS_LOCK_WAITS] = 4;
	v[AP_STAT_KS_LOCK_NS] = 2000000;
	pct[AP_STAT_KS_IO_RNS] = 1.5;
	mem_open(&m, &f);
	ap_stat_ks__print_lines(&f, AP_EVMASK(AP_TAG_IO), v, pct, 1e9);
	ck_assert_str_eq(mem_text(&m),
		"             1,000      io:read-calls                                                      \n"
		"         4,096,000      io:read-bytes                    #     4096 bytes per call         \n"
		"              2.50 msec io:read-time                     #    2.500 us per call              ( +-  1.50% )\n"
		"                 3      io:read-errors                                                     \n"
		"                10      io:write-calls                                                     \n"
		"                61      io:write-bytes                   #        6 bytes per call         \n"
		"              0.00 msec io:write-time                    #    0.000 us per call            \n"
		"                 0      io:write-errors                                                    \n");
	mem_close(&m);
	f.sep = ",";
	f.runs = 1;
	mem_open(&m, &f);
	ap_stat_ks__print_lines(&f, AP_EVMASK(AP_TAG_SCHED) |
				AP_EVMASK(AP_TAG_LOCK), v, NULL, 1e9);
	ck_assert_str_eq(mem_text(&m),
		"0,,sched:voluntary-switches,1000000000,100.00,,\n"
		"0,,sched:involuntary-switches,1000000000,100.00,,\n"
		"500.00,msec,sched:on-cpu,1000000000,100.00,0.500,CPUs utilized\n"
		"0.00,msec,sched:off-cpu-blocked,1000000000,100.00,,\n"
		"0.00,msec,sched:off-cpu-runnable,1000000000,100.00,,\n"
		"0,,sched:wakeups,1000000000,100.00,,\n"
		"0.00,msec,sched:wakeup-latency,1000000000,100.00,0.000,us per wakeup\n"
		"0,,sched:migrations,1000000000,100.00,,\n"
		"4,,lock:waits,1000000000,100.00,,\n"
		"0,,lock:futex-waits,1000000000,100.00,,\n"
		"0,,lock:kernel-waits,1000000000,100.00,,\n"
		"0,,lock:wait-errors,1000000000,100.00,,\n"
		"2.00,msec,lock:wait-time,1000000000,100.00,500.000,us per wait\n"
		"0.00,msec,lock:wait-max,1000000000,100.00,,\n");
	mem_close(&m);
}
END_TEST

/* a run's values from the totals taken in; an interval's are the
 * differences, but for the maximum wait, which is not a sum */
START_TEST(test_ks_values)
{
	struct ap_stat_ksums k = { .events = AP_EVMASK(AP_TAG_LOCK) };
	struct ap_stat_fmt f = { .sep = ";" };
	double v[AP_STAT_KS_NR];
	struct mem m;

	k.io[AP_STAT_KS_IO_WCALLS] = 7;
	k.lock[1].waits = 5;		/* AP_EVLOCK_FUTEX */
	k.lock[1].ns = 5000;
	k.lock[1].max = 3000;
	k.lock[1].errors = 2;
	k.lock[2].waits = 1;		/* AP_EVLOCK_KERNEL */
	k.lock[2].ns = 4000;
	k.lock[2].max = 4000;
	ap_stat_ksums__values(&k, v);
	ck_assert(v[AP_STAT_KS_IO_WCALLS] == 7);
	ck_assert(v[AP_STAT_KS_LOCK_WAITS] == 6);
	ck_assert(v[AP_STAT_KS_LOCK_FUTEX] == 5);
	ck_assert(v[AP_STAT_KS_LOCK_KERNEL] == 1);
	ck_assert(v[AP_STAT_KS_LOCK_ERRS] == 2);
	ck_assert(v[AP_STAT_KS_LOCK_NS] == 9000);
	ck_assert(v[AP_STAT_KS_LOCK_MAX] == 4000);
	ck_assert(v[AP_STAT_KS_SCHED_ON] == 0);
	ap_stat_ksums__add_run(&k);
	ck_assert_uint_eq(k.runs[AP_STAT_KS_LOCK_WAITS].n, 1);

	mem_open(&m, &f);
	ap_stat_ksums__print_interval(&f, &k, 1e8);
	k.lock[1].waits = 8;
	k.lock[1].ns = 8000;
	ap_stat_ksums__print_interval(&f, &k, 1e8);
	ck_assert_str_eq(mem_text(&m),
		"6;;lock:waits;100000000;100.00;;\n"
		"5;;lock:futex-waits;100000000;100.00;;\n"
		"1;;lock:kernel-waits;100000000;100.00;;\n"
		"2;;lock:wait-errors;100000000;100.00;;\n"
		"0.01;msec;lock:wait-time;100000000;100.00;1.500;us per wait\n"
		"0.00;msec;lock:wait-max;100000000;100.00;;\n"
		"3;;lock:waits;100000000;100.00;;\n"
		"3;;lock:futex-waits;100000000;100.00;;\n"
		"0;;lock:kernel-waits;100000000;100.00;;\n"
		"0;;lock:wait-errors;100000000;100.00;;\n"
		"0.00;msec;lock:wait-time;100000000;100.00;1.000;us per wait\n"
		"0.00;msec;lock:wait-max;100000000;100.00;;\n");
	mem_close(&m);
	ap_stat_ksums__free(&k);
}
END_TEST

static Suite *stat_suite(void)
{
	Suite *s = suite_create("stat");
	TCase *tc;

	tc = tcase_create("group");
	tcase_add_loop_test(tc, test_group, 0, NELEM(groups));
	suite_add_tcase(s, tc);
	tc = tcase_create("line");
	tcase_add_test(tc, test_line_aligned);
	tcase_add_test(tc, test_line_spread);
	tcase_add_test(tc, test_line_csv);
	suite_add_tcase(s, tc);
	tc = tcase_create("runs");
	tcase_add_test(tc, test_runs);
	tcase_add_test(tc, test_footer_runs);
	suite_add_tcase(s, tc);
	tc = tcase_create("block");
	tcase_add_test(tc, test_block);
	tcase_add_test(tc, test_parse);
	suite_add_tcase(s, tc);
	tc = tcase_create("ksums");
	tcase_add_test(tc, test_ks_add);
	tcase_add_test(tc, test_ks_lines);
	tcase_add_test(tc, test_ks_values);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stat_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
