// SPDX-License-Identifier: GPL-2.0
/*
 * UTF-8 checks (lib/util/utf8.c) against RFC 3629's table: valid forms of
 * every length pass; overlong forms, surrogates, code points past
 * U+10FFFF, stray continuation bytes and cut sequences (a thread name cut
 * at 15 bytes) become U+FFFD, one per byte; the copy never splits a
 * character and says what it needed.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/utf8.h"

#define R AP_UTF8_REPLACEMENT

START_TEST(valid_forms)
{
	ck_assert_uint_eq(ap_utf8_seq("a"), 1);
	ck_assert_uint_eq(ap_utf8_seq("\xc3\xa9"), 2);		/* é */
	ck_assert_uint_eq(ap_utf8_seq("\xe2\x82\xac"), 3);	/* € */
	ck_assert_uint_eq(ap_utf8_seq("\xf0\x9f\x98\x80"), 4);	/* U+1F600 */
	ck_assert_uint_eq(ap_utf8_seq("\xf4\x8f\xbf\xbf"), 4);	/* U+10FFFF */
	ck_assert_uint_eq(ap_utf8_seq("\xed\x9f\xbf"), 3);	/* U+D7FF */
	ck_assert_int_eq(ap_utf8_valid("gzip \xc3\xa9t\xc3\xa9"), 1);
	ck_assert_int_eq(ap_utf8_valid(""), 1);
}
END_TEST

START_TEST(invalid_forms)
{
	ck_assert_uint_eq(ap_utf8_seq("\x80"), 0);		/* continuation */
	ck_assert_uint_eq(ap_utf8_seq("\xc0\xaf"), 0);		/* overlong / */
	ck_assert_uint_eq(ap_utf8_seq("\xe0\x80\xaf"), 0);	/* overlong */
	ck_assert_uint_eq(ap_utf8_seq("\xf0\x80\x80\xaf"), 0);	/* overlong */
	ck_assert_uint_eq(ap_utf8_seq("\xed\xa0\x80"), 0);	/* surrogate */
	ck_assert_uint_eq(ap_utf8_seq("\xf4\x90\x80\x80"), 0);	/* > 10FFFF */
	ck_assert_uint_eq(ap_utf8_seq("\xf5\x80\x80\x80"), 0);
	ck_assert_uint_eq(ap_utf8_seq("\xff"), 0);
	ck_assert_uint_eq(ap_utf8_seq("\xe2\x82"), 0);		/* cut */
	ck_assert_uint_eq(ap_utf8_seq("\xe2\x82" "a"), 0);
	ck_assert_int_eq(ap_utf8_valid("abc\xe2\x82"), 0);
}
END_TEST

START_TEST(sanitize)
{
	char buf[64];

	/* a 3-byte character cut after its first two bytes: two U+FFFD */
	ck_assert_uint_eq(ap_utf8_sanitize(buf, sizeof(buf), "ab\xe2\x82"),
			  2 + 6);
	ck_assert_str_eq(buf, "ab" R R);
	ck_assert_uint_eq(ap_utf8_sanitize(buf, sizeof(buf), "\xc3\xa9x"), 3);
	ck_assert_str_eq(buf, "\xc3\xa9x");
	ck_assert_int_eq(ap_utf8_valid(buf), 1);
	ck_assert_uint_eq(ap_utf8_sanitize(buf, sizeof(buf), "\xff\xc0\xaf"),
			  9);
	ck_assert_str_eq(buf, R R R);
	/* what does not fit is left out whole: no split character */
	ck_assert_uint_eq(ap_utf8_sanitize(buf, 4, "a\xe2\x82\xac"), 4);
	ck_assert_str_eq(buf, "a");
	ck_assert_uint_eq(ap_utf8_sanitize(buf, 5, "a\xe2\x82\xac"), 4);
	ck_assert_str_eq(buf, "a\xe2\x82\xac");
	ck_assert_uint_eq(ap_utf8_sanitize(buf, 1, "abc"), 3);
	ck_assert_str_eq(buf, "");
	ck_assert_uint_eq(ap_utf8_sanitize(NULL, 0, "\xff"), 3);
}
END_TEST

/* the text outputs' escaping: the same U+FFFD, and a character split
 * across two writes of the escaping stream kept whole */
START_TEST(escape_text)
{
	char buf[64], *mem = NULL;
	size_t len = 0;
	FILE *m, *e;

	ap_escape(buf, sizeof(buf), "ab\xe2\x82\x01", 0);
	ck_assert_str_eq(buf, "ab" R R "\\x01");
	ck_assert_int_eq(ap_escape_clean("gzip \xc3\xa9", 0), 1);
	ck_assert_int_eq(ap_escape_clean("aaaa\xe2", 0), 0);
	m = open_memstream(&mem, &len);
	ck_assert_ptr_nonnull(m);
	e = ap_escape_stream(m);
	ck_assert_ptr_nonnull(e);
	setvbuf(e, NULL, _IONBF, 0);	/* each fputs one write */
	fputs("x\xe2\x82", e);
	fputs("\xac y\xe2 z\n", e);
	fclose(e);
	fclose(m);
	ck_assert_str_eq(mem, "x\xe2\x82\xac y" R " z\n");
	free(mem);
}
END_TEST

static Suite *utf8_suite(void)
{
	Suite *s = suite_create("utf8");
	TCase *tc = tcase_create("utf8");

	tcase_add_test(tc, valid_forms);
	tcase_add_test(tc, invalid_forms);
	tcase_add_test(tc, sanitize);
	tcase_add_test(tc, escape_text);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(utf8_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
