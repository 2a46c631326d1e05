// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for lib/symbols/symbolizer.c, lib/symbols/kallsyms.c, lib/symbols/buildid.c and
 * lib/symbols/demangle.c.
 *
 * The truth comes from outside the symbolizer: addresses from the .symtab
 * of the test workloads (read here with libelf), source lines from marker
 * comments in tests/workloads/symtest.c, the build-id from a hand-written
 * PT_NOTE walk.  Workloads are found under $APERTURE_TEST_BUILD (default
 * "build"), sources under $APERTURE_TEST_SRCDIR (default ".").
 */
#include "symbols/symbolizer.h"
#include "symbols/demangle.h"
#include "report/stackres.h"
#include "util/strtab.h"

#include <bpf/bpf.h>
#include <check.h>
#include <linux/bpf.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIE_BASE	0x555555554000ULL
#define PAGE		0x1000ULL

/* ---- helpers ---- */

static void build_path(const char *name, char *buf, size_t len)
{
	const char *build = getenv("APERTURE_TEST_BUILD");

	snprintf(buf, len, "%s/tests/workloads/%s", build ? build : "build",
		 name);
	ck_assert_msg(access(buf, R_OK) == 0,
		      "%s missing: build the workloads first", buf);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);

	return s && n >= m && strcmp(s + n - m, suffix) == 0;
}

/* the line of symtest.c holding a marker comment, e.g. SYMTEST_MARK_CALL */
static int marker_line(const char *marker)
{
	const char *dir = getenv("APERTURE_TEST_SRCDIR");
	char path[4096], tag[64], line[512];
	int n = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/workloads/symtest.c",
		 dir ? dir : ".");
	snprintf(tag, sizeof(tag), "/* %s */", marker);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s: set APERTURE_TEST_SRCDIR",
		      path);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, tag)) {
			ck_assert_msg(!found, "marker %s twice", marker);
			found = n;
		}
	}
	fclose(f);
	ck_assert_msg(found, "marker %s not in %s", marker, path);
	return found;
}

static Elf *elf_open(const char *path, int *fd)
{
	Elf *elf;

	ck_assert(elf_version(EV_CURRENT) != EV_NONE);
	*fd = open(path, O_RDONLY);
	ck_assert_int_ge(*fd, 0);
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	return elf;
}

static void elf_close(Elf *elf, int fd)
{
	elf_end(elf);
	close(fd);
}

/* value and size of a .symtab symbol */
static void elf_symbol(const char *path, const char *name, uint64_t *value,
		       uint64_t *size)
{
	Elf_Scn *scn = NULL;
	int fd, found = 0;
	Elf *elf = elf_open(path, &fd);

	while (!found && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && i < shdr.sh_size / shdr.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(data, i, &sym))
				continue;
			n = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (n && strcmp(n, name) == 0) {
				*value = sym.st_value;
				*size = sym.st_size;
				found = 1;
				break;
			}
		}
	}
	elf_close(elf, fd);
	ck_assert_msg(found, "%s not in the .symtab of %s", name, path);
}

/* where the workload is loaded: PIE_BASE for ET_DYN, 0 for ET_EXEC */
static uint64_t elf_base(const char *path)
{
	GElf_Ehdr ehdr;
	int fd;
	Elf *elf = elf_open(path, &fd);

	ck_assert_ptr_nonnull(gelf_getehdr(elf, &ehdr));
	elf_close(elf, fd);
	return ehdr.e_type == ET_DYN ? PIE_BASE : 0;
}

/* Maps path into as at base as the kernel would, one mapping per PT_LOAD
 * (what /proc/PID/maps shows), with the given build-id. */
static void map_file(struct ap_addrspace *as, const char *path,
		     uint64_t base, const uint8_t *id, int id_len)
{
	struct ap_mmap *m = calloc(1, sizeof(*m));
	size_t i, phnum;
	int fd, nr = 0;
	Elf *elf = elf_open(path, &fd);

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(elf_getphdrnum(elf, &phnum), 0);
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		ck_assert_ptr_nonnull(gelf_getphdr(elf, i, &ph));
		if (ph.p_type != PT_LOAD)
			continue;
		memset(m, 0, sizeof(*m));
		m->pid = 4242;
		m->start = base + (ph.p_vaddr & ~(PAGE - 1));
		m->end = base + ((ph.p_vaddr + ph.p_filesz + PAGE - 1) &
				 ~(PAGE - 1));
		m->pgoff = ph.p_offset & ~(PAGE - 1);
		m->build_id_len = id_len;
		memcpy(m->build_id, id, id_len);
		snprintf(m->path, sizeof(m->path), "%s", path);
		ck_assert_int_eq(ap_addrspace__add_mapping(as, m), 0);
		nr++;
	}
	elf_close(elf, fd);
	free(m);
	ck_assert_int_gt(nr, 0);
}

struct warnings {
	int count;
	char last[8192];
};

