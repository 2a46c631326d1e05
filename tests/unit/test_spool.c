// SPDX-License-Identifier: GPL-2.0
/* lib/record/spool.c driven by a fake push child: its exit statuses,
 * the bounds, the backoff's order. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "record/spool.h"

#define S	(1000 * 1000 * 1000ull)

/* the fake child: each spawn takes the next exit code of a script; the
 * child ends when its test says so */
struct fake {
	const int *codes;		/* -1: the spawn fails */
	int nr_codes, next;
	int running;			/* pid 0: none */
	int done;			/* the running child has ended */
	int status;
	char spawned[32][32];		/* the paths, in order */
	uint64_t spawn_ns[32];
	int nr_spawned;
	char removed[32][32];
	int nr_removed;
	int stopped;
	uint64_t now;
};

static int fake_spawn(void *ctx, const char *path, pid_t *child)
{
	struct fake *f = ctx;
	int code = f->next < f->nr_codes ? f->codes[f->next] : 0;

	f->next++;
	ck_assert_int_lt(f->nr_spawned, 32);
	ck_assert_int_eq(f->running, 0);
	snprintf(f->spawned[f->nr_spawned], 32, "%s", path);
	f->spawn_ns[f->nr_spawned++] = f->now;
	if (code < 0)
		return -EAGAIN;
	f->running = 100 + f->nr_spawned;
	f->done = 0;
	f->status = code << 8;		/* as waitpid: exited with code */
	*child = f->running;
	return 0;
}

static int fake_reap(void *ctx, pid_t child, int *status)
{
	struct fake *f = ctx;

	ck_assert_int_eq(child, f->running);
	if (!f->done)
		return 0;
	*status = f->status;
	f->running = 0;
	return 1;
}

static void fake_stop(void *ctx, pid_t child)
{
	struct fake *f = ctx;

	ck_assert_int_eq(child, f->running);
	f->stopped++;
	f->done = 1;
	f->status = SIGTERM;		/* killed by it */
}

static int fake_remove(void *ctx, const char *path)
{
	struct fake *f = ctx;

	ck_assert_int_lt(f->nr_removed, 32);
	snprintf(f->removed[f->nr_removed++], 32, "%s", path);
	return 0;
}

static const struct ap_spool_ops fake_ops = {
	fake_spawn, fake_reap, fake_stop, fake_remove,
};

static const struct ap_spool_ops fake_keep_ops = {
	.remove = fake_remove,
};

static struct ap_spool *new_spool(struct fake *f, const int *codes, int n,
				  uint32_t max_files, uint64_t max_bytes)
{
	struct ap_spool_opts o = {
		.max_files = max_files,
		.max_bytes = max_bytes,
		.ops = &fake_ops,
		.ctx = f,
	};

	memset(f, 0, sizeof(*f));
	f->codes = codes;
	f->nr_codes = n;
	return ap_spool__new(&o);
}

/* the running child ends now; the spool sees it at its next tick */
static void child_ends(struct ap_spool *s, struct fake *f)
{
	ck_assert_int_ne(f->running, 0);
	f->done = 1;
	ap_spool__tick(s, f->now);
}

START_TEST(sent_removed_in_order)
{
	static const int codes[] = { 0, 0, 0 };
	struct ap_spool_counts n;
	struct fake f;
	struct ap_spool *s = new_spool(&f, codes, 3, 0, 0);

	ap_spool__add(s, "w1", 10, f.now);
	ap_spool__add(s, "w2", 10, f.now);
	ap_spool__add(s, "w3", 10, f.now);
	/* one child at a time */
	ck_assert_int_eq(f.nr_spawned, 1);
	ck_assert(ap_spool__busy(s));
	child_ends(s, &f);
	child_ends(s, &f);
	child_ends(s, &f);
	ck_assert_int_eq(f.nr_spawned, 3);
	ck_assert_str_eq(f.spawned[0], "w1");
	ck_assert_str_eq(f.spawned[1], "w2");
	ck_assert_str_eq(f.spawned[2], "w3");
	ck_assert_int_eq(f.nr_removed, 3);
	ck_assert_str_eq(f.removed[0], "w1");
	ck_assert_str_eq(f.removed[2], "w3");
	ap_spool__counts(s, &n);
	ck_assert_uint_eq(n.sent, 3);
	ck_assert_uint_eq(n.retried + n.rejected + n.lost, 0);
	ck_assert_uint_eq(n.pending, 0);
	ck_assert(!ap_spool__busy(s));
	ap_spool__free(s);
}
END_TEST

