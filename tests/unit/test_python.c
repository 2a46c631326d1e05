// SPDX-License-Identifier: GPL-2.0
/*
 * Python frames (lib/python): the line of an instruction from a real
 * CPython 3.11 location table against the interpreter's own co_lines();
 * the pyframe frame's bytes both ways, and a payload cut short refused;
 * the frame addresses stacks hold, named at ip and at ip - 1 (a caller's
 * look-up); the names of interpreter files; a file without Py_Version
 * (pyenv's libpython3.10, where installed) known by its name only where
 * its PY_VERSION string agrees; 3.13's _Py_DebugOffsets on a crafted
 * _PyRuntime image (the table's, a build's own, and those refused) and
 * on pyenv's libpython3.13 where installed.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/buf.h"
#include "format/format.h"
#include "python/names.h"
#include "python/python.h"
#include "symbols/symbolizer.h"

/*
 * def f(n):            # line 2 of `python3.11 -c`
 *     x = 0
 *     for i in range(n):
 *         x += i * i
 *     return x
 * f.__code__.co_linetable and co_lines() (in code units) of 3.11.2
 */
static const uint8_t table[] = {
	128, 0, 216, 8, 9, 128, 65, 221, 13, 18, 144, 49, 137, 88, 140, 88,
	240, 0, 1, 5, 19, 240, 0, 1, 5, 19, 136, 1, 216, 8, 9, 136, 81, 144,
	17, 137, 85, 137, 10, 136, 1, 136, 1, 216, 11, 12, 128, 72,
};

static const struct { unsigned int lo, hi; int line; } lines[] = {
	{ 0, 1, 2 }, { 1, 3, 3 }, { 3, 20, 4 }, { 20, 29, 5 }, { 29, 31, 6 },
};

START_TEST(line_table)
{
	size_t i;
	unsigned int idx;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		for (idx = lines[i].lo; idx < lines[i].hi; idx++)
			ck_assert_msg(ap_py_line_311(table, sizeof(table), 2,
						     idx) == lines[i].line,
				      "instruction %u: line %d, not %d", idx,
				      ap_py_line_311(table, sizeof(table), 2,
						     idx), lines[i].line);
	/* past the end, a table cut anywhere, one not at an entry */
	ck_assert_int_eq(ap_py_line_311(table, sizeof(table), 2, 31), 0);
	for (i = 0; i < sizeof(table); i++)
		ap_py_line_311(table, i, 2, 30);
	ck_assert_int_eq(ap_py_line_311(table + 1, sizeof(table) - 1, 2, 5),
			 0);
}
END_TEST

/*
 * The tables of the same function (first line 2) from CPython 3.10 and
 * 3.9, and the lines that its co_lines() and dis.findlinestarts() give:
 * instruction ranges in code units (3.10) and in bytes (3.9, 3.8).
 */
static const uint8_t table_310[] = { 4, 1, 12, 1, 8, 1, 10, 1, 10, 2, 4, 1 };
static const uint8_t lnotab[] = { 0, 1, 4, 1, 12, 1, 8, 1, 10, 2, 10, 1 };

static const struct { unsigned int lo, hi; int line; } lines_310[] = {
	{ 0, 2, 3 }, { 2, 8, 4 }, { 8, 12, 5 }, { 12, 17, 6 }, { 17, 22, 8 },
	{ 22, 24, 9 },
}, lines_lnotab[] = {
	{ 0, 4, 3 }, { 4, 16, 4 }, { 16, 24, 5 }, { 24, 34, 6 },
	{ 34, 44, 8 }, { 44, 48, 9 },
};

