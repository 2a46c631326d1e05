// SPDX-License-Identifier: GPL-2.0
/*
 * lib/unwind/cfi.c: the compiled table of a file says, at every row binutils'
 * `readelf -wF` prints for it, the same CFA rule, the same place of the
 * caller's rbp and rbx and the same return address rule.  Checked on libc (no
 * frame pointers, a signal trampoline, PLT rules), a workload built
 * without frame pointers, and aperture itself.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <limits.h>
#include <libelf.h>
#include <unistd.h>

#include "unwind/cfi.h"
#include "symbols/debugfile.h"

struct cmp_stats {
	unsigned long rows, same, expr, end;
	unsigned long rbx_cfa;		/* rows whose CFA is rbx-based */
};

/* one row of readelf's table against ours; 0 when they agree */
static int check_row(const struct ap_cfi_table *t, unsigned long long loc,
		     const char *cfa, const char *rbp, const char *rbx,
		     const char *ra, struct cmp_stats *s, char *why,
		     size_t whylen)
{
	const struct ap_cfi_row *r = ap_cfi__lookup(t, loc);
	unsigned int want_rbx = 0;
	int want_rbp = 0;
	long off;

	s->rows++;
	if (!r) {
		snprintf(why, whylen, "%llx: no row", loc);
		return -1;
	}
	if (!strcmp(ra, "u")) {
		s->end++;
		if (ap_cfi_row__kind(r) != AP_CFI_END) {
			snprintf(why, whylen, "%llx: ra undefined, kind %u",
				 loc, ap_cfi_row__kind(r));
			return -1;
		}
		return 0;
	}
	if (!strcmp(cfa, "exp")) {
		s->expr++;
		if (ap_cfi_row__kind(r) != AP_CFI_PLT &&
		    ap_cfi_row__kind(r) != AP_CFI_SIGNAL &&
		    ap_cfi_row__kind(r) != AP_CFI_BAD) {
			snprintf(why, whylen, "%llx: exp, kind %u", loc,
				 ap_cfi_row__kind(r));
			return -1;
		}
		return 0;
	}
	if (strcmp(ra, "c-8")) {
		if (ap_cfi_row__kind(r) != AP_CFI_BAD) {
			snprintf(why, whylen, "%llx: ra %s, kind %u", loc, ra,
				 ap_cfi_row__kind(r));
			return -1;
		}
		return 0;
	}
	if (sscanf(cfa, "rsp+%ld", &off) == 1) {
		if (ap_cfi_row__kind(r) != AP_CFI_RSP ||
		    ap_cfi_row__off(r) != off)
			goto differ;
	} else if (sscanf(cfa, "rbp+%ld", &off) == 1) {
		if (ap_cfi_row__kind(r) != AP_CFI_RBP ||
		    ap_cfi_row__off(r) != off)
			goto differ;
	} else if (sscanf(cfa, "rbx+%ld", &off) == 1) {
		if (ap_cfi_row__kind(r) != AP_CFI_RBX ||
		    ap_cfi_row__off(r) != off)
			goto differ;
		s->rbx_cfa++;
	} else if (ap_cfi_row__kind(r) != AP_CFI_BAD) {
		goto differ;
	}
	if (rbp && sscanf(rbp, "c-%ld", &off) == 1)
		want_rbp = (int)(-off / 8);
	if (r->rbp != want_rbp) {
		snprintf(why, whylen, "%llx: rbp %s, row says %d", loc,
			 rbp ? rbp : "-", r->rbp);
		return -1;
	}
	/* where pushes put it, or lost; undefined or the same: unchanged */
	if (rbx && sscanf(rbx, "c-%ld", &off) == 1 && !(off % 8) &&
	    off >= 16 && off <= 56)
		want_rbx = (unsigned int)(off / 8);
	else if (rbx && strcmp(rbx, "u") && strcmp(rbx, "s"))
		want_rbx = AP_CFI_RBX_LOST;
	if (ap_cfi_row__kind(r) != AP_CFI_BAD &&
	    ap_cfi_row__rbx(r) != want_rbx) {
		snprintf(why, whylen, "%llx: rbx %s, row says %u", loc,
			 rbx ? rbx : "-", ap_cfi_row__rbx(r));
		return -1;
	}
	s->same++;
	return 0;
differ:
	snprintf(why, whylen, "%llx: cfa %s, row kind %u off %lld", loc, cfa,
		 ap_cfi_row__kind(r), ap_cfi_row__off(r));
	return -1;
}