static void warn_cb(void *ctx, const char *msg)
{
	struct warnings *w = ctx;

	w->count++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

/* a symbolizer with symtest mapped for pid 4242 */
struct fixture {
	char path[4096];
	uint8_t id[AP_BUILD_ID_MAX];
	int id_len;
	uint64_t base;
	struct warnings warn;
	struct ap_symbolizer *s;
	struct ap_addrspace *as;
};

static void fixture__init(struct fixture *fx, const char *bin,
			  const struct ap_symbolizer_opts *opts)
{
	struct ap_symbolizer_opts o = { 0 };

	memset(fx, 0, sizeof(*fx));
	build_path(bin, fx->path, sizeof(fx->path));
	fx->id_len = ap_read_build_id(fx->path, fx->id, sizeof(fx->id));
	ck_assert_int_gt(fx->id_len, 0);
	fx->base = elf_base(fx->path);
	if (opts)
		o = *opts;
	o.warn = warn_cb;
	o.warn_ctx = &fx->warn;
	fx->s = ap_symbolizer__new(&o);
	ck_assert_ptr_nonnull(fx->s);
	fx->as = ap_symbolizer__addrspace(fx->s, 4242, 777);
	ck_assert_ptr_nonnull(fx->as);
	map_file(fx->as, fx->path, fx->base, fx->id, fx->id_len);
}

static void fixture__fini(struct fixture *fx)
{
	ap_symbolizer__free(fx->s);
}

static const struct ap_sym_frame *last_frame(const struct ap_sym_loc *loc)
{
	ck_assert_int_gt(loc->nr_frames, 0);
	return &loc->frames[loc->nr_frames - 1];
}

static uint64_t sym_addr(const struct fixture *fx, const char *name)
{
	uint64_t value, size;

	elf_symbol(fx->path, name, &value, &size);
	return fx->base + value;
}

/* ---- ap_addrspace__add_mapping, ap_addrspace__find ---- */

struct range {
	uint64_t start, end, pgoff;
};

static const struct {
	struct range init[3];
	int nr_init;
	struct range add;
	struct range want[5];
	int nr_want;
} mapping_cases[] = {
	/* disjoint, added out of order */
	{ { { 0x3000, 0x4000, 0 }, { 0x8000, 0x9000, 0 } }, 2,
	  { 0x5000, 0x6000, 0x10 },
	  { { 0x3000, 0x4000, 0 }, { 0x5000, 0x6000, 0x10 },
	    { 0x8000, 0x9000, 0 } }, 3 },
	{ { { 0x3000, 0x4000, 0 } }, 1, { 0x1000, 0x2000, 0x10 },
	  { { 0x1000, 0x2000, 0x10 }, { 0x3000, 0x4000, 0 } }, 2 },
	/* the same range again: replaced */
	{ { { 0x3000, 0x4000, 0 } }, 1, { 0x3000, 0x4000, 0x10 },
	  { { 0x3000, 0x4000, 0x10 } }, 1 },
	/* inside one: split in three, the tail keeps its file offset */
	{ { { 0x1000, 0x9000, 0x100000 } }, 1, { 0x3000, 0x4000, 0x10 },
	  { { 0x1000, 0x3000, 0x100000 }, { 0x3000, 0x4000, 0x10 },
	    { 0x4000, 0x9000, 0x103000 } }, 3 },
	/* across two: both trimmed */
	{ { { 0x1000, 0x3000, 0 }, { 0x3000, 0x6000, 0x5000 } }, 2,
	  { 0x2000, 0x4000, 0x10 },
	  { { 0x1000, 0x2000, 0 }, { 0x2000, 0x4000, 0x10 },
	    { 0x4000, 0x6000, 0x6000 } }, 3 },
	/* over three: all gone */
	{ { { 0x1000, 0x2000, 0 }, { 0x2000, 0x3000, 0 },
	    { 0x3000, 0x4000, 0 } }, 3,
	  { 0x1000, 0x4000, 0x10 }, { { 0x1000, 0x4000, 0x10 } }, 1 },
	/* touching is not overlapping */
	{ { { 0x1000, 0x2000, 0 }, { 0x3000, 0x4000, 0 } }, 2,
	  { 0x2000, 0x3000, 0x10 },
	  { { 0x1000, 0x2000, 0 }, { 0x2000, 0x3000, 0x10 },
	    { 0x3000, 0x4000, 0 } }, 3 },
};

START_TEST(test_add_mapping)
{
	struct ap_symbolizer *s = ap_symbolizer__new(NULL);
	struct ap_addrspace *as = ap_symbolizer__addrspace(s, 1, 2);
	struct ap_mmap *m = calloc(1, sizeof(*m));
	const struct ap_mmap *got;
	int i;

	ck_assert_ptr_nonnull(as);
	ck_assert_ptr_eq(ap_symbolizer__addrspace(s, 1, 2), as);
	ck_assert_ptr_ne(ap_symbolizer__addrspace(s, 1, 3), as);
	for (i = 0; i < mapping_cases[_i].nr_init; i++) {
		m->start = mapping_cases[_i].init[i].start;
		m->end = mapping_cases[_i].init[i].end;
		m->pgoff = mapping_cases[_i].init[i].pgoff;
		snprintf(m->path, sizeof(m->path), "/init%d", i);
		ck_assert_int_eq(ap_addrspace__add_mapping(as, m), 0);
	}
	m->start = mapping_cases[_i].add.start;
	m->end = mapping_cases[_i].add.end;
	m->pgoff = mapping_cases[_i].add.pgoff;
	snprintf(m->path, sizeof(m->path), "/added");
	ck_assert_int_eq(ap_addrspace__add_mapping(as, m), 0);

	for (i = 0; i < mapping_cases[_i].nr_want; i++) {
		const struct range *w = &mapping_cases[_i].want[i];

		got = ap_addrspace__find(as, w->start);
		ck_assert_ptr_nonnull(got);
		ck_assert_uint_eq(got->start, w->start);
		ck_assert_uint_eq(got->end, w->end);
		ck_assert_uint_eq(got->pgoff, w->pgoff);
		ck_assert_ptr_eq(ap_addrspace__find(as, w->end - 1), got);
	}
	got = ap_addrspace__find(as, mapping_cases[_i].add.start);
	ck_assert_str_eq(got->path, "/added");
	ck_assert_ptr_null(ap_addrspace__find(as, 0xfff));
	ck_assert_ptr_null(ap_addrspace__find(as, 0x9000));

	ap_addrspace__reset(as);
	ck_assert_ptr_null(ap_addrspace__find(as,
					      mapping_cases[_i].add.start));
	free(m);
	ap_symbolizer__free(s);
}
END_TEST

START_TEST(test_add_mapping_invalid)
{
	struct ap_symbolizer *s = ap_symbolizer__new(NULL);
	struct ap_addrspace *as = ap_symbolizer__addrspace(s, 1, 2);
	struct ap_mmap *m = calloc(1, sizeof(*m));

	m->start = 0x2000;
	m->end = 0x2000;
	ck_assert_int_eq(ap_addrspace__add_mapping(as, m), -EINVAL);
	ck_assert_int_eq(ap_addrspace__add_mapping(NULL, m), -EINVAL);
	ck_assert_int_eq(ap_addrspace__add_mapping(as, NULL), -EINVAL);
	ck_assert_ptr_null(ap_addrspace__find(NULL, 0x2000));
	ck_assert_ptr_null(ap_symbolizer__addrspace(NULL, 1, 2));
	ap_addrspace__reset(NULL);
	free(m);
	ap_symbolizer__free(s);
}
END_TEST

/* ---- ap_symbolizer__user ---- */

START_TEST(test_user_function)
{
	const struct ap_sym_loc *loc;
	struct fixture fx;
	uint64_t value, size;
	char buf[256];

	fixture__init(&fx, "symtest", NULL);
	elf_symbol(fx.path, "symtest_alpha", &value, &size);
	ck_assert_uint_gt(size, 4);

	loc = ap_symbolizer__user(fx.s, fx.as, fx.base + value + size / 2, 0);
	ck_assert_str_eq(last_frame(loc)->sym, "symtest_alpha");
	ck_assert_int_eq(last_frame(loc)->inlined, 0);
	ck_assert_str_eq(loc->dso, "symtest");
	ck_assert_str_eq(loc->dso_path, fx.path);
	ck_assert_uint_eq(loc->dso_offset, value + size / 2);
	ck_assert_uint_eq(loc->sym_offset, size / 2);
	ck_assert_int_eq(ap_sym_loc__format(loc, loc->nr_frames - 1, buf,
					    sizeof(buf)),
			 strlen("symtest_alpha"));
	ck_assert_str_eq(buf, "symtest_alpha");

	loc = ap_symbolizer__user(fx.s, fx.as, sym_addr(&fx, "symtest_beta"),
				  0);
	ck_assert_str_eq(last_frame(loc)->sym, "symtest_beta");
	ck_assert_uint_eq(loc->sym_offset, 0);
	loc = ap_symbolizer__user(fx.s, fx.as, sym_addr(&fx, "main"), 0);
	ck_assert_str_eq(last_frame(loc)->sym, "main");
	ck_assert_int_eq(fx.warn.count, 0);
	fixture__fini(&fx);
}
END_TEST

/* PLT stubs have no symbol: each is named "NAME@plt" as objdump (and
 * perf) name them, in .plt, .plt.sec (endbr64, bnd) and .plt.got */
static const char *const plt_cases[] = { "nofp_chains", "plt_ibt" };

START_TEST(test_user_plt)
{
	char cmd[4200], line[512], name[256];
	const struct ap_sym_loc *loc;
	struct fixture fx;
	unsigned long long addr;
	int seen = 0;
	FILE *f;

	fixture__init(&fx, plt_cases[_i], NULL);
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got"
		 " '%s' 2>/dev/null", fx.path);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		size_t len;

		/* (objdump calls PLT0 "first@plt-0x10") */
		if (sscanf(line, "%llx <%255[^>]>:", &addr, name) != 2 ||
		    (len = strlen(name)) < 5 || strcmp(name + len - 4, "@plt"))
			continue;
		loc = ap_symbolizer__user(fx.s, fx.as, fx.base + addr + 4, 0);
		ck_assert_str_eq(last_frame(loc)->sym, name);
		ck_assert_uint_eq(loc->sym_offset, 4);
		seen++;
	}
	pclose(f);
	/* getenv, qsort, sigaction, strtod, clock_gettime... */
	ck_assert_int_gt(seen, 5);
	fixture__fini(&fx);
}
END_TEST

START_TEST(test_user_srcline)
{
	const struct ap_sym_loc *loc;
	struct fixture fx;

	fixture__init(&fx, "symtest", NULL);
	loc = ap_symbolizer__user(fx.s, fx.as,
				  sym_addr(&fx, "symtest_alpha_mark"), 0);
	ck_assert_int_eq(loc->nr_frames, 1);
	ck_assert_str_eq(loc->frames[0].sym, "symtest_alpha");
	ck_assert_msg(ends_with(loc->frames[0].file, "/symtest.c"),
		      "file %s", loc->frames[0].file);
	ck_assert_int_eq(loc->frames[0].line,
			 marker_line("SYMTEST_MARK_ALPHA"));
	fixture__fini(&fx);
}
END_TEST

