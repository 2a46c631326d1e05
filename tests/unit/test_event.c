// SPDX-License-Identifier: GPL-2.0
/*
 * The table of event kinds (lib/event/kinds.c): every row whole, and the
 * stages it names agree with it (names, tags and record types unique, the
 * sensor and the view the kind's own); as the exports read it: pprof
 * sample types unique across kinds (go tool pprof -sample_index
 * picks a type by name, profile servers key by type and unit), a
 * profile's views carrying their kind's types, and the one unit of a
 * graph of several views (lib/event/unit.c).
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aperture.h"
#include "event/event.h"
#include "export/profile.h"
#include "format/format.h"
#include "record/recorder.h"
#include "record/sensor.h"
#include "report/view.h"

START_TEST(test_rows_whole)
{
	size_t i;

	ck_assert_uint_ge(ap_nr_event_kinds, 7);
	for (i = 0; i < ap_nr_event_kinds; i++) {
		const struct ap_event_kind *k = ap_event_kinds[i];

		ck_assert_ptr_nonnull(k->name);
		ck_assert_ptr_nonnull(k->title);
		ck_assert_ptr_nonnull(k->sensor);
		ck_assert_ptr_nonnull(k->view);
		ck_assert_ptr_nonnull(k->rec);
		ck_assert_ptr_nonnull(k->rec[0].fn);
		ck_assert_ptr_nonnull(k->decode);
		ck_assert_str_eq(k->sensor->name, k->name);
		ck_assert_str_eq(k->view->name, k->name);
		ck_assert_uint_eq(k->sensor->tag, k->tag);
		ck_assert_uint_eq(k->view->tag, k->tag);
		ck_assert_uint_eq(k->view->more_tags, k->more_tags);
		ck_assert_int_ge(k->folded_unit, 0);
		ck_assert_int_lt(k->folded_unit, AP_UNIT_NR);
		ck_assert_int_ge(k->nr_prof_types, 1);
		ck_assert_int_le(k->nr_prof_types, AP_PROF_MAX_TYPES);
		ck_assert_int_lt(k->table_full_stat, AP_STAT_NR);
		/* a kind's tags are event tags, not metadata */
		ck_assert_uint_lt(k->tag, AP_TAG_TASK);
		ck_assert_ptr_eq(ap_event_kind__of_tag(k->tag), k);
		ck_assert_ptr_eq(ap_event_kind__find(k->name), k);
		ck_assert_ptr_eq(ap_view__find(k->name), k->view);
		/* the file's tag order is the table's */
		if (i)
			ck_assert_uint_gt(k->tag, ap_event_kinds[i - 1]->tag);
	}
	ck_assert_ptr_null(ap_event_kind__find("nosuch"));
	ck_assert_ptr_null(ap_event_kind__of_tag(AP_TAG_MMAP));
}
END_TEST

START_TEST(test_rows_unique)
{
	size_t i, j;

	for (i = 0; i < ap_nr_event_kinds; i++) {
		const struct ap_event_kind *k = ap_event_kinds[i];

		for (j = 0; j < ap_nr_event_kinds; j++) {
			const struct ap_event_kind *o = ap_event_kinds[j];
			const struct ap_rec_handler *h, *g;

			if (i != j) {
				ck_assert_str_ne(k->name, o->name);
				ck_assert_uint_ne(k->tag, o->tag);
				ck_assert_uint_eq(k->more_tags & o->more_tags, 0);
			}
			for (h = k->rec; h->fn; h++)
				for (g = o->rec; g->fn; g++)
					if (h != g)
						ck_assert_uint_ne(h->type, g->type);
		}
	}
}
END_TEST

/* the recorder dispatches by type to its own handlers first: one of those
 * that a kind's record also has takes the kind's records (a tracepoint's
 * description once went to the Python code objects' handler, and every
 * tracepoint event of the recording was dropped) */
START_TEST(test_own_types_unique)
{
	const struct ap_rec_handler *h, *g;
	size_t i;

	for (h = ap_recorder_own_handlers; h->fn; h++) {
		for (g = h + 1; g->fn; g++)
			ck_assert_uint_ne(h->type, g->type);
		for (i = 0; i < ap_nr_event_kinds; i++)
			for (g = ap_event_kinds[i]->rec; g->fn; g++)
				ck_assert_msg(h->type != g->type,
					      "record type 0x%x is the recorder's and %s's",
					      h->type, ap_event_kinds[i]->name);
	}
}
END_TEST

START_TEST(test_prof_types_unique)
{
	size_t i, j;
	int a, b;

	for (i = 0; i < ap_nr_event_kinds; i++) {
		const struct ap_event_kind *k = ap_event_kinds[i];

		ck_assert_int_gt(k->nr_prof_types, 0);
		ck_assert_int_le(k->nr_prof_types, AP_PROF_MAX_TYPES);
		for (a = 0; a < k->nr_prof_types; a++) {
			ck_assert_ptr_nonnull(k->prof_types[a].type);
			ck_assert_ptr_nonnull(k->prof_types[a].unit);
		}
	}
	/* every pair of types, in one kind or in two */
	for (i = 0; i < ap_nr_event_kinds; i++)
		for (j = i; j < ap_nr_event_kinds; j++)
			for (a = 0; a < ap_event_kinds[i]->nr_prof_types; a++)
				for (b = 0; b < ap_event_kinds[j]->nr_prof_types; b++) {
					const char *x, *y;

					if (i == j && b <= a)
						continue;
					x = ap_event_kinds[i]->prof_types[a].type;
					y = ap_event_kinds[j]->prof_types[b].type;
					ck_assert_msg(strcmp(x, y),
						      "kinds %s and %s share the sample type '%s'",
						      ap_event_kinds[i]->name,
						      ap_event_kinds[j]->name, x);
				}
}
END_TEST