/* every row of `readelf -wF path` against the table t */
static void compare_table(const struct ap_cfi_table *tp, const char *path,
			  struct cmp_stats *s)
{
	const struct ap_cfi_table t = *tp;
	char cmd[512], line[4096], why[256];
	char cols[32][16];
	int ncols = 0, cfa_col = -1, rbp_col = -1, rbx_col = -1, ra_col = -1;
	int bad = 0;
	int in_fde = 0;
	FILE *f;

	memset(s, 0, sizeof(*s));
	ck_assert_uint_gt(t.nr, 0);
	snprintf(cmd, sizeof(cmd), "readelf -wF '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save = NULL, *v[32];
		unsigned long long loc;
		int n = 0, i;

		if (strstr(line, " LOC ")) {
			ncols = 0;
			cfa_col = rbp_col = rbx_col = ra_col = -1;
			for (tok = strtok_r(line, " \n", &save); tok && ncols < 32;
			     tok = strtok_r(NULL, " \n", &save)) {
				snprintf(cols[ncols], sizeof(cols[0]), "%s", tok);
				if (!strcmp(tok, "CFA"))
					cfa_col = ncols;
				else if (!strcmp(tok, "rbp"))
					rbp_col = ncols;
				else if (!strcmp(tok, "rbx"))
					rbx_col = ncols;
				else if (!strcmp(tok, "ra"))
					ra_col = ncols;
				ncols++;
			}
			continue;
		}
		/* a CIE's table is not code */
		if (strstr(line, " CIE")) {
			in_fde = 0;
			ncols = 0;
		} else if (strstr(line, " FDE ")) {
			in_fde = 1;
			ncols = 0;
		}
		if (!in_fde || !ncols || sscanf(line, "%llx ", &loc) != 1 ||
		    strlen(line) < 17 || line[16] != ' ')
			continue;
		for (tok = strtok_r(line, " \n", &save); tok && n < 32;
		     tok = strtok_r(NULL, " \n", &save))
			v[n++] = tok;
		if (n != ncols || cfa_col < 0 || ra_col < 0)
			continue;
		i = check_row(&t, loc, v[cfa_col], rbp_col >= 0 ? v[rbp_col] :
			      NULL, rbx_col >= 0 ? v[rbx_col] : NULL, v[ra_col],
			      s, why, sizeof(why));
		if (i && bad++ < 10)
			fprintf(stderr, "%s: %s\n", path, why);
	}
	pclose(f);
	ck_assert_msg(s->rows > 0, "readelf printed no rows for %s", path);
	ck_assert_msg(!bad, "%s: %d of %lu rows differ from readelf -wF",
		      path, bad, s->rows);
}

/* every row of `readelf -wF path` against the table compiled from path */
static void compare_with_readelf(const char *path, struct cmp_stats *s)
{
	struct ap_cfi_table t = { 0 };

	ck_assert_int_eq(ap_cfi__compile_path(path, &t), 0);
	compare_table(&t, path, s);
	ap_cfi_table__free(&t);
}

START_TEST(test_libc)
{
	struct cmp_stats s;

	compare_with_readelf("/lib/x86_64-linux-gnu/libc.so.6", &s);
	/* libc has thousands of functions, PLT rules and __restore_rt */
	ck_assert_uint_gt(s.same, 10000);
	ck_assert_uint_gt(s.expr, 0);
}
END_TEST

/* the dynamic loader's _dl_runtime_resolve_* realign the stack and keep
 * the old rsp in rbx: CFA rbx+32, rbx saved at CFA - 32 */
START_TEST(test_ld_so_rbx)
{
	char path[PATH_MAX];
	struct cmp_stats s;

	ck_assert_ptr_nonnull(realpath("/lib64/ld-linux-x86-64.so.2", path));
	compare_with_readelf(path, &s);
	ck_assert_uint_gt(s.rbx_cfa, 0);
}
END_TEST

static const char *build_path(const char *rel, char *buf, size_t len)
{
	const char *b = getenv("APERTURE_TEST_BUILD");

	snprintf(buf, len, "%s/%s", b ? b : "build", rel);
	return buf;
}

