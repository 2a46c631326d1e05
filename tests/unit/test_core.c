// SPDX-License-Identifier: GPL-2.0
/*
 * The small containers every module leans on (hmap, stacktab, strtab),
 * /proc/PID/maps parsing, event list parsing, and the option parsers
 * lib/ keeps for the commands: numbers in a range, perf -m's ring sizes,
 * --time's seconds (util/num.c), record's CPU and thread lists
 * (record/targets.c) with the messages a usage error prints.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "aperture.h"
#include "record/collector.h"
#include "record/targets.h"
#include "util/hmap.h"
#include "record/procfs.h"
#include "format/stacktab.h"
#include "util/num.h"
#include "util/strtab.h"

START_TEST(test_hmap_upsert_find_remove)
{
	struct ap_hmap m;
	uint64_t k, v, *p;
	size_t it = 0, seen = 0;
	int fresh;

	ap_hmap__init(&m);
	for (k = 0; k < 10000; k++) {
		p = ap_hmap__upsert(&m, k * 7919, &fresh);
		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(fresh, 1);
		*p = k;
	}
	ck_assert_uint_eq(m.nr, 10000);
	for (k = 0; k < 10000; k += 2)
		ck_assert_int_eq(ap_hmap__remove(&m, k * 7919), 0);
	ck_assert_int_eq(ap_hmap__remove(&m, 2 * 7919), -ENOENT);
	for (k = 0; k < 10000; k++) {
		p = ap_hmap__find(&m, k * 7919);
		if (k % 2 == 0) {
			ck_assert_ptr_null(p);
		} else {
			ck_assert_ptr_nonnull(p);
			ck_assert_uint_eq(*p, k);
		}
	}
	while (ap_hmap__next(&m, &it, &k, &v)) {
		ck_assert_uint_eq(k, v * 7919);
		seen++;
	}
	ck_assert_uint_eq(seen, 5000);
	p = ap_hmap__upsert(&m, 1 * 7919, &fresh);
	ck_assert_int_eq(fresh, 0);
	ck_assert_uint_eq(*p, 1);
	ap_hmap__free(&m);
}
END_TEST

START_TEST(test_stacktab_intern_dedups)
{
	struct ap_stacktab *t = ap_stacktab__new();
	uint64_t k1[] = { 0xffffffff81000010ull, 0xffffffff81000020ull };
	uint64_t u1[] = { 0x401000, 0x401100, 0x401200 };
	uint64_t u2[] = { 0x401000, 0x401100 };
	struct ap_stack s;
	uint32_t a, b, c, d;
	int fresh;

	a = ap_stacktab__intern(t, k1, 2, u1, 3, &fresh);
	ck_assert_uint_eq(a, 1);
	ck_assert_int_eq(fresh, 1);
	b = ap_stacktab__intern(t, k1, 2, u1, 3, &fresh);
	ck_assert_uint_eq(b, a);
	ck_assert_int_eq(fresh, 0);
	/* same ips, split differently between kernel and user: different */
	c = ap_stacktab__intern(t, k1, 1, u1, 3, &fresh);
	ck_assert_uint_ne(c, a);
	d = ap_stacktab__intern(t, NULL, 0, u2, 2, &fresh);
	ck_assert_uint_eq(d, 3);
	ck_assert_uint_eq(ap_stacktab__count(t), 3);
	ck_assert_int_eq(ap_stacktab__get(t, a, &s), 0);
	ck_assert_uint_eq(s.nr_kernel, 2);
	ck_assert_uint_eq(s.nr_user, 3);
	ck_assert_uint_eq(s.ips[0], k1[0]);
	ck_assert_uint_eq(s.ips[4], u1[2]);
	ck_assert_int_eq(ap_stacktab__get(t, 99, &s), -ENOENT);
	ap_stacktab__free(t);
}
END_TEST