START_TEST(test_user_inline)
{
	const struct ap_sym_loc *loc;
	const struct ap_sym_frame *f;
	struct fixture fx;
	uint64_t ip;

	fixture__init(&fx, "symtest", NULL);
	ip = sym_addr(&fx, "symtest_inline_mark");
	loc = ap_symbolizer__user(fx.s, fx.as, ip, 0);
	ck_assert_int_ge(loc->nr_frames, 2);
	ck_assert_str_eq(loc->frames[0].sym, "symtest_inlined");
	ck_assert_int_eq(loc->frames[0].inlined, 1);
	ck_assert(ends_with(loc->frames[0].file, "/symtest.c"));
	ck_assert_int_eq(loc->frames[0].line,
			 marker_line("SYMTEST_MARK_INLINE"));
	f = last_frame(loc);
	ck_assert_str_eq(f->sym, "symtest_caller");
	ck_assert_int_eq(f->inlined, 0);
	ck_assert(ends_with(f->file, "/symtest.c"));
	ck_assert_int_eq(f->line, marker_line("SYMTEST_MARK_CALL"));
	ck_assert_uint_eq(loc->sym_offset, ip - sym_addr(&fx, "symtest_caller"));
	fixture__fini(&fx);
}
END_TEST

START_TEST(test_user_options)
{
	struct ap_symbolizer_opts o = { 0 };
	const struct ap_sym_loc *loc;
	struct fixture fx;

	o.no_inline = 1;
	fixture__init(&fx, "symtest", &o);
	loc = ap_symbolizer__user(fx.s, fx.as,
				  sym_addr(&fx, "symtest_inline_mark"), 0);
	ck_assert_int_eq(loc->nr_frames, 1);
	ck_assert_str_eq(loc->frames[0].sym, "symtest_caller");
	ck_assert_int_eq(loc->frames[0].line,
			 marker_line("SYMTEST_MARK_INLINE"));
	fixture__fini(&fx);

	o.no_inline = 0;
	o.no_srcline = 1;
	fixture__init(&fx, "symtest", &o);
	loc = ap_symbolizer__user(fx.s, fx.as,
				  sym_addr(&fx, "symtest_inline_mark"), 0);
	ck_assert_int_ge(loc->nr_frames, 2);
	ck_assert_str_eq(loc->frames[0].sym, "symtest_inlined");
	ck_assert_ptr_null(loc->frames[0].file);
	ck_assert_int_eq(loc->frames[0].line, 0);
	ck_assert_ptr_null(last_frame(loc)->file);
	fixture__fini(&fx);
}
END_TEST

START_TEST(test_user_return_addr)
{
	const struct ap_sym_loc *loc;
	struct fixture fx;
	uint64_t value, size;

	fixture__init(&fx, "symtest", NULL);
	elf_symbol(fx.path, "symtest_alpha", &value, &size);
	/* a call as the last instruction: its return address is past the
	 * function */
	loc = ap_symbolizer__user(fx.s, fx.as, fx.base + value + size, 1);
	ck_assert_str_eq(last_frame(loc)->sym, "symtest_alpha");
	ck_assert_uint_eq(loc->dso_offset, value + size - 1);
	loc = ap_symbolizer__user(fx.s, fx.as, fx.base + value + size, 0);
	ck_assert(loc->nr_frames == 0 ||
		  strcmp(last_frame(loc)->sym, "symtest_alpha") != 0);
	fixture__fini(&fx);
}
END_TEST

START_TEST(test_user_unknown)
{
	const struct ap_sym_loc *loc;
	struct fixture fx;
	char buf[64];

	fixture__init(&fx, "symtest", NULL);
	loc = ap_symbolizer__user(fx.s, fx.as, 0x1000, 0);
	ck_assert_ptr_nonnull(loc);
	ck_assert_int_eq(loc->nr_frames, 0);
	ck_assert_ptr_null(loc->dso);
	ck_assert_int_eq(ap_sym_loc__format(loc, 0, buf, sizeof(buf)), 9);
	ck_assert_str_eq(buf, "[unknown]");
	loc = ap_symbolizer__user(fx.s, NULL, 0x1000, 0);
	ck_assert_int_eq(loc->nr_frames, 0);
	loc = ap_symbolizer__user(NULL, fx.as, 0x1000, 0);
	ck_assert_int_eq(loc->nr_frames, 0);
	fixture__fini(&fx);
}
END_TEST

START_TEST(test_user_build_id_mismatch)
{
	struct ap_addrspace *as;
	const struct ap_sym_loc *loc;
	const struct ap_mmap *m;
	struct fixture fx;
	uint8_t wrong[AP_BUILD_ID_MAX];
	char buf[256], want[256];
	uint64_t ip;
	int i;

	fixture__init(&fx, "symtest", NULL);
	memcpy(wrong, fx.id, fx.id_len);
	wrong[0] ^= 0xff;
	as = ap_symbolizer__addrspace(fx.s, 4243, 1);
	map_file(as, fx.path, fx.base, wrong, fx.id_len);

	for (i = 0; i < 2; i++) {
		ip = sym_addr(&fx, i ? "symtest_beta" : "symtest_alpha") + 2;
		loc = ap_symbolizer__user(fx.s, as, ip, 0);
		m = ap_addrspace__find(as, ip);
		ck_assert_ptr_nonnull(m);
		ck_assert_int_eq(loc->nr_frames, 0);
		ck_assert_uint_eq(loc->dso_offset, ip - m->start + m->pgoff);
		snprintf(want, sizeof(want), "symtest+0x%" PRIx64,
			 ip - m->start + m->pgoff);
		ck_assert_int_gt(ap_sym_loc__format(loc, 0, buf, sizeof(buf)),
				 0);
		ck_assert_str_eq(buf, want);
	}
	ck_assert_int_eq(fx.warn.count, 1);
	ck_assert_ptr_nonnull(strstr(fx.warn.last, "build-id mismatch"));
	ck_assert_ptr_nonnull(strstr(fx.warn.last, fx.path));

	/* the right build-id for the same file still resolves */
	loc = ap_symbolizer__user(fx.s, fx.as, ip, 0);
	ck_assert_str_eq(last_frame(loc)->sym, "symtest_beta");
	ck_assert_int_eq(fx.warn.count, 1);
	fixture__fini(&fx);
}
END_TEST

/* a fixture over the file at path instead of a workload */
static void fixture__init_path(struct fixture *fx, const char *path)
{
	struct ap_symbolizer_opts o = { 0 };

	memset(fx, 0, sizeof(*fx));
	snprintf(fx->path, sizeof(fx->path), "%s", path);
	fx->id_len = ap_read_build_id(fx->path, fx->id, sizeof(fx->id));
	ck_assert_int_gt(fx->id_len, 0);
	fx->base = elf_base(fx->path);
	o.warn = warn_cb;
	o.warn_ctx = &fx->warn;
	fx->s = ap_symbolizer__new(&o);
	ck_assert_ptr_nonnull(fx->s);
	fx->as = ap_symbolizer__addrspace(fx->s, 4242, 777);
	ck_assert_ptr_nonnull(fx->as);
	map_file(fx->as, fx->path, fx->base, fx->id, fx->id_len);
}

/*
 * A debuglink names a file next to the library or in its .debug
 * directory, places a user who maps the library controls: FIFOs there
 * must not hang the symbolizer (libdwfl's own search opens them with a
 * plain open()).  A real debug file there is still found.
 */
