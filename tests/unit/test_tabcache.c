// SPDX-License-Identifier: GPL-2.0
/*
 * lib/unwind/tabcache.c: an entry kept is read back as it was written,
 * and a file that is not a whole entry of the build-id asked for (cut
 * short, one byte changed, another build-id's, a link) is refused; the
 * cache is walked most recently used first and trimmed to its bound.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unwind/tabcache.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/ap-tabcache.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* an entry of build-id 0xid, 0x01 .. of nr rows */
static struct ap_tabcache_entry *entry(uint8_t id, size_t nr)
{
	struct ap_tabcache_entry *e = calloc(1, sizeof(*e));
	size_t i;

	ck_assert_ptr_nonnull(e);
	e->build_id_len = 20;
	for (i = 0; i < 20; i++)
		e->build_id[i] = (uint8_t)(id + i);
	snprintf(e->path, sizeof(e->path), "/usr/lib/libx%u.so", id);
	e->nloads = 2;
	e->loads[1].vaddr = 0x1000;
	e->loads[1].offset = 0x1000;
	e->loads[1].filesz = 0x5000;
	e->loads[1].exec = 1;
	e->flags = AP_TABCACHE_DEBUG;
	e->bad = 3;
	e->nr = nr;
	e->rows = calloc(nr, sizeof(*e->rows));
	ck_assert_ptr_nonnull(e->rows);
	for (i = 0; i < nr; i++) {
		e->rows[i].pc = (uint32_t)(0x1000 + 4 * i);
		e->rows[i].kind = AP_CFI_RSP;
		e->rows[i].off = (int16_t)(8 + i % 64);
	}
	return e;
}

static void entry_free(struct ap_tabcache_entry *e)
{
	free(e->rows);
	free(e);
}

static void file_of(const struct ap_tabcache_entry *e, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "%s/", dir);
	uint32_t i;

	for (i = 0; i < e->build_id_len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%02x", e->build_id[i]);
	snprintf(buf + o, len - o, ".tab");
}

START_TEST(test_round_trip)
{
	struct ap_tabcache_entry *e = entry(0x10, 1000), *got;

	got = calloc(1, sizeof(*got));
	ck_assert_int_eq(ap_tabcache__save(dir, e), 0);
	ck_assert_int_eq(ap_tabcache__load(dir, e->build_id, 20, got, 1), 0);
	ck_assert_str_eq(got->path, e->path);
	ck_assert_uint_eq(got->nr, 1000);
	ck_assert_uint_eq(got->nloads, 2);
	ck_assert_uint_eq(got->loads[1].vaddr, 0x1000);
	ck_assert_uint_eq(got->loads[1].exec, 1);
	ck_assert_uint_eq(got->flags, AP_TABCACHE_DEBUG);
	ck_assert_uint_eq(got->bad, 3);
	ck_assert_int_eq(memcmp(got->rows, e->rows, 1000 * sizeof(*e->rows)),
			 0);
	free(got->rows);
	/* the header alone */
	ck_assert_int_eq(ap_tabcache__load(dir, e->build_id, 20, got, 0), 0);
	ck_assert_ptr_null(got->rows);
	ck_assert_str_eq(got->path, e->path);
	/* another build-id: none */
	e->build_id[19] ^= 1;
	ck_assert_int_eq(ap_tabcache__load(dir, e->build_id, 20, got, 1),
			 -ENOENT);
	free(got);
	entry_free(e);
}
END_TEST

START_TEST(test_refused)
{
	struct ap_tabcache_entry *e = entry(0x20, 100), *got;
	char path[256], other[256];
	struct stat st;
	int fd;
	char c;

	got = calloc(1, sizeof(*got));
	ck_assert_int_eq(ap_tabcache__save(dir, e), 0);
	file_of(e, path, sizeof(path));
	/* one byte of the rows changed: the CRC says so */
	fd = open(path, O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &c, 1, 400), 1);
	c ^= 0x40;
	ck_assert_int_eq(pwrite(fd, &c, 1, 400), 1);
	ck_assert_int_eq(ap_tabcache__load(dir, e->build_id, 20, got, 1),
			 -EINVAL);
	ck_assert_ptr_null(got->rows);
	close(fd);
	/* cut short */
	ck_assert_int_eq(ap_tabcache__save(dir, e), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(truncate(path, st.st_size - 1), 0);
	ck_assert_int_eq(ap_tabcache__load(dir, e->build_id, 20, got, 1),
			 -EINVAL);
	/* another build-id's entry under this name */
	ck_assert_int_eq(ap_tabcache__save(dir, e), 0);
	e->build_id[0] ^= 1;
	file_of(e, other, sizeof(other));
	ck_assert_int_eq(rename(path, other), 0);
	ck_assert_int_eq(ap_tabcache__load(dir, e->build_id, 20, got, 1),
			 -EINVAL);
	/* a link is not followed */
	e->build_id[0] ^= 1;
	ck_assert_int_eq(symlink(other, path), 0);
	ck_assert_int_eq(ap_tabcache__load(dir, e->build_id, 20, got, 1),
			 -ENOENT);
	free(got);
	entry_free(e);
}
END_TEST

struct seen {
	uint8_t first[4];
	int n;
};

static int note(void *ctx, const uint8_t *id, uint32_t n)
{
	struct seen *s = ctx;

	ck_assert_uint_eq(n, 20);
	if (s->n < 4)
		s->first[s->n] = id[0];
	s->n++;
	return 0;
}

START_TEST(test_each_trims)
{
	struct ap_tabcache_entry *e[3];
	struct timespec ts[2] = { { 0 } };
	struct seen s = { { 0 }, 0 };
	char path[256];
	struct stat st;
	int i;

	for (i = 0; i < 3; i++) {
		e[i] = entry((uint8_t)(0x30 + 0x10 * i), 1000);
		ck_assert_int_eq(ap_tabcache__save(dir, e[i]), 0);
		file_of(e[i], path, sizeof(path));
		/* used at 1000, 3000, 2000 s */
		ts[0].tv_sec = ts[1].tv_sec = (i == 1 ? 3000 : 1000 + 1000 * i);
		ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	}
	ck_assert_int_eq(stat(path, &st), 0);
	/* room for two: the least recently used goes */
	ck_assert_int_eq(ap_tabcache__each(dir, 2 * (uint64_t)st.st_size,
					   note, &s), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_uint_eq(s.first[0], 0x40);
	ck_assert_uint_eq(s.first[1], 0x50);
	file_of(e[0], path, sizeof(path));
	ck_assert_int_eq(access(path, F_OK), -1);
	for (i = 0; i < 3; i++)
		entry_free(e[i]);
}
END_TEST

static Suite *tabcache_suite(void)
{
	Suite *s = suite_create("tabcache");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_each_trims);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tabcache_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
