// SPDX-License-Identifier: GPL-2.0
/*
 * The screen of top without a terminal: the lines composed for a size
 * (header, state line, key line, help page, filter prompt), the batch
 * snapshot, and what the keys change (filter prompt, order cycle,
 * kernel and comm toggles, pause, scrolling, help, quit).  No BPF, no
 * terminal: an empty session behind the cpu and syscall views.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/session.h"
#include "symbols/symbolizer.h"
#include "tui/screen.h"
#include "tui/top_live.h"
#include "tui/ui_term.h"
#include "report/view.h"

struct fixture {
	struct ap_symbolizer *sym;
	struct ap_session *s;
	struct ap_top_screen sc;
	int alive_calls;
};

static void quiet(void *ctx, const char *msg)
{
}

static int two_alive(void *ctx)
{
	struct fixture *fx = ctx;

	fx->alive_calls++;
	return 2;
}

static void setup_fixture(struct fixture *fx, const char *view)
{
	struct ap_symbolizer_opts so = { .warn = quiet };

	memset(fx, 0, sizeof(*fx));
	fx->sym = ap_symbolizer__new(&so);
	fx->s = ap_session__new(fx->sym);
	ck_assert_ptr_nonnull(fx->s);
	ap_top_screen__init(&fx->sc, ap_view__find(view));
	fx->sc.live = ap_top__new(fx->sc.view, &fx->sc.r, fx->s);
	ck_assert_ptr_nonnull(fx->sc.live);
	fx->sc.targets = "pid 12,13";
	fx->sc.nr_targets = 2;
	fx->sc.targets_alive = two_alive;
	fx->sc.ctx = fx;
	fx->sc.interval_s = 2;
	ap_top_screen__render(&fx->sc);
}

static void teardown_fixture(struct fixture *fx)
{
	ap_top__free(fx->sc.live);
	ap_session__free(fx->s);
	ap_symbolizer__free(fx->sym);
}

/* keys one after another; the OR of what they asked for */
static int press(struct fixture *fx, const char *keys, int *rerender,
		 int *redraw)
{
	int quit = 0, rr = 0, rd = 0;

	*rerender = *redraw = 0;
	for (; *keys && !quit; keys++) {
		quit = ap_top_screen__key(&fx->sc, (unsigned char)*keys, 0,
					  &rr, &rd);
		*rerender |= rr;
		*redraw |= rd;
		rr = rd = 0;
	}
	return quit;
}

static int line_is(const struct ap_term_line *l, const char *s)
{
	return l->len == (int)strlen(s) && !memcmp(l->s, s, l->len);
}