START_TEST(test_user_debuglink_fifo)
{
	char dir[] = "/tmp/aperture-dbg-XXXXXX", src[4096], cmd[9000];
	char path[4200], keep[4200], fifo[4200];
	const struct ap_sym_loc *loc;
	struct fixture fx;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	build_path("symtest", src, sizeof(src));
	snprintf(cmd, sizeof(cmd),
		 "cd %s && objcopy --only-keep-debug '%s' st.debug && "
		 "objcopy --strip-debug --add-gnu-debuglink=st.debug '%s' st && "
		 "mv st.debug keep.debug && mkdir .debug && "
		 "mkfifo st.debug .debug/st.debug", dir, src, src);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/st", dir);
	snprintf(keep, sizeof(keep), "%s/keep.debug", dir);
	snprintf(fifo, sizeof(fifo), "%s/st.debug", dir);

	fixture__init_path(&fx, path);
	loc = ap_symbolizer__user(fx.s, fx.as,
				  sym_addr(&fx, "symtest_alpha_mark"), 0);
	ck_assert_str_eq(last_frame(loc)->sym, "symtest_alpha");
	ck_assert_int_eq(last_frame(loc)->line, 0);
	fixture__fini(&fx);

	ck_assert_int_eq(unlink(fifo), 0);
	ck_assert_int_eq(rename(keep, fifo), 0);
	fixture__init_path(&fx, path);
	loc = ap_symbolizer__user(fx.s, fx.as,
				  sym_addr(&fx, "symtest_alpha_mark"), 0);
	ck_assert_str_eq(last_frame(loc)->sym, "symtest_alpha");
	ck_assert_msg(loc->frames[0].file &&
		      ends_with(loc->frames[0].file, "/symtest.c"),
		      "no source line from the debuglink's file");
	ck_assert_int_eq(loc->frames[0].line,
			 marker_line("SYMTEST_MARK_ALPHA"));
	fixture__fini(&fx);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * The dwz file a debug file names (.gnu_debugaltlink) is a FIFO beside
 * it, and DEBUGINFOD_URLS names a server (nothing listens): libdwfl asks
 * the same callback for it, whose search used to end in libdwfl's own,
 * with a plain open() of the link.  Without it, libdw's dwarf_getalt()
 * would open the link itself: the DWARF is not read (one warning says
 * so, after one for the server), the debug file's symbols still name the
 * function.
 */
START_TEST(test_user_altlink_fifo)
{
	char dir[] = "/tmp/aperture-dbg-XXXXXX", src[4096], cmd[9000];
	char path[4200];
	const struct ap_sym_loc *loc;
	struct fixture fx;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	build_path("symtest", src, sizeof(src));
	snprintf(cmd, sizeof(cmd),
		 "cd %s && objcopy --only-keep-debug '%s' st.debug && "
		 "objcopy --strip-debug --add-gnu-debuglink=st.debug '%s' st && "
		 "printf 'alt.debug\\0' >alt && "
		 "head -c 20 /dev/urandom >>alt && "
		 "objcopy --add-section .gnu_debugaltlink=alt st.debug && "
		 "mkfifo alt.debug", dir, src, src);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/st", dir);
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:9", 1);
	snprintf(cmd, sizeof(cmd), "%s/cache", dir);
	setenv("DEBUGINFOD_CACHE_PATH", cmd, 1);

	fixture__init_path(&fx, path);
	loc = ap_symbolizer__user(fx.s, fx.as,
				  sym_addr(&fx, "symtest_alpha_mark"), 0);
	ck_assert_str_eq(last_frame(loc)->sym, "symtest_alpha");
	ck_assert_int_eq(loc->frames[0].line, 0);
	/* the server that refused (said once), then the dwz file */
	ck_assert_int_eq(fx.warn.count, 2);
	ck_assert_ptr_nonnull(strstr(fx.warn.last, "no dwz file 'alt.debug'"));
	fixture__fini(&fx);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_user_missing_file)
{
	struct ap_mmap *m = calloc(1, sizeof(*m));
	const struct ap_sym_loc *loc;
	struct fixture fx;
	char buf[256];

	fixture__init(&fx, "symtest", NULL);
	m->start = 0x7f0000000000;
	m->end = 0x7f0000010000;
	m->pgoff = 0x2000;
	snprintf(m->path, sizeof(m->path), "/nonexistent/dir/libgone.so");
	ck_assert_int_eq(ap_addrspace__add_mapping(fx.as, m), 0);
	loc = ap_symbolizer__user(fx.s, fx.as, 0x7f0000000123, 0);
	ck_assert_int_gt(ap_sym_loc__format(loc, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "libgone.so+0x2123");
	loc = ap_symbolizer__user(fx.s, fx.as, 0x7f0000000456, 0);
	ck_assert_int_gt(ap_sym_loc__format(loc, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "libgone.so+0x2456");
	ck_assert_int_eq(fx.warn.count, 1);
	ck_assert_ptr_nonnull(strstr(fx.warn.last, "/nonexistent/dir/libgone.so"));
	free(m);
	fixture__fini(&fx);
}
END_TEST

static const struct {
	const char *path;
	const char *want;
} special_cases[] = {
	{ "[vdso]", "[vdso]+0x10" },
	{ "[heap]", "[heap]+0x10" },
	{ "[stack]", "[stack]+0x10" },
	{ "", "[unknown]" },
};

START_TEST(test_user_special)
{
	struct ap_mmap *m = calloc(1, sizeof(*m));
	const struct ap_sym_loc *loc;
	struct fixture fx;
	char buf[64];

	fixture__init(&fx, "symtest", NULL);
	m->start = 0x7ffff7fc1000;
	m->end = 0x7ffff7fc3000;
	snprintf(m->path, sizeof(m->path), "%s", special_cases[_i].path);
	ck_assert_int_eq(ap_addrspace__add_mapping(fx.as, m), 0);
	loc = ap_symbolizer__user(fx.s, fx.as, 0x7ffff7fc1010, 0);
	ck_assert_int_eq(loc->nr_frames, 0);
	ck_assert_ptr_null(loc->dso_path);
	ck_assert_int_gt(ap_sym_loc__format(loc, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, special_cases[_i].want);
	ck_assert_int_eq(fx.warn.count, 0);
	free(m);
	fixture__fini(&fx);
}
END_TEST

static const struct {
	const char *mangled;
	const char *demangled;
} cxx_cases[] = {
	{ "_ZN6cxxsym5inner4workEm", "cxxsym::inner::work(unsigned long)" },
	{ "_ZN6cxxsym7counter4stepEm", "cxxsym::counter::step(unsigned long)" },
	{ "_ZN6cxxsym5twiceImEET_S1_",
	  "unsigned long cxxsym::twice<unsigned long>(unsigned long)" },
};

/* libiberty's demangler: C++, Rust (legacy without its hash, v0), D */
static const struct {
	const char *mangled;
	const char *demangled;
} lang_cases[] = {
	{ "_ZN6cxxsym5inner4workEm", "cxxsym::inner::work(unsigned long)" },
	{ "_ZN4core3fmt5write17h5b2ca4f8e4d6b5a1E", "core::fmt::write" },
	{ "_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar" },
	{ "_D3std5stdio7writelnFZv", "std.stdio.writeln()" },
};

START_TEST(test_demangle_languages)
{
	char *d = ap_demangle(lang_cases[_i].mangled);

	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d, lang_cases[_i].demangled);
	free(d);
}
END_TEST

START_TEST(test_demangle_not_mangled)
{
	ck_assert_ptr_null(ap_demangle("main"));
	ck_assert_ptr_null(ap_demangle("_start"));
	ck_assert_ptr_null(ap_demangle("_Z"));
	ck_assert_ptr_null(ap_demangle("_R"));
	ck_assert_ptr_null(ap_demangle("_ZN3foo"));	/* cut short */
	ck_assert_ptr_null(ap_demangle(NULL));
}
END_TEST

/* --no-params: the parameter list and what follows it go */
static const struct {
	const char *full;
	const char *short_;
} strip_cases[] = {
	{ "cxxsym::inner::work(unsigned long)", "cxxsym::inner::work" },
	{ "ns::f<int>(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) const",
	  "ns::f<int>" },
	{ "Foo::operator()(int) const", "Foo::operator()" },
	{ "(anonymous namespace)::g(int)", "(anonymous namespace)::g" },
	{ "{lambda(int)#1}::operator()(int) const [clone .cold]",
	  "{lambda(int)#1}::operator()" },
	{ "plain_c_function", "plain_c_function" },
};

START_TEST(test_demangle_strip_params)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", strip_cases[_i].full);
	ap_demangle_strip_params(buf);
	ck_assert_str_eq(buf, strip_cases[_i].short_);
}
END_TEST

START_TEST(test_user_cxx)
{
	struct ap_symbolizer_opts o = { 0 };
	const struct ap_sym_loc *loc;
	struct fixture fx;
	uint64_t ip;

	fixture__init(&fx, "cxxsym", NULL);
	ip = sym_addr(&fx, cxx_cases[_i].mangled) + 1;
	loc = ap_symbolizer__user(fx.s, fx.as, ip, 0);
	ck_assert_str_eq(last_frame(loc)->sym, cxx_cases[_i].demangled);
	ck_assert_str_eq(loc->dso, "cxxsym");
	fixture__fini(&fx);

	o.no_demangle = 1;
	fixture__init(&fx, "cxxsym", &o);
	loc = ap_symbolizer__user(fx.s, fx.as, ip, 0);
	ck_assert_str_eq(last_frame(loc)->sym, cxx_cases[_i].mangled);
	fixture__fini(&fx);
}
END_TEST

/* ---- ap_symbolizer__stats: the cache ---- */

START_TEST(test_stats_cache)
{
	struct ap_symbolizer_stats st;
	const struct ap_sym_loc *loc, *first;
	struct ap_addrspace *as2;
	struct fixture fx;
	uint64_t ip;
	int i;

	fixture__init(&fx, "symtest", NULL);
	ip = sym_addr(&fx, "symtest_alpha") + 3;
	first = ap_symbolizer__user(fx.s, fx.as, ip, 0);
	for (i = 1; i < 1000; i++) {
		loc = ap_symbolizer__user(fx.s, fx.as, ip, 0);
		ck_assert_ptr_eq(loc, first);
	}
	ap_symbolizer__stats(fx.s, &st);
	ck_assert_uint_eq(st.lookups, 1);
	ck_assert_uint_eq(st.cache_hits, 999);
	ck_assert_uint_eq(st.modules, 1);
	ck_assert_uint_eq(st.unresolved, 0);

	/* another process mapping the same file elsewhere: same module,
	 * same cached result */
	as2 = ap_symbolizer__addrspace(fx.s, 5000, 1);
	map_file(as2, fx.path, fx.base + 0x100000000ULL, fx.id, fx.id_len);
	loc = ap_symbolizer__user(fx.s, as2, ip + 0x100000000ULL, 0);
	ck_assert_ptr_eq(loc, first);
	ap_symbolizer__stats(fx.s, &st);
	ck_assert_uint_eq(st.lookups, 1);
	ck_assert_uint_eq(st.cache_hits, 1000);
	ck_assert_uint_eq(st.modules, 1);

	ap_symbolizer__user(fx.s, fx.as, 0x10, 0);
	ap_symbolizer__stats(fx.s, &st);
	ck_assert_uint_eq(st.unresolved, 1);
	ap_symbolizer__stats(NULL, &st);
	ck_assert_uint_eq(st.lookups, 0);
	fixture__fini(&fx);
}
END_TEST

/* ---- ap_symbolizer__kernel ---- */

START_TEST(test_kernel_ksyms)
{
	struct ap_symbolizer *s = ap_symbolizer__new(NULL);
	struct ap_symbolizer_stats st;
	const struct ap_sym_loc *loc;
	struct ap_ksym k = { 0 };
	char buf[128];

	/* unknown before any symbol */
	loc = ap_symbolizer__kernel(s, 0xffffffff81000010);
	ck_assert_int_eq(loc->nr_frames, 0);
	ck_assert_int_gt(ap_sym_loc__format(loc, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "[kernel.kallsyms]+0xffffffff81000010");

	k.addr = 0xffffffff81000000;
	snprintf(k.name, sizeof(k.name), "do_thing");
	ck_assert_int_eq(ap_symbolizer__add_ksym(s, &k), 0);
	k.addr = 0xffffffffc0000000;
	k.size = 0x100;
	snprintf(k.name, sizeof(k.name), "ext4_fn");
	snprintf(k.module, sizeof(k.module), "ext4");
	ck_assert_int_eq(ap_symbolizer__add_ksym(s, &k), 0);

	loc = ap_symbolizer__kernel(s, 0xffffffff81000010);
	ck_assert_int_eq(loc->nr_frames, 1);
	ck_assert_str_eq(loc->frames[0].sym, "do_thing");
	ck_assert_str_eq(loc->dso, "[kernel.kallsyms]");
	ck_assert_uint_eq(loc->sym_offset, 0x10);
	ck_assert_ptr_eq(ap_symbolizer__kernel(s, 0xffffffff81000010), loc);

	loc = ap_symbolizer__kernel(s, 0xffffffffc0000020);
	ck_assert_str_eq(loc->frames[0].sym, "ext4_fn");
	ck_assert_str_eq(loc->dso, "[ext4]");
	loc = ap_symbolizer__kernel(s, 0xffffffffc0000100);
	ck_assert_int_eq(loc->nr_frames, 0);

	ap_symbolizer__stats(s, &st);
	ck_assert_uint_eq(st.cache_hits, 1);
	ck_assert_uint_eq(st.lookups, 4);
	ck_assert_uint_eq(st.unresolved, 2);
	ck_assert_int_eq(ap_symbolizer__add_ksym(NULL, &k), -EINVAL);
	ck_assert_int_eq(ap_symbolizer__kernel(NULL, 1)->nr_frames, 0);
	ap_symbolizer__free(s);
}
END_TEST

/* the address of a global text symbol in /proc/kallsyms, or 0 */
static uint64_t proc_kallsyms_addr(const char *name)
{
	char line[512], n[256], type;
	unsigned long long addr;
	uint64_t ret = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, n) == 3 &&
		    type == 'T' && strcmp(n, name) == 0) {
			ret = addr;
			break;
		}
	}
	fclose(f);
	return ret;
}