START_TEST(tempfail_backs_off)
{
	/* 75 nine times, then a spawn that fails (a 75 too), then sent */
	static const int codes[] = { 75, 75, 75, 75, 75, 75, 75, 75, 75, -1, 0 };
	static const uint64_t waits[] = { 1, 2, 4, 8, 16, 32, 60, 60, 60, 60 };
	struct ap_spool_counts n;
	struct fake f;
	struct ap_spool *s = new_spool(&f, codes, 11, 0, 0);
	int i;

	ap_spool__add(s, "w1", 10, 0);
	for (i = 0; i < 10; i++) {
		uint64_t due;

		if (f.running)
			child_ends(s, &f);
		ck_assert_int_eq(f.nr_removed, 0);
		due = ap_spool__next_ns(s);
		ck_assert_uint_eq(due, f.now + waits[i] * S);
		/* not before its time */
		f.now = due - 1;
		ap_spool__tick(s, f.now);
		ck_assert_int_eq(f.nr_spawned, i + 1);
		f.now = due;
		ap_spool__tick(s, f.now);
		ck_assert_int_eq(f.nr_spawned, i + 2);
		ck_assert_str_eq(f.spawned[i + 1], "w1");
	}
	child_ends(s, &f);
	ap_spool__counts(s, &n);
	ck_assert_uint_eq(n.sent, 1);
	ck_assert_uint_eq(n.retried, 10);
	ck_assert_int_eq(f.nr_removed, 1);
	ap_spool__free(s);
}
END_TEST

START_TEST(backoff_resets_after_sent)
{
	static const int codes[] = { 75, 75, 0, 75 };
	struct fake f;
	struct ap_spool *s = new_spool(&f, codes, 4, 0, 0);

	ap_spool__add(s, "w1", 10, 0);
	ap_spool__add(s, "w2", 10, 0);
	child_ends(s, &f);			/* 75: 1 s */
	f.now = ap_spool__next_ns(s);
	ap_spool__tick(s, f.now);
	child_ends(s, &f);			/* 75: 2 s */
	ck_assert_uint_eq(ap_spool__next_ns(s), f.now + 2 * S);
	f.now += 2 * S;
	ap_spool__tick(s, f.now);
	child_ends(s, &f);			/* sent: w2 at once */
	ck_assert_int_eq(f.nr_spawned, 4);
	ck_assert_str_eq(f.spawned[3], "w2");
	child_ends(s, &f);			/* 75: 1 s again */
	ck_assert_uint_eq(ap_spool__next_ns(s), f.now + S);
	ap_spool__free(s);
}
END_TEST

START_TEST(rejected_dropped)
{
	static const int codes[] = { 65, 0 };
	struct ap_spool_counts n;
	struct fake f;
	struct ap_spool *s = new_spool(&f, codes, 2, 0, 0);

	ap_spool__add(s, "bad", 10, 0);
	ap_spool__add(s, "good", 10, 0);
	child_ends(s, &f);
	ck_assert_str_eq(f.removed[0], "bad");
	ck_assert_str_eq(f.spawned[1], "good");
	child_ends(s, &f);
	ap_spool__counts(s, &n);
	ck_assert_uint_eq(n.rejected, 1);
	ck_assert_uint_eq(n.sent, 1);
	ck_assert_uint_eq(n.retried, 0);
	ap_spool__free(s);
}
END_TEST

START_TEST(count_bound_loses_oldest_unsent)
{
	static const int codes[] = { 75 };
	struct ap_spool_counts n;
	struct fake f;
	struct ap_spool *s = new_spool(&f, codes, 1, 3, 0);

	ap_spool__add(s, "w1", 10, 0);		/* its child runs */
	ap_spool__add(s, "w2", 10, 0);
	ap_spool__add(s, "w3", 10, 0);
	ap_spool__add(s, "w4", 10, 0);
	/* w1 is being read: w2 goes */
	ck_assert_int_eq(f.nr_removed, 1);
	ck_assert_str_eq(f.removed[0], "w2");
	child_ends(s, &f);			/* w1: 75, kept */
	ap_spool__add(s, "w5", 10, f.now);
	/* no child now: the oldest, w1, goes */
	ck_assert_int_eq(f.nr_removed, 2);
	ck_assert_str_eq(f.removed[1], "w1");
	ap_spool__counts(s, &n);
	ck_assert_uint_eq(n.lost, 2);
	ck_assert_uint_eq(n.pending, 3);
	ck_assert_uint_eq(n.pending_bytes, 30);
	ap_spool__free(s);
}
END_TEST