START_TEST(test_stacktab_put_keeps_file_ids)
{
	struct ap_stacktab *t = ap_stacktab__new();
	uint64_t ips[] = { 1, 2, 3 };
	struct ap_stack in = { .id = 1000, .nr_kernel = 1, .nr_user = 2, .ips = ips };
	struct ap_stack out;

	ck_assert_int_eq(ap_stacktab__put(t, &in), 0);
	in.id = 7;
	ck_assert_int_eq(ap_stacktab__put(t, &in), 0);
	ck_assert_int_eq(ap_stacktab__get(t, 1000, &out), 0);
	ck_assert_uint_eq(out.id, 1000);
	ck_assert_uint_eq(out.nr_user, 2);
	ck_assert_uint_eq(out.ips[2], 3);
	ck_assert_int_eq(ap_stacktab__get(t, 7, &out), 0);
	ck_assert_int_eq(ap_stacktab__get(t, 1, &out), -ENOENT);
	in.id = 0;
	ck_assert_int_eq(ap_stacktab__put(t, &in), -EINVAL);
	ap_stacktab__free(t);
}
END_TEST

START_TEST(test_strtab_intern)
{
	struct ap_strtab *t = ap_strtab__new();
	const char *a = ap_strtab__intern(t, "burn_60", -1);
	const char *b = ap_strtab__intern(t, "burn_60xyz", 7);
	const char *c = ap_strtab__intern(t, "burn_30", -1);

	ck_assert_ptr_eq(a, b);
	ck_assert_ptr_ne(a, c);
	ck_assert_str_eq(b, "burn_60");
	ck_assert_uint_eq(ap_strtab__count(t), 2);
	ap_strtab__free(t);
}
END_TEST

static const struct {
	const char *line;
	int ok;
	unsigned long long start, end, pgoff;
	int prot;
	const char *path;
} maps_lines[] = {
	{ "55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 1234   /usr/bin/x y\n",
	  1, 0x55d0c0a00000ull, 0x55d0c0a21000ull, 0x2000, PROT_READ | PROT_EXEC,
	  "/usr/bin/x y" },
	{ "7ffd1000-7ffd2000 rw-p 00000000 00:00 0                  [stack]\n",
	  1, 0x7ffd1000, 0x7ffd2000, 0, PROT_READ | PROT_WRITE, "[stack]" },
	{ "7f0000000000-7f0000001000 ---p 00000000 00:00 0 \n",
	  1, 0x7f0000000000ull, 0x7f0000001000ull, 0, 0, "" },
	{ "garbage\n", 0, 0, 0, 0, 0, NULL },
};

START_TEST(test_parse_maps_line)
{
	struct ap_mmap *m = calloc(1, sizeof(*m));
	int err = ap_parse_maps_line(maps_lines[_i].line, m);

	if (!maps_lines[_i].ok) {
		ck_assert_int_eq(err, -EINVAL);
		free(m);
		return;
	}
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(m->start, maps_lines[_i].start);
	ck_assert_uint_eq(m->end, maps_lines[_i].end);
	ck_assert_uint_eq(m->pgoff, maps_lines[_i].pgoff);
	ck_assert_int_eq(m->prot, maps_lines[_i].prot);
	ck_assert_str_eq(m->path, maps_lines[_i].path);
	free(m);
}
END_TEST

START_TEST(test_proc_stat_self)
{
	uint64_t start = 0;
	pid_t ppid = 0;
	char comm[16];

	ck_assert_int_eq(ap_proc_stat(getpid(), &start, &ppid, comm,
				      sizeof(comm)), 0);
	ck_assert_int_eq(ppid, getppid());
	ck_assert_uint_gt(start, 0);
	ck_assert_int_eq(ap_proc_alive(getpid()), 1);
	ck_assert_int_eq(ap_proc_stat(999999999, NULL, NULL, NULL, 0), -ESRCH);
	ck_assert_int_eq(ap_proc_alive(999999999), 0);
}
END_TEST

/* one file mapped 2,000 times: its build-id is read once, for every
 * mapping and every scan (a process with 20,000 executable mappings made
 * the recorder read them all again on each rescan) */
#define MANY_MAPS	2000

struct many {
	const char *path;
	int n, with_id;
};

static int count_many(void *ctx, const struct ap_mmap *m)
{
	struct many *mc = ctx;

	if (strcmp(m->path, mc->path))
		return 0;
	mc->n++;
	mc->with_id += m->build_id_len > 0;
	return 0;
}