START_TEST(test_kernel_proc)
{
	struct ap_symbolizer *s;
	const struct ap_sym_loc *loc;
	uint64_t addr = proc_kallsyms_addr("schedule");
	int err;

	if (!addr) {
		fprintf(stderr, "skip: /proc/kallsyms hides addresses\n");
		return;
	}
	s = ap_symbolizer__new(NULL);
	err = ap_symbolizer__load_kallsyms(s, NULL);
	ck_assert_int_eq(err, 0);
	loc = ap_symbolizer__kernel(s, addr + 1);
	ck_assert_int_eq(loc->nr_frames, 1);
	ck_assert_str_eq(loc->frames[0].sym, "schedule");
	ck_assert_str_eq(loc->dso, "[kernel.kallsyms]");
	ck_assert_uint_eq(loc->sym_offset, 1);
	ck_assert_int_eq(ap_symbolizer__load_kallsyms(s, "/nonexistent"),
			 -ENOENT);
	ap_symbolizer__free(s);
}
END_TEST

/* ---- ap_sym_loc__format ---- */

static const struct {
	const char *sym;	/* frame 0's name; NULL: no frame */
	const char *dso;
	uint64_t off;
	int frame;
	size_t len;
	int ret;
	const char *want;
} format_cases[] = {
	{ "symtest_alpha", "symtest", 0x10, 0, 64, 13, "symtest_alpha" },
	{ NULL, "symtest", 0x1234, 0, 64, 14, "symtest+0x1234" },
	{ NULL, "[vdso]", 0x0, 0, 64, 10, "[vdso]+0x0" },
	{ NULL, NULL, 0x1234, 0, 64, 9, "[unknown]" },
	{ "symtest_alpha", "symtest", 0, 0, 13, -ENOSPC, NULL },
	{ "symtest_alpha", "symtest", 0, 0, 14, 13, "symtest_alpha" },
	{ NULL, NULL, 0, 0, 0, -ENOSPC, NULL },
	{ "symtest_alpha", "symtest", 0, 1, 64, -EINVAL, NULL },
	{ NULL, "symtest", 0, 1, 64, -EINVAL, NULL },
	{ NULL, "symtest", 0, -1, 64, -EINVAL, NULL },
};