START_TEST(test_compose)
{
	struct ap_term_line lines[AP_TOP_MAX_SCREEN];
	struct fixture fx;
	int n, i;

	setup_fixture(&fx, "cpu");
	n = ap_top_screen__compose(&fx.sc, 12, lines);
	ck_assert_int_eq(n, 12);
	ck_assert_int_eq(lines[0].attr, AP_ATTR_REVERSE);
	ck_assert(!strncmp(lines[0].s, "aperture top - ", 15));
	ck_assert_ptr_nonnull(strstr(lines[0].s, "targets: pid 12,13"));
	ck_assert_int_eq(fx.alive_calls, 1);
	ck_assert(!strncmp(lines[1].s,
			   "order: self  kernel: shown  comm: shown  filter: none  rows 0-0 of 0",
			   lines[1].len));
	ck_assert(line_is(&lines[11],
			  "h help  q quit  p pause  s order  k kernel  c comm  / filter"));
	ck_assert_int_eq(lines[11].attr, AP_ATTR_REVERSE);
	/* no rows: blank lines fill the screen above the key line */
	ck_assert(line_is(&lines[10], ""));
	/* more rows than a screen holds: cut to the most */
	ck_assert_int_eq(ap_top_screen__compose(&fx.sc, 100000, lines),
			 AP_TOP_MAX_SCREEN);
	/* the help page, whatever the table */
	fx.sc.help = 1;
	n = ap_top_screen__compose(&fx.sc, 40, lines);
	ck_assert_int_eq(n, 16);
	ck_assert(line_is(&lines[0], "aperture top: keys"));
	ck_assert_int_eq(lines[0].attr, AP_ATTR_REVERSE);
	for (i = 1; i < n; i++)
		ck_assert_int_eq(lines[i].attr, AP_ATTR_NONE);
	ck_assert_int_eq(ap_top_screen__compose(&fx.sc, 3, lines), 3);
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_prompt)
{
	struct ap_term_line lines[AP_TOP_MAX_SCREEN];
	struct fixture fx;
	int rr, rd, n;

	setup_fixture(&fx, "cpu");
	fx.sc.offset = 5;
	ck_assert_int_eq(press(&fx, "/ab", &rr, &rd), 0);
	ck_assert_int_eq(fx.sc.prompt, 1);
	ck_assert_int_eq(rr, 0);
	ck_assert_int_eq(rd, 1);
	n = ap_top_screen__compose(&fx.sc, 10, lines);
	ck_assert(line_is(&lines[n - 1], "Filter by symbol: ab_"));
	/* a backspace, a key no filter holds, Enter: applied from row 0 */
	ck_assert_int_eq(press(&fx, "\x7f\x01x\r", &rr, &rd), 0);
	ck_assert_str_eq(fx.sc.filter, "ax");
	ck_assert_int_eq(fx.sc.prompt, 0);
	ck_assert_int_eq(fx.sc.offset, 0);
	ck_assert_int_eq(rr, 1);
	/* the prompt starts from the filter; Esc keeps it */
	press(&fx, "/q\x1b", &rr, &rd);
	ck_assert_str_eq(fx.sc.filter, "ax");
	ck_assert_int_eq(rr, 0);
	/* an empty filter clears it */
	press(&fx, "/\x7f\x7f\r", &rr, &rd);
	ck_assert_str_eq(fx.sc.filter, "");
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_keys)
{
	struct fixture fx;
	int rr, rd;

	setup_fixture(&fx, "cpu");
	ck_assert_int_gt(fx.sc.nr_sorts, 1);
	ck_assert_int_eq(ap_top_screen__set_order(&fx.sc, "children"), 0);
	ck_assert_int_eq(fx.sc.r.top_sort, 1);
	ck_assert_int_eq(ap_top_screen__set_order(&fx.sc, "nonesuch"),
			 -EINVAL);
	/* s cycles, and wraps */
	fx.sc.offset = 3;
	press(&fx, "s", &rr, &rd);
	ck_assert_int_eq(fx.sc.r.top_sort, 2);
	ck_assert_int_eq(fx.sc.offset, 0);
	ck_assert_int_eq(rr, 1);
	fx.sc.r.top_sort = fx.sc.nr_sorts - 1;
	press(&fx, "S", &rr, &rd);
	ck_assert_int_eq(fx.sc.r.top_sort, 0);
	/* kernel frames and the command column, into the next render */
	press(&fx, "kc", &rr, &rd);
	ck_assert_int_eq(fx.sc.r.user_only, 1);
	ck_assert_int_eq(fx.sc.r.hide_comm, 1);
	ck_assert_int_eq(rr, 1);
	ap_top_screen__render(&fx.sc);
	ck_assert_int_eq(fx.sc.r.nr_keys, 2);
	ck_assert_int_eq(fx.sc.r.keys[0], AP_KEY_DSO);
	press(&fx, "C", &rr, &rd);
	ap_top_screen__render(&fx.sc);
	ck_assert_int_eq(fx.sc.r.nr_keys, 3);
	ck_assert_int_eq(fx.sc.r.keys[0], AP_KEY_COMM);
	/* pause and resume */
	press(&fx, "p", &rr, &rd);
	ck_assert_int_eq(fx.sc.paused, 1);
	ck_assert_int_eq(rr, 0);
	press(&fx, "P", &rr, &rd);
	ck_assert_int_eq(fx.sc.paused, 0);
	/* help: any key after it only closes it */
	press(&fx, "?", &rr, &rd);
	ck_assert_int_eq(fx.sc.help, 1);
	ck_assert_int_eq(press(&fx, "q", &rr, &rd), 0);
	ck_assert_int_eq(fx.sc.help, 0);
	ck_assert_int_eq(rd, 1);
	/* a key top does not know: nothing to draw */
	press(&fx, "x", &rr, &rd);
	ck_assert_int_eq(rd, 0);
	ck_assert_int_eq(press(&fx, "Q", &rr, &rd), 1);
	teardown_fixture(&fx);

	/* a view of one order says so */
	setup_fixture(&fx, "syscall");
	ck_assert_int_eq(fx.sc.nr_sorts, 0);
	press(&fx, "s", &rr, &rd);
	ck_assert_int_eq(rr, 0);
	ck_assert_str_eq(fx.sc.note, "the syscall view has one order");
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_scroll)
{
	struct fixture fx;
	int rr, rd;

	setup_fixture(&fx, "cpu");
	ap_top_screen__key(&fx.sc, AP_KEY_UP, 0, &rr, &rd);
	ck_assert_int_eq(fx.sc.offset, 0);
	ap_top_screen__key(&fx.sc, AP_KEY_DOWN, 0, &rr, &rd);
	ck_assert_int_eq(fx.sc.offset, 1);
	fx.sc.page = 10;
	ap_top_screen__key(&fx.sc, AP_KEY_PGDN, 0, &rr, &rd);
	ck_assert_int_eq(fx.sc.offset, 11);
	ap_top_screen__key(&fx.sc, AP_KEY_PGUP, 0, &rr, &rd);
	ck_assert_int_eq(fx.sc.offset, 1);
	ap_top_screen__key(&fx.sc, AP_KEY_END, 0, &rr, &rd);
	ck_assert_int_gt(fx.sc.offset, 1000000);
	ap_top_screen__key(&fx.sc, AP_KEY_HOME, 0, &rr, &rd);
	ck_assert_int_eq(fx.sc.offset, 0);
	/* the layout clamps what End asked for */
	fx.sc.offset = 1L << 40;
	fx.sc.page = 0;
	ap_top_screen__compose(&fx.sc, 10, (struct ap_term_line[
					       AP_TOP_MAX_SCREEN]){ 0 });
	ck_assert_int_eq(fx.sc.offset, 0);
	teardown_fixture(&fx);
}
END_TEST

