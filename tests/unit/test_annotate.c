// SPDX-License-Identifier: GPL-2.0
/*
 * annotate's interleaving (lib/annotate/annotate.c) on a crafted function:
 * a source row before each instruction whose line differs from the one
 * before it (and none when it does not), a file row when the file
 * changes, a function row when the innermost function does, inlined
 * functions marked; shares of the given total; --no-source leaves the
 * instructions alone.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/annotate.h"

static const char *text_of(void *ctx, const char *file, int line)
{
	(void)ctx;
	if (!strcmp(file, "a.c") && line == 3)
		return "x += mix(x);";
	if (!strcmp(file, "mix.h") && line == 7)
		return "return x * 3;";
	return NULL;		/* unreadable */
}

/* host() at a.c:3, mix() inlined from mix.h:7, back to host at a.c:3,
 * then a line whose text is not known, then an address of no line */
/* the symbolizer's strings are interned: one pointer per name */
static const char a_c[] = "a.c", mix_h[] = "mix.h";
static const char host[] = "host", mix[] = "mix";
static const struct ap_annotate_insn insns[] = {
	{ 0x1000, "push   %rbp", 0, a_c, 3, host, 0 },
	{ 0x1001, "mov    %rsp,%rbp", 1, a_c, 3, host, 0 },
	{ 0x1004, "imul   %rdx,%rax", 6, mix_h, 7, mix, 1 },
	{ 0x1008, "add    %rdx,%rax", 2, mix_h, 7, mix, 1 },
	{ 0x100b, "mov    %rax,-0x8(%rbp)", 0, a_c, 3, host, 0 },
	{ 0x100f, "pop    %rbp", 1, a_c, 9, host, 0 },
	{ 0x1010, "ret", 0, NULL, 0, NULL, 0 },
};
#define NR (sizeof(insns) / sizeof(insns[0]))

static char *listing(int no_source)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ap_annotate__listing(insns, NR, 10, no_source, text_of, NULL, f);
	fclose(f);
	return buf;
}

START_TEST(interleaved)
{
	static const char want[] =
		"         :      host():\n"
		"         :      a.c:\n"
		"         : 3    x += mix(x);\n"
		"    0.00 :   1000:   push   %rbp\n"
		"   10.00 :   1001:   mov    %rsp,%rbp\n"
		"         :      mix() [inlined]:\n"
		"         :      mix.h:\n"
		"         : 7    return x * 3;\n"
		"   60.00 :   1004:   imul   %rdx,%rax\n"
		"   20.00 :   1008:   add    %rdx,%rax\n"
		"         :      host():\n"
		"         :      a.c:\n"
		"         : 3    x += mix(x);\n"
		"    0.00 :   100b:   mov    %rax,-0x8(%rbp)\n"
		"         : 9\n"
		"   10.00 :   100f:   pop    %rbp\n"
		"    0.00 :   1010:   ret\n";
	char *got = listing(0);

	ck_assert_str_eq(got, want);
	free(got);
}
END_TEST

START_TEST(no_source)
{
	static const char want[] =
		"    0.00 :   1000:   push   %rbp\n"
		"   10.00 :   1001:   mov    %rsp,%rbp\n"
		"   60.00 :   1004:   imul   %rdx,%rax\n"
		"   20.00 :   1008:   add    %rdx,%rax\n"
		"    0.00 :   100b:   mov    %rax,-0x8(%rbp)\n"
		"   10.00 :   100f:   pop    %rbp\n"
		"    0.00 :   1010:   ret\n";
	char *got = listing(1);

	ck_assert_str_eq(got, want);
	free(got);
}
END_TEST

static Suite *annotate_suite(void)
{
	Suite *s = suite_create("annotate");
	TCase *tc = tcase_create("listing");

	tcase_add_test(tc, interleaved);
	tcase_add_test(tc, no_source);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(annotate_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