START_TEST(line_table_old)
{
	size_t i;
	unsigned int idx;

	for (i = 0; i < sizeof(lines_310) / sizeof(lines_310[0]); i++)
		for (idx = lines_310[i].lo; idx < lines_310[i].hi; idx++)
			ck_assert_int_eq(ap_py_line(AP_PY_LINES_310, table_310,
						    sizeof(table_310), 2, idx),
					 lines_310[i].line);
	for (i = 0; i < sizeof(lines_lnotab) / sizeof(lines_lnotab[0]); i++)
		for (idx = lines_lnotab[i].lo; idx < lines_lnotab[i].hi; idx++)
			ck_assert_int_eq(ap_py_line(AP_PY_LNOTAB, lnotab,
						    sizeof(lnotab), 2, idx),
					 lines_lnotab[i].line);
	/* 3.10: past the end, and bytes of no line (-128) */
	ck_assert_int_eq(ap_py_line_310(table_310, sizeof(table_310), 2, 24),
			 0);
	ck_assert_int_eq(ap_py_line_310((const uint8_t []){ 4, 1, 4, 0x80 },
					4, 2, 3), 0);
	for (i = 0; i < sizeof(table_310); i++)
		ap_py_line_310(table_310, i, 2, 23);
}
END_TEST

START_TEST(pyframe_bytes)
{
	struct ap_pyframe f = { .id = 7, .line = 12, .first_line = 9 }, g;
	struct ap_buf b;
	size_t n;

	strcpy(f.func, "Outer.burn_a");
	strcpy(f.file, "/srv/app/x\n;y.py");
	ap_buf__init(&b);
	ap_pyframe__encode(&f, &b);
	ck_assert_uint_eq(ap_get_le32(b.data), AP_TAG_PYFRAME);
	n = b.len - AP_FRAME_HDR_LEN;
	ck_assert_uint_eq(ap_get_le32(b.data + 4), n);
	ck_assert_int_eq(ap_pyframe__decode(b.data + AP_FRAME_HDR_LEN, n, &g),
			 0);
	ck_assert_uint_eq(g.id, 7);
	ck_assert_int_eq(g.line, 12);
	ck_assert_int_eq(g.first_line, 9);
	ck_assert_str_eq(g.func, f.func);
	ck_assert_str_eq(g.file, f.file);
	ck_assert_int_ne(ap_pyframe__decode(b.data + AP_FRAME_HDR_LEN, 10,
					    &g), 0);
	/* id 0 names nothing */
	memset(b.data + AP_FRAME_HDR_LEN, 0, 4);
	ck_assert_int_ne(ap_pyframe__decode(b.data + AP_FRAME_HDR_LEN, n, &g),
			 0);
	ap_buf__free(&b);
}
END_TEST

START_TEST(frame_addresses)
{
	struct ap_pyframe f = { .id = 3, .line = 40, .first_line = 38 };
	struct ap_symbolizer *s = ap_symbolizer__new(NULL);
	const struct ap_sym_loc *loc;
	uint64_t ip = AP_PYFRAME_IP(3);

	ck_assert(ap_pyframe_ip(ip));
	ck_assert(ap_pyframe_ip(ip - 1));
	ck_assert_uint_eq(ap_pyframe_id(ip), 3);
	ck_assert_uint_eq(ap_pyframe_id(ip - 1), 3);
	ck_assert_uint_eq(ap_pyframe_id(AP_PYFRAME_IP(AP_PYFRAME_ID_MAX)),
			  AP_PYFRAME_ID_MAX);
	ck_assert(!ap_pyframe_ip(0x7ffff7a00000ull));
	ck_assert(!ap_pyframe_ip(0xffffffff81000000ull));
	strcpy(f.func, "work");
	strcpy(f.file, "/tmp/prog.py");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(ap_symbolizer__add_pyframe(s, &f), 0);
	loc = ap_symbolizer__user(s, NULL, ip, 1);
	ck_assert_int_eq(loc->nr_frames, 1);
	ck_assert_str_eq(loc->frames[0].sym, "work");
	ck_assert_str_eq(loc->frames[0].file, "/tmp/prog.py");
	ck_assert_int_eq(loc->frames[0].line, 40);
	ck_assert_int_eq(loc->frames[0].start_line, 38);
	ck_assert_str_eq(loc->dso, "prog.py");
	ck_assert_ptr_eq(ap_symbolizer__user(s, NULL, ip - 1, 0), loc);
	/* an id the file never named */
	loc = ap_symbolizer__user(s, NULL, AP_PYFRAME_IP(4), 0);
	ck_assert_int_eq(loc->nr_frames, 0);
	ck_assert_str_eq(loc->dso, "[py]");
	/* the first frame of an id names it */
	strcpy(f.func, "other");
	ck_assert_int_eq(ap_symbolizer__add_pyframe(s, &f), 0);
	ck_assert_str_eq(ap_symbolizer__user(s, NULL, ip, 0)->frames[0].sym,
			 "work");
	f.id = 0;
	ck_assert_int_ne(ap_symbolizer__add_pyframe(s, &f), 0);
	ap_symbolizer__free(s);
}
END_TEST