START_TEST(test_proc_maps_build_id_once)
{
	const char *build = getenv("APERTURE_TEST_BUILD");
	char src[4096], path[] = "/tmp/aperture-maps-XXXXXX", cmd[8400];
	static void *maps[MANY_MAPS];
	struct many mc;
	uint64_t before, noise;
	int fd, i;

	snprintf(src, sizeof(src), "%s/tests/workloads/cpu_split",
		 build ? build : "build");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, path);
	ck_assert_int_eq(system(cmd), 0);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	/* what this process maps already: read now, not counted; what a
	 * scan reads again all the same (files whose cache slots collide,
	 * paths that stat cannot reach: more of them under the sanitizers)
	 * is measured by a second scan */
	mc = (struct many){ path, 0, 0 };
	ck_assert_int_eq(ap_proc_maps(getpid(), 1, count_many, &mc), 0);
	before = ap_proc_build_id_reads();
	ck_assert_int_eq(ap_proc_maps(getpid(), 1, count_many, &mc), 0);
	noise = ap_proc_build_id_reads() - before;
	for (i = 0; i < MANY_MAPS; i++) {
		maps[i] = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
			       fd, 0);
		ck_assert(maps[i] != MAP_FAILED);
	}
	before = ap_proc_build_id_reads();
	mc = (struct many){ path, 0, 0 };
	ck_assert_int_eq(ap_proc_maps(getpid(), 1, count_many, &mc), 0);
	ck_assert_int_eq(mc.n, MANY_MAPS);
	ck_assert_int_eq(mc.with_id, MANY_MAPS);
	ck_assert_uint_eq(ap_proc_build_id_reads() - before, 1 + noise);
	/* a second scan does not read the file again */
	before = ap_proc_build_id_reads();
	mc = (struct many){ path, 0, 0 };
	ck_assert_int_eq(ap_proc_maps(getpid(), 1, count_many, &mc), 0);
	ck_assert_int_eq(mc.with_id, MANY_MAPS);
	ck_assert_uint_eq(ap_proc_build_id_reads() - before, noise);
	for (i = 0; i < MANY_MAPS; i++)
		munmap(maps[i], 4096);
	close(fd);
	unlink(path);
}
END_TEST