START_TEST(size_bound)
{
	static const int codes[] = { 75 };
	struct ap_spool_counts n;
	struct fake f;
	struct ap_spool *s = new_spool(&f, codes, 1, 0, 100);

	ap_spool__add(s, "w1", 40, 0);
	child_ends(s, &f);			/* 75: waits */
	ap_spool__add(s, "w2", 40, 0);
	ck_assert_int_eq(f.nr_removed, 0);
	ap_spool__add(s, "w3", 40, 0);		/* 120 > 100: w1 */
	ck_assert_int_eq(f.nr_removed, 1);
	ck_assert_str_eq(f.removed[0], "w1");
	/* one alone past the bound goes too */
	ap_spool__add(s, "big", 500, 0);
	ap_spool__counts(s, &n);
	ck_assert_uint_eq(n.pending_bytes, 40);	/* w2, being sent */
	ck_assert_uint_eq(n.lost, 3);
	ap_spool__free(s);
}
END_TEST

START_TEST(keep_only_without_push)
{
	struct ap_spool_opts o = {
		.max_files = 2, .ops = &fake_keep_ops,
	};
	struct ap_spool_counts n;
	struct fake f;
	struct ap_spool *s;

	memset(&f, 0, sizeof(f));
	o.ctx = &f;
	s = ap_spool__new(&o);
	ap_spool__add(s, "a", 1, 0);
	ap_spool__add(s, "b", 1, 0);
	ap_spool__add(s, "c", 1, 0);
	ap_spool__add(s, "d", 1, 0);
	ck_assert_int_eq(f.nr_removed, 2);
	ck_assert_str_eq(f.removed[0], "a");
	ck_assert_str_eq(f.removed[1], "b");
	ap_spool__counts(s, &n);
	ck_assert_uint_eq(n.removed, 2);
	ck_assert_uint_eq(n.lost, 0);
	ck_assert_uint_eq(n.pending, 2);
	ap_spool__free(s);
}
END_TEST

static struct fake *clock_of;

static uint64_t fake_now(void)
{
	return clock_of->now;
}

static void fake_sleep(uint64_t ns)
{
	clock_of->now += ns;
}

START_TEST(finish_bounded)
{
	static const int codes[] = { 0, 0 };
	struct ap_spool_counts n;
	struct fake f;
	struct ap_spool *s = new_spool(&f, codes, 2, 0, 0);

	ap_spool__add(s, "w1", 10, 0);
	ap_spool__add(s, "w2", 10, 0);
	/* w1's child never ends by itself: stopped at the deadline, its
	 * file kept (not sent), w2 never started */
	clock_of = &f;
	ap_spool__finish(s, 3 * S, fake_now, fake_sleep);
	ck_assert_int_eq(f.stopped, 1);
	ck_assert_uint_ge(f.now, 3 * S);
	ck_assert_int_eq(f.nr_spawned, 1);
	ap_spool__counts(s, &n);
	ck_assert_uint_eq(n.sent, 0);
	ck_assert_uint_eq(n.pending, 2);
	ck_assert_int_eq(f.nr_removed, 0);
	ap_spool__free(s);
}
END_TEST

static Suite *spool_suite(void)
{
	Suite *s = suite_create("spool");
	TCase *tc = tcase_create("push");
	TCase *tb = tcase_create("bounds");

	tcase_add_test(tc, sent_removed_in_order);
	tcase_add_test(tc, tempfail_backs_off);
	tcase_add_test(tc, backoff_resets_after_sent);
	tcase_add_test(tc, rejected_dropped);
	tcase_add_test(tc, finish_bounded);
	tcase_add_test(tb, count_bound_loses_oldest_unsent);
	tcase_add_test(tb, size_bound);
	tcase_add_test(tb, keep_only_without_push);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tb);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(spool_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