START_TEST(test_format)
{
	struct ap_sym_loc *loc = calloc(1, sizeof(*loc) +
					   sizeof(struct ap_sym_frame));
	char buf[64];

	loc->dso = format_cases[_i].dso;
	loc->dso_offset = format_cases[_i].off;
	if (format_cases[_i].sym) {
		loc->nr_frames = 1;
		loc->frames[0].sym = format_cases[_i].sym;
	}
	ck_assert_int_eq(ap_sym_loc__format(loc, format_cases[_i].frame, buf,
					    format_cases[_i].len),
			 format_cases[_i].ret);
	if (format_cases[_i].want)
		ck_assert_str_eq(buf, format_cases[_i].want);
	ck_assert_int_eq(ap_sym_loc__format(NULL, 0, buf, sizeof(buf)),
			 -EINVAL);
	free(loc);
}
END_TEST

/* ---- where a stack ends ---- */

static const struct {
	const char *frames;	/* leaf first, ';'-separated */
	int root;
} root_cases[] = {
	{ "leaf_spin;main;__libc_start_call_main;__libc_start_main;_start",
	  AP_ROOT_KNOWN },
	{ "worker;start_thread;clone3", AP_ROOT_KNOWN },
	/* Go: goroutines end at goexit, threads' own stacks at mstart */
	{ "main.leaf;main.middle;main.main;runtime.main;runtime.goexit.abi0",
	  AP_ROOT_KNOWN },
	{ "runtime.futex;runtime.mPark;runtime.schedule;runtime.mstart0;"
	  "runtime.mstart", AP_ROOT_KNOWN },
	{ "runtime.procresize;runtime.schedinit;runtime.rt0_go.abi0",
	  AP_ROOT_KNOWN },
	{ "leaf;mid", AP_ROOT_OTHER },
	{ "leaf;prog+0x1040", AP_ROOT_UNKNOWN },
	{ "leaf;[unknown]", AP_ROOT_UNKNOWN },
	{ "leaf;[truncated]", AP_ROOT_TRUNCATED },
};

START_TEST(test_stack_root)
{
	struct ap_strtab *strs = ap_strtab__new();
	struct ap_stackres r;
	char buf[256], *tok, *save = NULL;

	ck_assert_ptr_nonnull(strs);
	ap_stackres__init(&r, strs);
	snprintf(buf, sizeof(buf), "%s", root_cases[_i].frames);
	for (tok = strtok_r(buf, ";", &save); tok;
	     tok = strtok_r(NULL, ";", &save))
		ck_assert_int_eq(ap_stackres__push(&r, tok, "prog", 0), 0);
	ck_assert_int_eq(ap_stackres__root(&r), root_cases[_i].root);
	ap_stackres__free(&r);
	ap_strtab__free(strs);
}
END_TEST

/* a sample in one of aperture's BPF programs, or in a helper under it;
 * another tool's program, or a kernel symbol of a similar name, is not */
START_TEST(test_stack_own_bpf)
{
	static const struct {
		const char *sym, *dso;
		int own;
	} cases[] = {
		{ "bpf_prog_23fe4b090438b47b_ap_syscall_exit", "[bpf]", 1 },
		{ "bpf_prog_23fe4b090438b47b_sd_fw_ingress", "[bpf]", 0 },
		{ "bpf_prog_23fe4b09_ap_syscall_exit", "[bpf]", 0 },
		{ "bpf_prog_23fe4b090438b47b_ap_syscall_exit",
		  "[kernel.kallsyms]", 0 },
	};
	struct ap_strtab *strs = ap_strtab__new();
	struct ap_stackres r;
	size_t i;

	ck_assert_ptr_nonnull(strs);
	ap_stackres__init(&r, strs);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ap_stackres__clear(&r);
		ck_assert_int_eq(ap_stackres__push(&r, "htab_map_hash",
						   "[kernel.kallsyms]", 1), 0);
		ck_assert_int_eq(ap_stackres__own_bpf(&r), 0);
		ck_assert_int_eq(ap_stackres__push(&r, cases[i].sym,
						   cases[i].dso, 1), 0);
		ck_assert_int_eq(ap_stackres__push(&r, "bpf_trace_run2",
						   "[kernel.kallsyms]", 1), 0);
		ck_assert_int_eq(ap_stackres__own_bpf(&r), cases[i].own);
	}
	ap_stackres__free(&r);
	ap_strtab__free(strs);
}
END_TEST

/* ---- kallsyms ---- */

static const char crafted_kallsyms[] =
	"ffffffff81000100 T beta\n"
	"ffffffff81000000 T alpha\n"
	"ffffffff81000050 d data_sym\n"
	"ffffffff81000200 t gamma\n"
	"ffffffff81000200 T gamma_alias\n"
	"ffffffffc0001000 t modfn\t[ext4]\n"
	"ffffffffc0001100 T modfn2\t[ext4]\n"
	"ffffffffc0002000 t xfn\t[xfs]\n"
	"ffffffff81000300 W weakfn\n"
	"ffffffff81000400 r rodata\n"
	"ffffffff81000500 t __local_twin\n"
	"ffffffff81000500 W weak_twin\n"
	"ffffffff81000500 T global_twin\n"
	"ffffffff81000500 t local_longer_twin\n"
	"ffffffff81000600 t __do_sys_getpid\n"
	"ffffffff81000600 T __ia32_sys_getpid\n"
	"ffffffff81000600 T __x64_sys_getpid\n"
	"ffffffffc0010000 t bpf_prog_1111111111111111_first\t[bpf]\n"
	"ffffffffc0020800 t bpf_prog_2222222222222222_second\t[bpf]\n"
	"garbage line\n"
	"\n";

static const struct {
	uint64_t addr;
	const char *name;	/* NULL: none */
	const char *module;
} ksym_cases[] = {
	{ 0xffffffff80ffffff, NULL, NULL },
	{ 0xffffffff81000000, "alpha", "" },
	{ 0xffffffff81000080, "alpha", "" },
	{ 0xffffffff810000ff, "alpha", "" },
	{ 0xffffffff81000100, "beta", "" },
	/* aliases: the one perf prints, the last in the file (perf ends
	 * the others where it starts, and prefers a symbol with a length
	 * to one of any binding or name) */
	{ 0xffffffff81000250, "gamma_alias", "" },
	{ 0xffffffff81000300, "weakfn", "" },
	{ 0xffffffff81000500, "local_longer_twin", "" },
	{ 0xffffffff81000600, "__x64_sys_getpid", "" },
	/* the last of vmlinux ends a page past its page */
	{ 0xffffffff81001fff, "__x64_sys_getpid", "" },
	{ 0xffffffff81002000, NULL, NULL },
	{ 0xffffffffc0001050, "modfn", "ext4" },
	{ 0xffffffffc0001fff, "modfn2", "ext4" },
	{ 0xffffffffc0002010, "xfn", "xfs" },
	{ 0xffffffffc0003000, NULL, NULL },
	/* a BPF program of unknown size ends with its page, not at the
	 * next program: the gap is nobody's */
	{ 0xffffffffc0010ff0, "bpf_prog_1111111111111111_first", "bpf" },
	{ 0xffffffffc0011000, NULL, NULL },
	{ 0xffffffffc0020800, "bpf_prog_2222222222222222_second", "bpf" },
	{ 0xffffffffc0021000, NULL, NULL },
};

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/aperture-test-XXXXXX");
	int fd;

	ck_assert_ptr_nonnull(path);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