START_TEST(interpreter_names)
{
	ck_assert(ap_py_name_matches("/usr/bin/python3.11"));
	ck_assert(ap_py_name_matches("/root/.pyenv/versions/3.12.1/lib/"
				     "libpython3.12.so.1.0"));
	ck_assert(ap_py_name_matches("python3"));
	ck_assert(!ap_py_name_matches("/usr/bin/python"));
	ck_assert(!ap_py_name_matches("/usr/lib/libc.so.6"));
	ck_assert(!ap_py_name_matches("/usr/bin/pythonista"));
	ck_assert_uint_eq(ap_py_name_version("/usr/lib/x86_64-linux-gnu/"
					     "libpython3.10.so.1.0"), 0x030a);
	ck_assert_uint_eq(ap_py_name_version("/usr/bin/python3"), 0);
	ck_assert_ptr_nonnull(ap_py_layout__find(0x030b));
	ck_assert_ptr_nonnull(ap_py_layout__find(0x030c));
	ck_assert_ptr_nonnull(ap_py_layout__find(0x030d));
	ck_assert_ptr_nonnull(ap_py_layout__find(0x0308));
	ck_assert_ptr_nonnull(ap_py_layout__find(0x030a));
	ck_assert_ptr_null(ap_py_layout__find(0x0307));
	ck_assert_ptr_null(ap_py_layout__find(0x030e));
}
END_TEST

START_TEST(version_by_name)
{
	const char *lib = "/root/.pyenv/versions/3.10.13/lib/"
			  "libpython3.10.so.1.0";
	char dir[] = "/tmp/ap-test-py.XXXXXX", link[64];
	struct ap_py_interp in;

	if (access(lib, R_OK)) {
		printf("version_by_name: %s not installed, skipped\n", lib);
		return;
	}
	ck_assert_int_eq(ap_py_interp__probe(lib, 0, &in), 1);
	ck_assert_uint_eq(in.version, 0x030a);
	ck_assert_ptr_eq(in.lay, ap_py_layout__find(0x030a));
	/* the same file by a 3.9 name: its "3.10.13" disagrees */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/libpython3.9.so.1.0", dir);
	ck_assert_int_eq(symlink(lib, link), 0);
	ck_assert_int_eq(ap_py_interp__probe(link, 0, &in), 1);
	unlink(link);
	rmdir(dir);
	ck_assert_uint_eq(in.version, 0);
	ck_assert_ptr_null(in.lay);
}
END_TEST

/*
 * The start of 3.13.0's _PyRuntime, its _Py_DebugOffsets (pyenv's
 * libpython3.13.so.1.0, read from its .PyRuntime section): u64 words
 * after the 8-byte cookie, by index into the struct.
 */
