// SPDX-License-Identifier: GPL-2.0
/*
 * The terminal layer of top without a terminal: key decoding from the
 * bytes terminals send, and the escape sequences a redraw writes.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/ui_term.h"

static const struct {
	const char *bytes;
	int key;
	size_t used;
} keys[] = {
	{ "q", 'q', 1 },
	{ "/abc", '/', 1 },
	{ "\r", AP_KEY_ENTER, 1 },
	{ "\n", AP_KEY_ENTER, 1 },
	{ "\x7f", AP_KEY_BACKSPACE, 1 },
	{ "\x08", AP_KEY_BACKSPACE, 1 },
	{ "\x1b", AP_KEY_ESC, 1 },
	{ "\x1b[A", AP_KEY_UP, 3 },
	{ "\x1b[Bq", AP_KEY_DOWN, 3 },
	{ "\x1bOA", AP_KEY_UP, 3 },
	{ "\x1bOB", AP_KEY_DOWN, 3 },
	{ "\x1b[5~", AP_KEY_PGUP, 4 },
	{ "\x1b[6~", AP_KEY_PGDN, 4 },
	{ "\x1b[H", AP_KEY_HOME, 3 },
	{ "\x1b[1~", AP_KEY_HOME, 4 },
	{ "\x1b[4~", AP_KEY_END, 4 },
	{ "\x1bOF", AP_KEY_END, 3 },
	{ "\x1b[1;5A", AP_KEY_UP, 6 },		/* Ctrl-Up: still up */
	{ "\x1b[15~", AP_KEY_UNKNOWN, 5 },	/* F5 */
	{ "\x1b[2", AP_KEY_UNKNOWN, 3 },	/* cut short */
	{ "\x1bq", AP_KEY_ESC, 1 },		/* Alt-q: ESC, then q */
};

START_TEST(test_key_decode)
{
	size_t used = 99;
	int key = ap_key__decode((const unsigned char *)keys[_i].bytes,
				 strlen(keys[_i].bytes), &used);

	ck_assert_int_eq(key, keys[_i].key);
	ck_assert_uint_eq(used, keys[_i].used);
}
END_TEST

START_TEST(test_key_empty)
{
	size_t used = 99;

	ck_assert_int_eq(ap_key__decode((const unsigned char *)"", 0, &used),
			 AP_KEY_NONE);
	ck_assert_uint_eq(used, 0);
}
END_TEST

START_TEST(test_compose)
{
	struct ap_term_line l[] = {
		{ "header", 6, AP_ATTR_REVERSE },
		{ "a\tb 0123456789", 14, AP_ATTR_NONE },
		{ "bold", 4, AP_ATTR_BOLD },
		{ "never drawn", 11, AP_ATTR_NONE },
	};
	char *out;
	size_t len;

	ck_assert_int_eq(ap_term__compose(l, 4, 3, 8, &out, &len), 0);
	out = realloc(out, len + 1);
	out[len] = '\0';
	ck_assert_str_eq(out,
			 "\x1b[H"
			 "\x1b[7mheader  \x1b[m\x1b[K\r\n"	/* padded bar */
			 "a b 0123\x1b[K\r\n"		/* cut, tab blanked */
			 "\x1b[1mbold\x1b[m\x1b[K"		/* last row: no newline */
			 "\x1b[J");
	free(out);
	/* fewer lines than rows: the rest is cleared */
	ck_assert_int_eq(ap_term__compose(l, 1, 5, 80, &out, &len), 0);
	ck_assert(len > 3 && !memcmp(out + len - 3, "\x1b[J", 3));
	free(out);
}
END_TEST

START_TEST(test_open_not_a_tty)
{
	struct ap_term *t = (struct ap_term *)1;
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(ap_term__open(&t, fds[0], fds[1]), -ENOTTY);
	ck_assert_ptr_null(t);
	close(fds[0]);
	close(fds[1]);
	/* nothing entered: restoring is a no-op, never a write */
	ap_term__restore_now();
	ap_term__close(NULL);
}
END_TEST

static Suite *ui_term_suite(void)
{
	Suite *s = suite_create("ui_term");
	TCase *tc;

	tc = tcase_create("keys");
	tcase_add_loop_test(tc, test_key_decode, 0,
			    sizeof(keys) / sizeof(keys[0]));
	tcase_add_test(tc, test_key_empty);
	suite_add_tcase(s, tc);
	tc = tcase_create("screen");
	tcase_add_test(tc, test_compose);
	tcase_add_test(tc, test_open_not_a_tty);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ui_term_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