START_TEST(test_kallsyms_find)
{
	char *path = write_tmp(crafted_kallsyms);
	const struct ap_kallsym *k;
	struct ap_kallsyms *ks;
	int err = 1;

	ks = ap_kallsyms__load(path, &err);
	ck_assert_ptr_nonnull(ks);
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(ap_kallsyms__count(ks), 17);
	k = ap_kallsyms__find(ks, ksym_cases[_i].addr);
	if (!ksym_cases[_i].name) {
		ck_assert_ptr_null(k);
	} else {
		ck_assert_ptr_nonnull(k);
		ck_assert_str_eq(k->name, ksym_cases[_i].name);
		ck_assert_str_eq(k->module, ksym_cases[_i].module);
		/* the same symbol when asked again */
		k = ap_kallsyms__find(ks, ksym_cases[_i].addr);
		ck_assert_ptr_nonnull(k);
		ck_assert_str_eq(k->name, ksym_cases[_i].name);
	}
	ap_kallsyms__free(ks);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(test_kallsyms_add)
{
	struct ap_kallsyms *ks = ap_kallsyms__new();
	const struct ap_kallsym *k;
	struct ap_ksym sym = { 0 };
	int i;

	ck_assert_ptr_null(ap_kallsyms__find(ks, 0x1000));
	sym.addr = 0x1000;
	sym.size = 0x10;
	snprintf(sym.name, sizeof(sym.name), "sized");
	ck_assert_int_eq(ap_kallsyms__add(ks, &sym), 0);
	k = ap_kallsyms__find(ks, 0x100f);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->name, "sized");
	ck_assert_uint_eq(k->size, 0x10);
	ck_assert_ptr_null(ap_kallsyms__find(ks, 0x1010));
	ck_assert_ptr_null(ap_kallsyms__find(ks, 0xfff));

	/* many more, in descending order: the first still found, sized */
	for (i = 5000; i > 0; i--) {
		sym.addr = 0x100000 + i * 0x10;
		sym.size = 0;
		snprintf(sym.name, sizeof(sym.name), "s%d", i);
		ck_assert_int_eq(ap_kallsyms__add(ks, &sym), 0);
	}
	ck_assert_uint_eq(ap_kallsyms__count(ks), 5001);
	k = ap_kallsyms__find(ks, 0x1008);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->name, "sized");
	ck_assert_uint_eq(k->size, 0x10);
	ck_assert_uint_eq(k->addr, 0x1000);
	k = ap_kallsyms__find(ks, 0x100000 + 1234 * 0x10 + 3);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->name, "s1234");

	/* a module seen again after another one: the same name */
	sym.addr = 0x200000;
	snprintf(sym.module, sizeof(sym.module), "ext4");
	snprintf(sym.name, sizeof(sym.name), "e1");
	ck_assert_int_eq(ap_kallsyms__add(ks, &sym), 0);
	sym.addr = 0x300000;
	snprintf(sym.module, sizeof(sym.module), "xfs");
	snprintf(sym.name, sizeof(sym.name), "x1");
	ck_assert_int_eq(ap_kallsyms__add(ks, &sym), 0);
	sym.addr = 0x200100;
	snprintf(sym.module, sizeof(sym.module), "ext4");
	snprintf(sym.name, sizeof(sym.name), "e2");
	ck_assert_int_eq(ap_kallsyms__add(ks, &sym), 0);
	k = ap_kallsyms__find(ks, 0x200010);
	ck_assert_ptr_nonnull(k);
	/* e1 ends at e2, the next symbol of its module */
	ck_assert_str_eq(k->name, "e1");
	ck_assert_str_eq(k->module, "ext4");
	k = ap_kallsyms__find(ks, 0x200100);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->name, "e2");
	ck_assert_str_eq(k->module, "ext4");
	k = ap_kallsyms__find(ks, 0x300000);
	ck_assert_str_eq(k->module, "xfs");

	ck_assert_int_eq(ap_kallsyms__add(NULL, &sym), -EINVAL);
	ck_assert_int_eq(ap_kallsyms__add(ks, NULL), -EINVAL);
	ck_assert_ptr_null(ap_kallsyms__find(NULL, 0x1000));
	ck_assert_uint_eq(ap_kallsyms__count(NULL), 0);
	ap_kallsyms__free(ks);
	ap_kallsyms__free(NULL);
}
END_TEST

static const struct {
	const char *text;	/* NULL: a file that does not exist */
	int err;
} kallsyms_bad_cases[] = {
	/* kptr_restrict: every address reads as zero */
	{ "0000000000000000 T _stext\n0000000000000000 t foo [ext4]\n",
	  -EPERM },
	{ "", -ENODATA },
	{ "ffffffff81000000 D data_only\n", -ENODATA },
	{ NULL, -ENOENT },
};

START_TEST(test_kallsyms_load)
{
	char *path = NULL;
	struct ap_kallsyms *ks;
	int err = 0;

	if (kallsyms_bad_cases[_i].text)
		path = write_tmp(kallsyms_bad_cases[_i].text);
	ks = ap_kallsyms__load(path ? path : "/nonexistent/kallsyms", &err);
	ck_assert_ptr_null(ks);
	ck_assert_int_eq(err, kallsyms_bad_cases[_i].err);
	if (path) {
		unlink(path);
		free(path);
	}
}
END_TEST

/* [bpf] symbols bounded by the JIT lengths the caller read, programs
 * kallsyms lacks (bpf_jit_kallsyms=0) added under their kernel names */
START_TEST(test_kallsyms_bpf_sized)
{
	static const struct ap_ksym_size sizes[] = {
		{ 0xffffffffc0010000, 0x80, "bpf_prog_1111111111111111_first" },
		{ 0xffffffffc0010100, 0x40, "bpf_prog_3333333333333333_hidden" },
	};
	char *path = write_tmp(crafted_kallsyms);
	const struct ap_kallsym *k;
	struct ap_kallsyms *ks;
	int err = 1;

	ks = ap_kallsyms__load_sized(path, "tTwW", sizes, 2, &err);
	ck_assert_ptr_nonnull(ks);
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(ap_kallsyms__count(ks), 18);
	k = ap_kallsyms__find(ks, 0xffffffffc001007f);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->name, "bpf_prog_1111111111111111_first");
	ck_assert_uint_eq(k->size, 0x80);
	ck_assert_ptr_null(ap_kallsyms__find(ks, 0xffffffffc0010080));
	k = ap_kallsyms__find(ks, 0xffffffffc0010120);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->name, "bpf_prog_3333333333333333_hidden");
	ck_assert_str_eq(k->module, "bpf");
	ck_assert_ptr_null(ap_kallsyms__find(ks, 0xffffffffc0010140));
	ap_kallsyms__free(ks);
	unlink(path);
	free(path);
}
END_TEST

/* A BPF program loaded before the table is read is named by it, and only
 * over its JIT image (root only: addresses and bpf() need it) */
START_TEST(test_kallsyms_bpf_live)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	const struct ap_kallsym *k;
	struct ap_ksym_size *sizes;
	struct ap_kallsyms *ks;
	int fd, n, i, err = 1, found = 0;

	if (geteuid() != 0) {
		fprintf(stderr, "skip: loading a BPF program needs root\n");
		return;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ap_ut_ksym", "GPL",
			   insns, 2, NULL);
	ck_assert_int_ge(fd, 0);
	ks = ap_kallsyms__load_kernel(&err);
	ck_assert_ptr_nonnull(ks);
	n = ap_kallsyms__bpf_sizes(&sizes);
	ck_assert_int_gt(n, 0);
	for (i = 0; i < n; i++) {
		if (!strstr(sizes[i].name, "_ap_ut_ksym"))
			continue;
		found++;
		k = ap_kallsyms__find(ks, sizes[i].addr + sizes[i].size - 1);
		ck_assert_ptr_nonnull(k);
		ck_assert_str_eq(k->name, sizes[i].name);
		ck_assert_str_eq(k->module, "bpf");
		ck_assert_uint_eq(k->size, sizes[i].size);
		k = ap_kallsyms__find(ks, sizes[i].addr + sizes[i].size);
		ck_assert(!k || strcmp(k->name, sizes[i].name) != 0);
	}
	ck_assert_int_eq(found, 1);
	free(sizes);
	ap_kallsyms__free(ks);
	close(fd);
}
END_TEST

START_TEST(test_kallsyms_load_proc)
{
	uint64_t addr = proc_kallsyms_addr("schedule");
	struct ap_kallsyms *ks;
	const struct ap_kallsym *k;
	int err = 1;

	ks = ap_kallsyms__load(NULL, &err);
	if (!addr) {
		ck_assert(ks == NULL || ap_kallsyms__count(ks) > 0);
		ap_kallsyms__free(ks);
		fprintf(stderr, "skip: /proc/kallsyms hides addresses\n");
		return;
	}
	ck_assert_ptr_nonnull(ks);
	ck_assert_int_eq(err, 0);
	ck_assert_uint_gt(ap_kallsyms__count(ks), 1000);
	k = ap_kallsyms__find(ks, addr);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->addr, addr);
	k = ap_kallsyms__find(ks, addr + 1);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->name, "schedule");
	ck_assert_str_eq(k->module, "");
	ap_kallsyms__free(ks);
}
END_TEST