static void debug_image(uint64_t *w, size_t n)
{
	static const struct { int i; uint64_t v; } set[] = {
		{ 1, 0x030d00f0 }, { 3, 0x452b8 }, { 5, 0x278 },
		{ 9, 0x1cb0 }, { 21, 0x8 }, { 23, 0x48 }, { 24, 0x98 },
		{ 29, 0x8 }, { 30, 0x0 }, { 31, 0x38 }, { 33, 0x46 },
		{ 35, 0x70 }, { 36, 0x78 }, { 37, 0x80 }, { 38, 0x88 },
		{ 39, 0x44 }, { 43, 0xc8 }, { 45, 0x8 }, { 65, 0x10 },
		{ 66, 0x20 }, { 68, 0x20 }, { 69, 0x10 }, { 70, 0x28 },
	};
	size_t i;

	memset(w, 0, n * sizeof(*w));
	memcpy(w, "xdebugpy", 8);
	for (i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		w[set[i].i] = set[i].v;
}

START_TEST(debug_offsets)
{
	const struct ap_py_layout *t13 = ap_py_layout__find(0x030d), *l, *l2;
	const char *lib = "/root/.pyenv/versions/3.13.0/lib/"
			  "libpython3.13.so.1.0";
	struct ap_py_interp in;
	uint64_t w[72];

	/* 3.13.0's own offsets are the table's */
	debug_image(w, 72);
	ck_assert_int_eq(ap_py_debug_layout(w, sizeof(w), 0x030d00f0, &l), 0);
	ck_assert_ptr_eq(l, t13);
	/* a build whose thread states and code objects differ: its own
	 * offsets, one layout for both of its interpreters */
	w[9] = 0x1cc0;
	w[37] = 0x90;
	w[70] = 0x30;
	ck_assert_int_eq(ap_py_debug_layout(w, sizeof(w), 0x030d00f0, &l), 1);
	ck_assert_ptr_ne(l, t13);
	ck_assert_uint_eq(l->version, 0x030d);
	ck_assert_uint_eq(l->walk.threads_head, 0x1cc0);
	ck_assert_uint_eq(l->walk.co_qualname, 0x90);
	ck_assert_uint_eq(l->str_ascii, 0x30);
	ck_assert_uint_eq(l->str_compact, 0x40);
	ck_assert_uint_eq(l->walk.interp_head, t13->walk.interp_head);
	ck_assert_uint_eq(l->walk.cf_frame, 0x48);
	ck_assert_uint_eq(l->walk.ts_cframe, AP_PY_NONE);
	ck_assert_uint_eq(l->walk.entry_owner, 1);
	ck_assert_uint_eq(l->lines, t13->lines);
	ck_assert_int_eq(ap_py_debug_layout(w, sizeof(w), 0x030d00f0, &l2), 1);
	ck_assert_ptr_eq(l2, l);
	/* not taken: no cookie, another version than the file's, 3.14's
	 * struct, a free-threaded build, an offset past 16 bits, an image
	 * cut short */
	debug_image(w, 72);
	memcpy(w, "xdebugpz", 8);
	ck_assert_int_eq(ap_py_debug_layout(w, sizeof(w), 0x030d00f0, &l),
			 -ENOENT);
	ck_assert_ptr_null(l);
	debug_image(w, 72);
	ck_assert_int_eq(ap_py_debug_layout(w, sizeof(w), 0x030d01f0, &l),
			 -EINVAL);
	ck_assert_int_eq(ap_py_debug_layout(w, sizeof(w), 0x030e00f0, &l),
			 -EPROTONOSUPPORT);
	w[2] = 1;
	ck_assert_int_eq(ap_py_debug_layout(w, sizeof(w), 0x030d00f0, &l),
			 -EINVAL);
	debug_image(w, 72);
	w[69] = 0x18;
	ck_assert_int_eq(ap_py_debug_layout(w, sizeof(w), 0x030d00f0, &l),
			 -EINVAL);
	debug_image(w, 72);
	w[24] = 0x10000;
	ck_assert_int_eq(ap_py_debug_layout(w, sizeof(w), 0x030d00f0, &l),
			 -ERANGE);
	ck_assert_ptr_null(l);
	debug_image(w, 72);
	ck_assert_int_eq(ap_py_debug_layout(w, 200, 0x030d00f0, &l),
			 -EINVAL);
	/* the real file, where installed: its offsets read from it */
	if (access(lib, R_OK)) {
		printf("debug_offsets: %s not installed, skipped\n", lib);
		return;
	}
	ck_assert_int_eq(ap_py_interp__probe(lib, 0, &in), 1);
	ck_assert_uint_eq(in.version, 0x030d);
	ck_assert_ptr_eq(in.lay, t13);
}
END_TEST

static Suite *python_suite(void)
{
	Suite *s = suite_create("python");
	TCase *tc = tcase_create("python");

	tcase_add_test(tc, line_table);
	tcase_add_test(tc, line_table_old);
	tcase_add_test(tc, pyframe_bytes);
	tcase_add_test(tc, frame_addresses);
	tcase_add_test(tc, interpreter_names);
	tcase_add_test(tc, version_by_name);
	tcase_add_test(tc, debug_offsets);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(python_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