START_TEST(test_workload_and_self)
{
	struct cmp_stats s;
	char p[4096];

	compare_with_readelf(build_path("tests/workloads/nofp_chains", p,
					sizeof(p)), &s);
	ck_assert_uint_gt(s.same, 10);
	/* nofp_zdwarf keeps its .debug_frame, compressed, beside an
	 * .eh_frame that covers only the C runtime's start code: both */
	compare_with_readelf(build_path("tests/workloads/nofp_zdwarf", p,
					sizeof(p)), &s);
	ck_assert_uint_gt(s.same, 10);
	/* _start: the outermost frame has its return address undefined */
	compare_with_readelf(build_path("aperture", p, sizeof(p)), &s);
	ck_assert_uint_gt(s.same, 1000);
}
END_TEST

START_TEST(test_signal_trampoline)
{
	struct ap_cfi_table t = { 0 };
	size_t i, sig = 0, plt = 0, end = 0;

	ck_assert_int_eq(ap_cfi__compile_path("/lib/x86_64-linux-gnu/libc.so.6",
					      &t), 0);
	for (i = 0; i < t.nr; i++) {
		ck_assert(i == 0 || t.rows[i].pc > t.rows[i - 1].pc);
		sig += ap_cfi_row__kind(&t.rows[i]) == AP_CFI_SIGNAL;
		plt += ap_cfi_row__kind(&t.rows[i]) == AP_CFI_PLT;
		end += ap_cfi_row__kind(&t.rows[i]) == AP_CFI_END;
	}
	/* __restore_rt: the sigcontext's rsp at rsp + 160 */
	ck_assert_uint_eq(sig, 1);
	ck_assert_uint_gt(plt, 0);
	for (i = 0; i < t.nr; i++)
		if (ap_cfi_row__kind(&t.rows[i]) == AP_CFI_SIGNAL)
			ck_assert_int_eq(ap_cfi_row__off(&t.rows[i]), 160);
	ap_cfi_table__free(&t);
}
END_TEST

/* printf_positional's 33 KiB frame: the offset in units of 8 */
START_TEST(test_large_frame)
{
	struct ap_cfi_table t = { 0 };
	size_t i, scaled = 0;

	ck_assert_int_eq(ap_cfi__compile_path("/lib/x86_64-linux-gnu/libc.so.6",
					      &t), 0);
	for (i = 0; i < t.nr; i++) {
		if (!(t.rows[i].kind & AP_CFI_SCALED))
			continue;
		scaled++;
		ck_assert_int_gt(ap_cfi_row__off(&t.rows[i]), INT16_MAX);
	}
	ck_assert_uint_gt(scaled, 0);
	ap_cfi_table__free(&t);
}
END_TEST

static Elf *open_elf(const char *path, int *fd)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY);
	ck_assert_int_ge(*fd, 0);
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	ck_assert_ptr_nonnull(elf);
	return elf;
}

/* the table of the program at path with its separate debug file's rules
 * filled in, against readelf's rows for both */
static void check_debug_file(const char *path, const char *debug)
{
	struct ap_cfi_table own = { 0 }, dbg = { 0 };
	struct cmp_stats s;
	Elf *elf, *delf;
	int fd, dfd;

	elf = open_elf(path, &fd);
	ck_assert_int_eq(ap_cfi__compile(elf, &own), 0);
	dfd = ap_debugfile__open(elf, path, "/nonexistent");
	ck_assert_int_ge(dfd, 0);
	delf = elf_begin(dfd, ELF_C_READ_MMAP, NULL);
	ck_assert_int_eq(ap_cfi__compile_debug_frame(delf, &dbg), 0);
	ck_assert_int_eq(ap_cfi_table__fill(&own, &dbg), 0);
	compare_table(&own, debug, &s);
	ck_assert_uint_gt(s.same, 10);
	compare_table(&own, path, &s);
	elf_end(delf);
	close(dfd);
	elf_end(elf);
	close(fd);
	ap_cfi_table__free(&own);
	ap_cfi_table__free(&dbg);
}

/*
 * nofp_nocfi has .eh_frame only for the C runtime's start code; its own
 * rules are in the .debug_frame of nofp_nocfi.debug, named by its
 * .gnu_debuglink: the merged table has every row readelf prints for the
 * debug file, and the start code's rows too.
 */