/* ---- ap_read_build_id ---- */

/* The build-id by hand: PT_NOTE segments of a 64-bit ELF, read with
 * read(2), no libelf. */
static int manual_build_id(const char *path, uint8_t *id)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY), i, ret = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &eh, sizeof(eh), 0), sizeof(eh));
	ck_assert_int_eq(eh.e_ident[EI_CLASS], ELFCLASS64);
	for (i = 0; i < eh.e_phnum && !ret; i++) {
		Elf64_Phdr ph;
		uint8_t *notes;
		size_t off = 0;

		ck_assert_int_eq(pread(fd, &ph, sizeof(ph),
				       eh.e_phoff + i * eh.e_phentsize),
				 sizeof(ph));
		if (ph.p_type != PT_NOTE)
			continue;
		notes = malloc(ph.p_filesz);
		ck_assert_int_eq(pread(fd, notes, ph.p_filesz, ph.p_offset),
				 (ssize_t)ph.p_filesz);
		while (off + sizeof(Elf64_Nhdr) <= ph.p_filesz) {
			Elf64_Nhdr *nh = (Elf64_Nhdr *)(notes + off);
			size_t align = ph.p_align == 8 ? 8 : 4;
			size_t name = off + sizeof(*nh);
			size_t desc = name + ((nh->n_namesz + align - 1) &
					      ~(align - 1));

			if (nh->n_type == NT_GNU_BUILD_ID &&
			    nh->n_namesz == 4 &&
			    memcmp(notes + name, "GNU", 4) == 0) {
				memcpy(id, notes + desc, nh->n_descsz);
				ret = nh->n_descsz;
				break;
			}
			off = desc + ((nh->n_descsz + align - 1) &
				      ~(align - 1));
		}
		free(notes);
	}
	close(fd);
	return ret;
}

START_TEST(test_read_build_id)
{
	uint8_t id[AP_BUILD_ID_MAX], id2[AP_BUILD_ID_MAX];
	uint8_t want[AP_BUILD_ID_MAX], zero[AP_BUILD_ID_MAX] = { 0 };
	char path[4096], *txt;
	int n;

	build_path("symtest", path, sizeof(path));
	n = ap_read_build_id(path, id, sizeof(id));
	ck_assert_int_eq(n, 20);
	ck_assert_int_ne(memcmp(id, zero, n), 0);
	ck_assert_int_eq(manual_build_id(path, want), n);
	ck_assert_int_eq(memcmp(id, want, n), 0);
	ck_assert_int_eq(ap_read_build_id(path, id2, sizeof(id2)), n);
	ck_assert_int_eq(memcmp(id, id2, n), 0);

	ck_assert_int_eq(ap_read_build_id(path, id, 4), -ENOBUFS);
	ck_assert_int_eq(ap_read_build_id("/nonexistent/x", id, sizeof(id)),
			 -ENOENT);
	ck_assert_int_eq(ap_read_build_id(NULL, id, sizeof(id)), -EINVAL);
	txt = write_tmp("not an ELF file\n");
	ck_assert_int_eq(ap_read_build_id(txt, id, sizeof(id)), -ENOEXEC);
	unlink(txt);
	free(txt);
}
END_TEST

/* ---- ap_demangle ---- */

static const struct {
	const char *in;
	const char *out;	/* NULL: not demangled */
} demangle_cases[] = {
	{ "_ZN3foo3barEv", "foo::bar()" },
	{ "_ZN3foo3barIiEEvT_", "void foo::bar<int>(int)" },
	{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
	  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
	{ "_Z3bazv.cold", "baz() [clone .cold]" },
	{ "main", NULL },
	{ "_Zgarbage", NULL },
	{ "", NULL },
	{ NULL, NULL },
};

START_TEST(test_demangle)
{
	char *out = ap_demangle(demangle_cases[_i].in);

	if (demangle_cases[_i].out)
		ck_assert_str_eq(out, demangle_cases[_i].out);
	else
		ck_assert_ptr_null(out);
	free(out);
}
END_TEST

#define NR(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *symbolizer_suite(void)
{
	Suite *s = suite_create("symbolizer");
	TCase *tc;

	tc = tcase_create("ap_addrspace__add_mapping");
	tcase_add_loop_test(tc, test_add_mapping, 0, NR(mapping_cases));
	tcase_add_test(tc, test_add_mapping_invalid);
	suite_add_tcase(s, tc);

	tc = tcase_create("ap_symbolizer__user");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_user_function);
	tcase_add_test(tc, test_user_srcline);
	tcase_add_loop_test(tc, test_user_plt, 0, NR(plt_cases));
	tcase_add_test(tc, test_user_inline);
	tcase_add_test(tc, test_user_options);
	tcase_add_test(tc, test_user_return_addr);
	tcase_add_test(tc, test_user_unknown);
	tcase_add_test(tc, test_user_build_id_mismatch);
	tcase_add_test(tc, test_user_missing_file);
	tcase_add_test(tc, test_user_debuglink_fifo);
	tcase_add_test(tc, test_user_altlink_fifo);
	tcase_add_loop_test(tc, test_user_special, 0, NR(special_cases));
	tcase_add_loop_test(tc, test_user_cxx, 0, NR(cxx_cases));
	tcase_add_loop_test(tc, test_demangle_strip_params, 0, NR(strip_cases));
	tcase_add_loop_test(tc, test_demangle_languages, 0, NR(lang_cases));
	tcase_add_test(tc, test_demangle_not_mangled);
	suite_add_tcase(s, tc);

	tc = tcase_create("ap_symbolizer__stats");
	tcase_add_test(tc, test_stats_cache);
	suite_add_tcase(s, tc);

	tc = tcase_create("ap_symbolizer__kernel");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_kernel_ksyms);
	tcase_add_test(tc, test_kernel_proc);
	suite_add_tcase(s, tc);

	tc = tcase_create("ap_sym_loc__format");
	tcase_add_loop_test(tc, test_format, 0, NR(format_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("ap_stackres__root");
	tcase_add_loop_test(tc, test_stack_root, 0, NR(root_cases));
	tcase_add_test(tc, test_stack_own_bpf);
	suite_add_tcase(s, tc);
	return s;
}

static Suite *kallsyms_suite(void)
{
	Suite *s = suite_create("kallsyms");
	TCase *tc;

	tc = tcase_create("ap_kallsyms__find");
	tcase_add_loop_test(tc, test_kallsyms_find, 0, NR(ksym_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("ap_kallsyms__add");
	tcase_add_test(tc, test_kallsyms_add);
	suite_add_tcase(s, tc);

	tc = tcase_create("ap_kallsyms__load");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_kallsyms_load, 0, NR(kallsyms_bad_cases));
	tcase_add_test(tc, test_kallsyms_load_proc);
	tcase_add_test(tc, test_kallsyms_bpf_sized);
	tcase_add_test(tc, test_kallsyms_bpf_live);
	suite_add_tcase(s, tc);
	return s;
}

static Suite *buildid_suite(void)
{
	Suite *s = suite_create("buildid");
	TCase *tc = tcase_create("ap_read_build_id");

	tcase_add_test(tc, test_read_build_id);
	suite_add_tcase(s, tc);
	return s;
}

static Suite *demangle_suite(void)
{
	Suite *s = suite_create("demangle");
	TCase *tc = tcase_create("ap_demangle");

	tcase_add_loop_test(tc, test_demangle, 0, NR(demangle_cases));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(symbolizer_suite());
	int failed;

	srunner_add_suite(sr, kallsyms_suite());
	srunner_add_suite(sr, buildid_suite());
	srunner_add_suite(sr, demangle_suite());
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