/* a profile's view of a kind is its descriptor's row */
START_TEST(test_profile_add_kind)
{
	const struct ap_event_kind *k = ap_event_kinds[_i];
	struct ap_profile p;
	int idx, t;

	ap_profile__init(&p, NULL);
	idx = ap_profile__add_kind(&p, k->tag, k->nr_prof_types - 1);
	ck_assert_int_eq(idx, 0);
	ck_assert_str_eq(p.views[0].name, k->name);
	ck_assert_str_eq(p.views[0].title, k->title);
	ck_assert_int_eq(p.views[0].nr_types, k->nr_prof_types);
	ck_assert_int_eq(p.views[0].main, k->nr_prof_types - 1);
	for (t = 0; t < k->nr_prof_types; t++) {
		ck_assert_str_eq(p.views[0].types[t].type,
				 k->prof_types[t].type);
		ck_assert_str_eq(p.views[0].types[t].unit,
				 k->prof_types[t].unit);
	}
	/* a main type the kind has not */
	ck_assert_int_eq(ap_profile__add_kind(&p, k->tag, k->nr_prof_types),
			 -EINVAL);
	ap_profile__free(&p);
}
END_TEST

/* the rule folded stacks and the SVG graph share */
static const struct {
	struct ap_unit_pick v[3];
	int n, want;
} commons[] = {
	{ { { AP_UNIT_SAMPLES, 1 } }, 1, AP_UNIT_SAMPLES },
	{ { { AP_UNIT_COUNT, 0 } }, 1, AP_UNIT_COUNT },
	/* syscall, lock: their nanoseconds as they are */
	{ { { AP_UNIT_NS, 1 }, { AP_UNIT_NS, 1 } }, 2, AP_UNIT_NS },
	/* cpu, syscall / cpu, sched / syscall, sched: time */
	{ { { AP_UNIT_SAMPLES, 1 }, { AP_UNIT_NS, 1 } }, 2, AP_UNIT_TIME },
	{ { { AP_UNIT_SAMPLES, 1 }, { AP_UNIT_US, 1 } }, 2, AP_UNIT_TIME },
	{ { { AP_UNIT_NS, 1 }, { AP_UNIT_US, 1 }, { AP_UNIT_SAMPLES, 1 } }, 3,
	  AP_UNIT_TIME },
	/* bytes or counts beside time */
	{ { { AP_UNIT_SAMPLES, 1 }, { AP_UNIT_BYTES, 0 } }, 2, -EDOM },
	{ { { AP_UNIT_NS, 1 }, { AP_UNIT_COUNT, 0 } }, 2, -EDOM },
	/* counts of two kinds; unless both can weigh by time */
	{ { { AP_UNIT_COUNT, 0 }, { AP_UNIT_COUNT, 1 } }, 2, -EDOM },
	{ { { AP_UNIT_COUNT, 1 }, { AP_UNIT_COUNT, 1 } }, 2, AP_UNIT_TIME },
	/* samples without a frequency are no time */
	{ { { AP_UNIT_SAMPLES, 0 }, { AP_UNIT_NS, 1 } }, 2, -EDOM },
};

START_TEST(test_unit_common)
{
	ck_assert_int_eq(ap_unit__common(commons[_i].v, commons[_i].n),
			 commons[_i].want);
}
END_TEST

START_TEST(test_unit_convert)
{
	uint64_t w;
	int u;

	/* samples at 999 Hz to microseconds: w * 1e6 / 999, the division
	 * rounded once, as the cpu,sched graph has always written them */
	for (w = 0; w < 100000; w += 7)
		ck_assert(ap_unit__convert((double)w, AP_UNIT_SAMPLES,
					   AP_UNIT_US, 999) ==
			  (double)w * 1e6 / 999);
	ck_assert(ap_unit__convert(1, AP_UNIT_SAMPLES, AP_UNIT_NS, 499) ==
		  1e9 / 499);
	ck_assert(ap_unit__convert(1603792230, AP_UNIT_NS, AP_UNIT_US, 0) ==
		  1603792.230);
	ck_assert(ap_unit__convert(7, AP_UNIT_US, AP_UNIT_NS, 0) == 7000);
	/* no time, or samples with no frequency: as they are */
	ck_assert(ap_unit__convert(5, AP_UNIT_BYTES, AP_UNIT_US, 999) == 5);
	ck_assert(ap_unit__convert(5, AP_UNIT_SAMPLES, AP_UNIT_US, 0) == 5);
	for (u = 0; u < AP_UNIT_NR; u++)
		ck_assert_int_eq(ap_unit__parse(ap_unit__name(u)), u);
	ck_assert_int_eq(ap_unit__parse("furlongs"), -EINVAL);
}
END_TEST

static Suite *event_suite(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_rows_whole);
	tcase_add_test(tc, test_rows_unique);
	tcase_add_test(tc, test_own_types_unique);
	suite_add_tcase(s, tc);
	tc = tcase_create("prof_types");

	tcase_add_test(tc, test_prof_types_unique);
	tcase_add_loop_test(tc, test_profile_add_kind, 0,
			    (int)ap_nr_event_kinds);
	suite_add_tcase(s, tc);
	tc = tcase_create("units");
	tcase_add_loop_test(tc, test_unit_common, 0,
			    sizeof(commons) / sizeof(commons[0]));
	tcase_add_test(tc, test_unit_convert);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(event_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
