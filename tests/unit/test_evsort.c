// SPDX-License-Identifier: GPL-2.0
/*
 * The event dump's time order (lib/report/evsort.c): records back in time order
 * whether they stay in memory or go through runs on disk, ties in the
 * order they came, nothing lost or doubled.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/evsort.h"

#define NR	2000

/* records "ts seq\n", times out of order as a shared ring buffer gives
 * them (slices come at their end), with ties; sorted back and checked */
static void check_order(size_t budget, int want_runs)
{
	struct ap_evsort *s = ap_evsort__new(budget);
	uint64_t last_ts = 0;
	long last_seq = -1;
	char line[64], *buf = NULL;
	size_t len = 0;
	int i, n = 0;
	FILE *out;

	ck_assert_ptr_nonnull(s);
	srand(7);
	for (i = 0; i < NR; i++) {
		/* a window of disorder, and every 97th far back in time */
		uint64_t ts = (i % 97 == 0) ? (uint64_t)i / 3 :
			      1000 + (uint64_t)i * 10 - rand() % 500;
		int l = snprintf(line, sizeof(line), "%" PRIu64 " %d\n",
				 ts - ts % 4, i);

		ck_assert_int_eq(ap_evsort__add(s, ts - ts % 4, line, l), 0);
	}
	if (want_runs)
		ck_assert_uint_gt(ap_evsort__runs(s), 10);
	else
		ck_assert_uint_eq(ap_evsort__runs(s), 0);
	out = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(ap_evsort__write(s, out), 0);
	fclose(out);
	for (char *p = buf; p && *p; p = strchr(p, '\n') + 1) {
		unsigned long long ts;
		long seq;

		ck_assert_int_eq(sscanf(p, "%llu %ld", &ts, &seq), 2);
		ck_assert_uint_ge(ts, last_ts);
		if (ts == last_ts)
			ck_assert_int_gt(seq, last_seq);	/* stable */
		last_ts = ts;
		last_seq = seq;
		n++;
	}
	ck_assert_int_eq(n, NR);
	free(buf);
	ap_evsort__free(s);
}

START_TEST(test_evsort_memory)
{
	check_order(0, 0);
}
END_TEST

START_TEST(test_evsort_runs)
{
	/* a budget of about 40 records: some 50 runs merged */
	check_order(40 * 48, 1);
}
END_TEST

START_TEST(test_evsort_empty)
{
	struct ap_evsort *s = ap_evsort__new(0);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_int_eq(ap_evsort__write(s, out), 0);
	fclose(out);
	ck_assert_uint_eq(len, 0);
	free(buf);
	ap_evsort__free(s);
}
END_TEST

static Suite *evsort_suite(void)
{
	Suite *s = suite_create("evsort");
	TCase *tc = tcase_create("order");

	tcase_add_test(tc, test_evsort_memory);
	tcase_add_test(tc, test_evsort_runs);
	tcase_add_test(tc, test_evsort_empty);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(evsort_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