START_TEST(test_separate_debug_file)
{
	char p[PATH_MAX], dp[PATH_MAX + 8];
	Elf *elf;
	int fd;

	ck_assert_ptr_nonnull(realpath(build_path("tests/workloads/nofp_nocfi",
						  dp, sizeof(dp)), p));
	elf = open_elf(p, &fd);
	/* a relative path has no directory to look in */
	ck_assert_int_eq(ap_debugfile__open(elf, "nofp_nocfi", "/nonexistent"),
			 -ENOENT);
	elf_end(elf);
	close(fd);
	snprintf(dp, sizeof(dp), "%s.debug", p);
	check_debug_file(p, dp);
}
END_TEST

/* nofp_zdebug.debug is compressed by objcopy (SHF_COMPRESSED); a copy in
 * the legacy form (.zdebug_frame) too */
START_TEST(test_compressed_debug_file)
{
	char dir[] = "/tmp/test_cfi.XXXXXX", p[PATH_MAX], dp[PATH_MAX + 8];
	char cmd[3 * PATH_MAX];

	ck_assert_ptr_nonnull(realpath(build_path("tests/workloads/nofp_zdebug",
						  dp, sizeof(dp)), p));
	snprintf(dp, sizeof(dp), "%s.debug", p);
	check_debug_file(p, dp);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp '%s' %s/nofp_zdebug && objcopy "
		 "--decompress-debug-sections --compress-debug-sections=zlib-gnu"
		 " '%s' %s/nofp_zdebug.debug && readelf -S %s/nofp_zdebug.debug"
		 " | grep -q zdebug_frame", p, dir, dp, dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(p, sizeof(p), "%s/nofp_zdebug", dir);
	snprintf(dp, sizeof(dp), "%s.debug", p);
	check_debug_file(p, dp);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* a .debug_frame of bytes that parse as no entry (here a compression
 * header without the flag that says so) ends the section: no rows, and no
 * endless loop over the same offset */
START_TEST(test_garbage_debug_frame)
{
	char dir[] = "/tmp/test_cfi.XXXXXX", p[PATH_MAX], src[PATH_MAX];
	char cmd[3 * PATH_MAX];
	static const unsigned char junk[32] = { 1, 0, 0, 0, 0, 0, 0, 0, 0xb7,
						1 };
	struct ap_cfi_table t = { 0 };
	FILE *f;
	Elf *elf;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/junk", dir);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	fclose(f);
	snprintf(cmd, sizeof(cmd), "objcopy --update-section .debug_frame=%s "
		 "'%s' %s/bad.debug", p, build_path("tests/workloads/"
		 "nofp_nocfi.debug", src, sizeof(src)), dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(p, sizeof(p), "%s/bad.debug", dir);
	elf = open_elf(p, &fd);
	ck_assert_int_eq(ap_cfi__compile_debug_frame(elf, &t), -ENOENT);
	ck_assert_uint_eq(t.nr, 0);
	elf_end(elf);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* a file at the debuglink's name that is not the debug file (another
 * build-id) is never used */
START_TEST(test_debug_file_mismatch)
{
	char dir[] = "/tmp/test_cfi.XXXXXX", p[4096], q[4096], cmd[8400];
	Elf *elf;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	build_path("tests/workloads/nofp_nocfi", p, sizeof(p));
	snprintf(cmd, sizeof(cmd), "cp '%s' %s/nofp_nocfi && "
		 "cp '%s' %s/nofp_nocfi.debug", p, dir,
		 build_path("tests/workloads/nofp_chains", q, sizeof(q)), dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(p, sizeof(p), "%s/nofp_nocfi", dir);
	elf = open_elf(p, &fd);
	ck_assert_int_eq(ap_debugfile__open(elf, p, "/nonexistent"), -ENOENT);
	elf_end(elf);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* the first table's rules win; the second fills only where it has none */
START_TEST(test_fill)
{
	struct ap_cfi_row a[] = {
		{ 0x100, AP_CFI_RSP, -1, 8 }, { 0x110, AP_CFI_NONE, 0, 0 },
	};
	struct ap_cfi_row b[] = {
		{ 0x80, AP_CFI_RSP, -1, 16 }, { 0x100, AP_CFI_RSP, -1, 24 },
		{ 0x120, AP_CFI_NONE, 0, 0 },
	};
	struct ap_cfi_row want[] = {
		{ 0x80, AP_CFI_RSP, -1, 16 }, { 0x100, AP_CFI_RSP, -1, 8 },
		{ 0x110, AP_CFI_RSP, -1, 24 }, { 0x120, AP_CFI_NONE, 0, 0 },
	};
	struct ap_cfi_table t = { 0 }, more = { b, 3, 3, 0, 0 };
	size_t i;

	t.rows = malloc(sizeof(a));
	memcpy(t.rows, a, sizeof(a));
	t.nr = t.cap = 2;
	ck_assert_int_eq(ap_cfi_table__fill(&t, &more), 0);
	ck_assert_uint_eq(t.nr, 4);
	for (i = 0; i < 4; i++)
		ck_assert_mem_eq(&t.rows[i], &want[i], sizeof(want[i]));
	ap_cfi_table__free(&t);
}
END_TEST

START_TEST(test_not_elf)
{
	struct ap_cfi_table t = { 0 };

	ck_assert_int_eq(ap_cfi__compile_path("/nonexistent", &t), -ENOENT);
	ck_assert_int_eq(ap_cfi__compile_path("/dev/null", &t), -EINVAL);
	ck_assert_int_ne(ap_cfi__compile_path("/etc/passwd", &t), 0);
	ck_assert_uint_eq(t.nr, 0);
}
END_TEST

/*
 * cfi.c runs most FDEs' programs itself and leaves the rest to libdw:
 * the table must be the one libdw's frame states alone give, row for
 * row, on files of every kind here (a compiler's half a million rows,
 * and CUDA's libraries, whose CIEs restore rules inside themselves, where
 * they are on the machine).
 */
static void compare_with_libdw(const char *path)
{
	struct ap_cfi_table fast = { 0 }, slow = { 0 };
	int ef, es;
	size_t i;

	if (access(path, R_OK))
		return;
	ap_cfi_libdw_only = 0;
	ef = ap_cfi__compile_path(path, &fast);
	ap_cfi_libdw_only = 1;
	es = ap_cfi__compile_path(path, &slow);
	ap_cfi_libdw_only = 0;
	ck_assert_msg(ef == es, "%s: %d, libdw's %d", path, ef, es);
	ck_assert_msg(fast.nr == slow.nr, "%s: %zu rows, libdw's %zu", path,
		      fast.nr, slow.nr);
	ck_assert_uint_eq(fast.fdes, slow.fdes);
	ck_assert_uint_eq(fast.bad, slow.bad);
	for (i = 0; i < fast.nr; i++)
		ck_assert_msg(!memcmp(&fast.rows[i], &slow.rows[i],
				      sizeof(fast.rows[i])),
			      "%s: row %zu at %#x differs from libdw's", path,
			      i, fast.rows[i].pc);
	ap_cfi_table__free(&fast);
	ap_cfi_table__free(&slow);
}

START_TEST(test_same_as_libdw)
{
	static const char *const files[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/ld-linux-x86-64.so.2",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/bin/python3.11",
		"/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus",
		"/usr/local/cuda/lib64/libnvvm.so.4",
	};
	char p[4096];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		compare_with_libdw(files[i]);
	compare_with_libdw(build_path("aperture", p, sizeof(p)));
	compare_with_libdw(build_path("tests/workloads/nofp_chains", p,
				      sizeof(p)));
}
END_TEST

static Suite *cfi_suite(void)
{
	Suite *s = suite_create("cfi");
	TCase *tc = tcase_create("compile");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_libc);
	tcase_add_test(tc, test_ld_so_rbx);
	tcase_add_test(tc, test_workload_and_self);
	tcase_add_test(tc, test_signal_trampoline);
	tcase_add_test(tc, test_large_frame);
	tcase_add_test(tc, test_separate_debug_file);
	tcase_add_test(tc, test_compressed_debug_file);
	tcase_add_test(tc, test_garbage_debug_frame);
	tcase_add_test(tc, test_debug_file_mismatch);
	tcase_add_test(tc, test_fill);
	tcase_add_test(tc, test_not_elf);
	tcase_add_test(tc, test_same_as_libdw);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cfi_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