START_TEST(test_events_parse)
{
	struct ap_collect_opts o = { 0 };
	uint32_t mask;
	char bad[64];

	ck_assert_int_eq(ap_events__parse("cpu", &mask, &o, bad, sizeof(bad)), 0);
	ck_assert_uint_eq(mask, AP_EVMASK(AP_TAG_CPU));
	ck_assert_int_eq(ap_events__parse("cpu,bogus", &mask, &o, bad,
					  sizeof(bad)), -EINVAL);
	ck_assert_str_eq(bad, "bogus");
	ck_assert_int_eq(ap_events__parse("", &mask, &o, bad, sizeof(bad)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(ap_events__valid(), "cpu"));
}
END_TEST

/* perf's CPU sampling events drive the cpu sensor, one per recording */
START_TEST(test_events_parse_perf_names)
{
	struct ap_collect_opts o = { 0 };
	uint32_t mask;
	char bad[64];

	ck_assert_int_eq(ap_events__parse("page-faults:u,syscall", &mask, &o,
					  bad, sizeof(bad)), 0);
	ck_assert_uint_eq(mask, AP_EVMASK(AP_TAG_CPU) |
				AP_EVMASK(AP_TAG_SYSCALL));
	ck_assert_str_eq(ap_cpu_events[o.cpu_event - 1].name, "page-faults");
	ck_assert_int_eq(o.cpu_exclude_kernel, 1);
	ck_assert_int_eq(o.cpu_exclude_user, 0);
	/* the same again adds up; another one is refused */
	ck_assert_int_eq(ap_events__parse("faults:u", &mask, &o, bad,
					  sizeof(bad)), 0);
	ck_assert_int_eq(ap_events__parse("cs", &mask, &o, bad, sizeof(bad)),
			 -EEXIST);
	ck_assert_str_eq(bad, "cs");

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(ap_events__parse("cpu-cycles:k", &mask, &o, bad,
					  sizeof(bad)), 0);
	ck_assert_str_eq(ap_cpu_events[o.cpu_event - 1].name, "cycles");
	ck_assert_int_eq(o.cpu_exclude_user, 1);
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(ap_events__parse("cpu:uk", &mask, &o, bad,
					  sizeof(bad)), 0);
	ck_assert_int_eq(o.cpu_event, 0);
	ck_assert_int_eq(o.cpu_exclude_user + o.cpu_exclude_kernel, 0);
	/* plain cpu names nothing: the default event */
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(ap_events__parse("cpu,instructions", &mask, &o, bad,
					  sizeof(bad)), 0);
	ck_assert_str_eq(ap_cpu_events[o.cpu_event - 1].name, "instructions");
	ck_assert_int_eq(ap_events__parse("cycles:x", &mask, &o, bad,
					  sizeof(bad)), -EINVAL);
	ck_assert_int_eq(ap_events__parse("cycles:", &mask, &o, bad,
					  sizeof(bad)), -EINVAL);
	ck_assert_int_eq(ap_events__parse("syscall:u", &mask, &o, bad,
					  sizeof(bad)), -EINVAL);
}
END_TEST

START_TEST(test_u64_range)
{
	unsigned long long v = 7;

	ck_assert_int_eq(ap_parse_u64("42", 1, 100, &v), 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(ap_parse_u64("0", 1, 100, &v), -EINVAL);
	ck_assert_int_eq(ap_parse_u64("101", 1, 100, &v), -EINVAL);
	ck_assert_int_eq(ap_parse_u64("-1", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(ap_parse_u64("12x", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(ap_parse_u64("", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(ap_parse_u64(NULL, 0, 100, &v), -EINVAL);
	ck_assert_int_eq(ap_parse_u64("99999999999999999999", 0, ~0ull, &v),
			 -EINVAL);
	ck_assert_uint_eq(v, 42);
}
END_TEST

START_TEST(test_pow2_sizes)
{
	static const char *const bad[] = {
		"8", "2G", "3M", "4MB", "-4M", "M",
	};
	uint64_t b = 0;
	size_t i;

	/* pages, as perf -m 16 */
	ck_assert_int_eq(ap_parse_pow2_size("16", 4096, 65536, 1 << 30, &b), 0);
	ck_assert_uint_eq(b, 65536);
	ck_assert_int_eq(ap_parse_pow2_size("4M", 4096, 65536, 1 << 30, &b), 0);
	ck_assert_uint_eq(b, 4 << 20);
	ck_assert_int_eq(ap_parse_pow2_size("1g", 4096, 65536, 1 << 30, &b), 0);
	ck_assert_uint_eq(b, 1 << 30);
	ck_assert_int_eq(ap_parse_pow2_size("65536B", 4096, 65536, 1 << 30,
					    &b), 0);
	/* too small, too big, not a power of two, junk */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(ap_parse_pow2_size(bad[i], 4096, 65536,
						    1 << 30, &b), -EINVAL);
}
END_TEST

START_TEST(test_sizes)
{
	static const char *const bad[] = {
		"", "M", "-1", "4MB", "1P", "2G", "18446744073709551616",
	};
	uint64_t b = 0;
	size_t i;

	ck_assert_int_eq(ap_parse_size("4096", 0, 1ull << 30, &b), 0);
	ck_assert_uint_eq(b, 4096);
	ck_assert_int_eq(ap_parse_size("256m", 0, 1ull << 30, &b), 0);
	ck_assert_uint_eq(b, 256ull << 20);
	ck_assert_int_eq(ap_parse_size("1G", 0, 1ull << 30, &b), 0);
	ck_assert_uint_eq(b, 1ull << 30);
	ck_assert_int_eq(ap_parse_size("3T", 0, 1ull << 60, &b), 0);
	ck_assert_uint_eq(b, 3ull << 40);
	/* junk, past max, and a shift that would wrap */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(ap_parse_size(bad[i], 0, 1ull << 30, &b),
				 -EINVAL);
	ck_assert_int_eq(ap_parse_size("17179869184T", 0, UINT64_MAX, &b),
			 -EINVAL);
	/* below min */
	ck_assert_int_eq(ap_parse_size("0", 1, UINT64_MAX, &b), -EINVAL);
	ck_assert_int_eq(ap_parse_size("1K", 1025, UINT64_MAX, &b), -EINVAL);
}
END_TEST

START_TEST(test_seconds)
{
	uint64_t ns = 0;

	ck_assert_int_eq(ap_parse_secs_ns("1.5", 3, &ns), 0);
	ck_assert_uint_eq(ns, 1500000000ull);
	ck_assert_int_eq(ap_parse_secs_ns("2", 1, &ns), 0);
	ck_assert_uint_eq(ns, 2000000000ull);
	/* past nanoseconds: cut */
	ck_assert_int_eq(ap_parse_secs_ns("0.0000000019", 12, &ns), 0);
	ck_assert_uint_eq(ns, 1);
	/* len bytes only: "3,4" as --time gives it */
	ck_assert_int_eq(ap_parse_secs_ns("3,4", 1, &ns), 0);
	ck_assert_uint_eq(ns, 3000000000ull);
	ck_assert_int_eq(ap_parse_secs_ns(".", 1, &ns), -EINVAL);
	ck_assert_int_eq(ap_parse_secs_ns("1x", 2, &ns), -EINVAL);
	ck_assert_int_eq(ap_parse_secs_ns("", 0, &ns), -EINVAL);
	ck_assert_int_eq(ap_parse_secs_ns("99999999999", 11, &ns), -ERANGE);
}
END_TEST

/* a hostile file's sums: never a float-to-int conversion out of range */
START_TEST(test_weights_saturate)
{
	ck_assert_int_eq(ap_weight(2.5), 3);
	ck_assert_int_eq(ap_weight(-1e30), 0);
	ck_assert_int_eq(ap_weight(0.0 / 0.0), 0);
	ck_assert_int_eq(ap_weight(1e300), (int64_t)AP_WEIGHT_MAX);
	ck_assert_int_eq(ap_weight(18446744073709551615.0),
			 (int64_t)AP_WEIGHT_MAX);
	ck_assert_uint_eq(ap_add_sat(UINT64_MAX - 1, 2), UINT64_MAX);
	ck_assert_uint_eq(ap_add_sat(1, 2), 3);
}
END_TEST

START_TEST(test_cpu_lists)
{
	uint64_t mask[AP_MAX_CPUS / 64];
	char err[256];

	memset(mask, 0, sizeof(mask));
	/* CPU 0 exists everywhere */
	ck_assert_int_eq(ap_targets__parse_cpus("0", mask, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(mask[0], 1);
	ck_assert_int_eq(ap_targets__parse_cpus("0-0,0", mask, err,
						sizeof(err)), 0);
	ck_assert_uint_eq(mask[0], 1);
	ck_assert_int_eq(ap_targets__parse_cpus("x", mask, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err,
			 "bad CPU list 'x': give CPUs and ranges, as 0,2-3");
	ck_assert_int_eq(ap_targets__parse_cpus("1-0", mask, err,
						sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "this machine has CPUs 0 to"));
	ck_assert_int_eq(ap_targets__parse_cpus("4096", mask, err,
						sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(test_thread_lists)
{
	uint32_t tids[4];
	pid_t pids[1];
	int nt = 0, np = 0;
	char err[256];

	ck_assert_int_eq(ap_targets__parse_tids("0", tids, &nt, pids, &np, 1,
						err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "invalid thread id '0'");
	/* pid_max is at most 2^22: no such thread */
	ck_assert_int_eq(ap_targets__parse_tids("2147483647", tids, &nt,
						pids, &np, 1, err,
						sizeof(err)), -ESRCH);
	ck_assert_str_eq(err, "no such thread: 2147483647");
	ck_assert_int_eq(nt, 0);
}
END_TEST

static Suite *core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc;

	tc = tcase_create("hmap");
	tcase_add_test(tc, test_hmap_upsert_find_remove);
	suite_add_tcase(s, tc);
	tc = tcase_create("stacktab");
	tcase_add_test(tc, test_stacktab_intern_dedups);
	tcase_add_test(tc, test_stacktab_put_keeps_file_ids);
	suite_add_tcase(s, tc);
	tc = tcase_create("strtab");
	tcase_add_test(tc, test_strtab_intern);
	suite_add_tcase(s, tc);
	tc = tcase_create("procfs");
	tcase_add_loop_test(tc, test_parse_maps_line, 0,
			    sizeof(maps_lines) / sizeof(maps_lines[0]));
	tcase_add_test(tc, test_proc_stat_self);
	tcase_add_test(tc, test_proc_maps_build_id_once);
	suite_add_tcase(s, tc);
	tc = tcase_create("events");
	tcase_add_test(tc, test_events_parse);
	tcase_add_test(tc, test_events_parse_perf_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("options");
	tcase_add_test(tc, test_u64_range);
	tcase_add_test(tc, test_pow2_sizes);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_seconds);
	tcase_add_test(tc, test_weights_saturate);
	tcase_add_test(tc, test_cpu_lists);
	tcase_add_test(tc, test_thread_lists);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(core_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
