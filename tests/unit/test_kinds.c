// SPDX-License-Identifier: GPL-2.0
/*
 * The table of event kinds (lib/event/kinds.c): every row whole, and the
 * stages it names agree with it: names, tags and pprof sample types are
 * unique, the sensor and the view are the kind's own, every BPF record
 * type has one handler, and each kind's decoder takes its tags.
 */
#include <check.h>
#include <string.h>

#include "aperture.h"
#include "event/event.h"
#include "format/format.h"
#include "record/sensor.h"
#include "report/view.h"

START_TEST(rows_whole)
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

START_TEST(unique)
{
	size_t i, j;
	int a, b;

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
			/* pprof keys a sample type by its name: one name, one
			 * kind (-sample_index=NAME) */
			for (a = 0; a < k->nr_prof_types; a++)
				for (b = 0; b < o->nr_prof_types; b++)
					if (i != j || a != b)
						ck_assert_str_ne(k->prof_types[a].type,
								 o->prof_types[b].type);
		}
	}
}
END_TEST

START_TEST(units_named)
{
	ck_assert_str_eq(ap_unit__name(AP_UNIT_SAMPLES), "samples");
	ck_assert_str_eq(ap_unit__name(AP_UNIT_NS), "nanoseconds");
	ck_assert_str_eq(ap_unit__name(AP_UNIT_BYTES), "bytes");
	ck_assert_str_eq(ap_unit__name(AP_UNIT_NR), "?");
}
END_TEST

static Suite *kinds_suite(void)
{
	Suite *s = suite_create("kinds");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, rows_whole);
	tcase_add_test(tc, unique);
	tcase_add_test(tc, units_named);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kinds_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