START_TEST(test_print)
{
	struct fixture fx;
	char buf[4096];
	size_t n;
	FILE *f;

	setup_fixture(&fx, "cpu");
	snprintf(fx.sc.filter, sizeof(fx.sc.filter), "main");
	snprintf(fx.sc.note, sizeof(fx.sc.note), "warning: w");
	fx.sc.paused = 1;
	f = tmpfile();
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ap_top_screen__print(&fx.sc, f), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert(!strncmp(buf, "aperture top - ", 15));
	/* the batch state line has no rows range */
	ck_assert_ptr_nonnull(strstr(buf,
		"\norder: self  kernel: shown  comm: shown  filter: main  PAUSED (0 events not shown)  warning: w\n"));
	ck_assert(n >= 2 && !strcmp(buf + n - 2, "\n\n"));
	teardown_fixture(&fx);
}
END_TEST

static Suite *top_screen_suite(void)
{
	Suite *s = suite_create("top_screen");
	TCase *tc;

	tc = tcase_create("compose");
	tcase_add_test(tc, test_compose);
	tcase_add_test(tc, test_print);
	suite_add_tcase(s, tc);
	tc = tcase_create("keys");
	tcase_add_test(tc, test_prompt);
	tcase_add_test(tc, test_keys);
	tcase_add_test(tc, test_scroll);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(top_screen_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
