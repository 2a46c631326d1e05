// SPDX-License-Identifier: GPL-2.0
#include "annotate/annotate.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/format.h"
#include "report/session.h"
#include "symbols/symbolizer.h"
#include "util/hmap.h"
#include "util/vec.h"

/* the module of kernel functions: they have no file to read */
static const char kernel_module;

/* a function with samples: a module's [start, end) */
struct func {
	const void *module;
	uint64_t start, end;
	const char *file;		/* the ELF file; NULL: kernel */
	const char *dso;
	const char *name;		/* demangled */
	const char *linkage;		/* the ELF symbol's, or NULL */
	double count;
	struct ap_hmap at;		/* module address -> samples */
	/* where its code was sampled first: a runtime address of the
	 * function is a module address + delta in as */
	struct ap_addrspace *as;
	uint64_t delta;
};

/* a source file read for its lines */
struct src_file {
	const char *path;		/* the symbolizer's, interned */
	const char *comp_dir;		/* that a relative path is under */
	char *buf;
	char **lines;			/* lines[0] is line 1 */
	size_t nr;
};

struct ap_annotate {
	struct ap_session *s;
	struct ap_symbolizer *sym;
	struct func *funcs;
	size_t nr, cap;
	struct ap_hmap by_key;		/* hash of (module, start) -> index */
	struct src_file *srcs;
	size_t nr_srcs, cap_srcs;
};

struct ap_annotate *ap_annotate__new(struct ap_session *s)
{
	struct ap_annotate *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->s = s;
	a->sym = ap_session__symbolizer(s);
	ap_hmap__init(&a->by_key);
	return a;
}

void ap_annotate__free(struct ap_annotate *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nr; i++)
		ap_hmap__free(&a->funcs[i].at);
	for (i = 0; i < a->nr_srcs; i++) {
		free(a->srcs[i].buf);
		free(a->srcs[i].lines);
	}
	free(a->srcs);
	free(a->funcs);
	ap_hmap__free(&a->by_key);
	free(a);
}

/* the function of (module, start), made on first use; NULL: no memory */
static struct func *func_get(struct ap_annotate *a, const void *module,
			     uint64_t start, int *fresh)
{
	uint64_t key = ap_hash64((uintptr_t)module ^ ap_hash64(start));
	uint64_t *slot;
	struct func *f;

	/* another function of the same hash: the next key */
	for (;; key++) {
		if (key == AP_HMAP_EMPTY)
			continue;
		slot = ap_hmap__upsert(&a->by_key, key, fresh);
		if (!slot)
			return NULL;
		if (*fresh)
			break;
		f = &a->funcs[*slot];
		if (f->module == module && f->start == start)
			return f;
	}
	if (ap_grow((void **)&a->funcs, &a->cap, a->nr, sizeof(*a->funcs),
		    64)) {
		ap_hmap__remove(&a->by_key, key);
		return NULL;
	}
	*slot = a->nr;
	f = &a->funcs[a->nr++];
	memset(f, 0, sizeof(*f));
	f->module = module;
	f->start = start;
	ap_hmap__init(&f->at);
	return f;
}

static int func_count(struct func *f, uint64_t addr)
{
	uint64_t *slot;
	int fresh;

	slot = ap_hmap__upsert(&f->at, addr, &fresh);
	if (!slot)
		return -ENOMEM;
	*slot += 1;
	f->count += 1;
	return 0;
}

static int kernel_sample(struct ap_annotate *a, uint64_t ip)
{
	const struct ap_sym_loc *loc = ap_symbolizer__kernel(a->sym, ip);
	struct func *f;
	int fresh;

	/* a leaf in no known function has no code to show */
	if (!loc->nr_frames)
		return 0;
	f = func_get(a, &kernel_module, ip - loc->sym_offset, &fresh);
	if (!f)
		return -ENOMEM;
	if (fresh) {
		f->name = loc->frames[0].sym;
		f->dso = loc->dso;
	}
	return func_count(f, ip);
}

int ap_annotate__sample(struct ap_annotate *a, struct ap_addrspace *as,
			uint32_t stack_id)
{
	const struct ap_sym_loc *loc;
	struct ap_sym_code code;
	struct ap_stack st;
	struct func *f;
	uint64_t ip;
	int fresh;

	if (!stack_id || ap_session__stack(a->s, stack_id, &st) ||
	    !(st.nr_kernel + st.nr_user))
		return 0;
	ip = st.ips[0];
	if (st.nr_kernel)
		return kernel_sample(a, ip);
	if (ap_symbolizer__user_code(a->sym, as, ip, &code))
		return 0;
	f = func_get(a, code.module, code.start, &fresh);
	if (!f)
		return -ENOMEM;
	if (fresh) {
		loc = ap_symbolizer__user(a->sym, as, ip, 0);
		f->end = code.end;
		f->file = code.file;
		f->dso = code.dso;
		f->as = as;
		f->delta = ip - code.addr;
		f->name = loc->nr_frames ? loc->frames[loc->nr_frames - 1].sym :
			  code.name;
		if (strcmp(f->name, code.name))
			f->linkage = code.name;
	}
	return func_count(f, code.addr);
}

/* ---- source files ---- */

#define SRC_MAX_BYTES	(64u << 20)

static struct src_file *src_read(struct ap_annotate *a, const char *path,
				 const char *comp_dir)
{
	char full[4096];
	struct src_file *sf;
	struct stat sb;
	size_t i, n = 0, cap = 0;
	ssize_t got;
	char *p;
	int fd;

	for (i = 0; i < a->nr_srcs; i++)
		if (a->srcs[i].path == path && a->srcs[i].comp_dir == comp_dir)
			return &a->srcs[i];
	if (ap_grow((void **)&a->srcs, &a->cap_srcs, a->nr_srcs,
		    sizeof(*a->srcs), 8))
		return NULL;
	sf = &a->srcs[a->nr_srcs++];
	memset(sf, 0, sizeof(*sf));
	sf->path = path;
	sf->comp_dir = comp_dir;
	if (path[0] != '/' && comp_dir)
		snprintf(full, sizeof(full), "%s/%s", comp_dir, path);
	else
		snprintf(full, sizeof(full), "%s", path);
	/* a source that is gone or odd: the rows keep their line numbers */
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return sf;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size > SRC_MAX_BYTES)
		goto out;
	sf->buf = malloc(sb.st_size + 1);
	if (!sf->buf)
		goto out;
	got = read(fd, sf->buf, sb.st_size);
	if (got < 0)
		got = 0;
	sf->buf[got] = '\0';
	for (p = sf->buf; p < sf->buf + got;) {
		char *nl = memchr(p, '\n', sf->buf + got - p);

		if (ap_grow((void **)&sf->lines, &cap, n, sizeof(*sf->lines),
			    256))
			break;
		sf->lines[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		p = nl + 1;
	}
	sf->nr = n;
out:
	close(fd);
	return sf;
}

struct src_ctx {
	struct ap_annotate *a;
	const char *comp_dir;
};

static const char *src_line(void *ctx, const char *file, int line)
{
	struct src_ctx *c = ctx;
	struct src_file *sf = src_read(c->a, file, c->comp_dir);

	if (!sf || line <= 0 || (size_t)line > sf->nr)
		return NULL;
	return sf->lines[line - 1];
}

/* ---- the listing ---- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

void ap_annotate__listing(const struct ap_annotate_insn *v, size_t nr,
			  double total, int no_source, ap_annotate_src_fn src,
			  void *ctx, FILE *out)
{
	const char *func = NULL, *file = NULL, *text;
	int line = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct ap_annotate_insn *in = &v[i];
		int new_func = in->func && in->func != func;

		if (!no_source && new_func) {
			func = in->func;
			fprintf(out, "%8s :      %s()%s:\n", "", func,
				in->inlined ? " [inlined]" : "");
		}
		if (!no_source && in->file &&
		    (new_func || in->file != file || in->line != line)) {
			if (in->file != file)
				fprintf(out, "%8s :      %s:\n", "", in->file);
			file = in->file;
			line = in->line;
			text = src ? src(ctx, file, line) : NULL;
			if (text && *text)
				fprintf(out, "%8s : %-4d %s\n", "", line, text);
			else
				fprintf(out, "%8s : %d\n", "", line);
		}
		fprintf(out, "%8.2f :   %" PRIx64 ":   %s\n",
			total > 0 ? 100.0 * in->count / total : 0.0,
			in->addr, in->text);
	}
}

/* ---- reading and disassembling a function ---- */

/* The bytes of [start, end) in the ELF at path into a malloc'd *code;
 * the size, or -errno with why in why */
static long read_code(const char *path, uint64_t start, uint64_t end,
		      unsigned char **code, const char **why)
{
	long ret = -ENOENT;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Elf *elf;
	int fd;

	*why = "no section holds it";
	if (elf_version(EV_CURRENT) == EV_NONE) {
		*why = elf_errmsg(-1);
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return -errno;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh)) {
		*why = elf_errmsg(-1);
		ret = -EINVAL;
		goto out;
	}
	if (eh.e_machine != EM_X86_64) {
		*why = "not x86-64 code, the only kind disassembled";
		ret = -EOPNOTSUPP;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Shdr sh;
		uint64_t off;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    start < sh.sh_addr || start - sh.sh_addr >= sh.sh_size)
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			*why = "the file holds no code (a debug file)";
			break;
		}
		d = elf_getdata(scn, NULL);
		off = start - sh.sh_addr;
		if (!d || !d->d_buf || d->d_size < sh.sh_size) {
			*why = elf_errmsg(-1);
			ret = -EIO;
			break;
		}
		if (end > sh.sh_addr + sh.sh_size)
			end = sh.sh_addr + sh.sh_size;
		*code = malloc(end - start ? end - start : 1);
		if (!*code) {
			ret = -ENOMEM;
			*why = strerror(ENOMEM);
			break;
		}
		memcpy(*code, (unsigned char *)d->d_buf + off, end - start);
		ret = (long)(end - start);
		break;
	}
out:
	elf_end(elf);
	close(fd);
	return ret;
}

/* an operand register: the size it gives makes a suffix redundant */
static int has_reg_operand(const cs_insn *ci)
{
	const cs_x86 *x = ci->detail ? &ci->detail->x86 : NULL;
	int i;

	for (i = 0; x && i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_REG)
			return 1;
	return 0;
}

/* capstone's operands as objdump writes them: no space after a comma,
 * numbers in hex ("$0x1", "-0x8(%rbp)"), but not a scale or a register's
 * index inside parentheses ("(%rax,%rax,1)", "%st(1)") */
static void objdump_ops(const char *in, char *out, size_t len)
{
	size_t o = 0;
	int depth = 0;
	const char *p;

	for (p = in; *p && o + 24 < len; p++) {
		char *end;
		long long v;

		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		if (*p == ' ' && p > in && p[-1] == ',')
			continue;
		if (!depth && (*p == '-' || (*p >= '0' && *p <= '9')) &&
		    (p == in || strchr("$, ", p[-1])) &&
		    !(p[0] == '0' && p[1] == 'x') &&
		    !(p[0] == '-' && p[1] == '0' && p[2] == 'x')) {
			v = strtoll(p, &end, 10);
			if (end > p && *end != 'x') {
				o += snprintf(out + o, len - o, "%s0x%llx",
					      v < 0 ? "-" : "",
					      v < 0 ? -(unsigned long long)v :
					      (unsigned long long)v);
				p = end - 1;
				continue;
			}
		}
		out[o++] = *p;
	}
	out[o] = '\0';
}

/* capstone's AT&T as objdump spells it: without the size suffix a
 * register operand or 64-bit mode implies ("mov %rsp,%rbp", "call",
 * "ret"), branch targets as "1189 <hot_loop+0x40>" */
static uint64_t insn_text(struct ap_annotate *a, const struct func *f,
			  csh cs, const cs_insn *ci, char *buf, size_t len)
{
	static const char *const implied_q[] = {
		"callq", "retq", "jmpq", "leaveq", "pushq", "popq",
	};
	const char *base = cs_insn_name(cs, ci->id);
	char mn[32], ops[120];
	uint64_t to = 0;
	size_t i, l;

	snprintf(mn, sizeof(mn), "%s", ci->mnemonic);
	l = strlen(mn);
	for (i = 0; i < sizeof(implied_q) / sizeof(implied_q[0]); i++)
		if (!strcmp(mn, implied_q[i]))
			mn[--l] = '\0';
	if (base && l == strlen(base) + 1 && !strncmp(mn, base, l - 1) &&
	    strchr("bwlq", mn[l - 1]) && has_reg_operand(ci))
		mn[--l] = '\0';
	if ((cs_insn_group(cs, ci, X86_GRP_JUMP) ||
	     cs_insn_group(cs, ci, X86_GRP_CALL)) &&
	    !strncmp(ci->op_str, "0x", 2)) {
		const struct ap_sym_loc *loc = NULL;

		to = strtoull(ci->op_str, NULL, 16);
		if (f->as)
			loc = ap_symbolizer__user(a->sym, f->as, to + f->delta,
						  0);
		if (loc && loc->nr_frames && loc->sym_offset)
			snprintf(ops, sizeof(ops), "%" PRIx64 " <%s+0x%" PRIx64 ">",
				 to, loc->frames[loc->nr_frames - 1].sym,
				 loc->sym_offset);
		else if (loc && loc->nr_frames)
			snprintf(ops, sizeof(ops), "%" PRIx64 " <%s>", to,
				 loc->frames[loc->nr_frames - 1].sym);
		else
			snprintf(ops, sizeof(ops), "%" PRIx64, to);
	} else {
		objdump_ops(ci->op_str, ops, sizeof(ops));
	}
	if (ops[0])
		snprintf(buf, len, "%-6s %s", mn, ops);
	else
		snprintf(buf, len, "%s", mn);
	return to;
}

struct srcsum {
	const char *base;
	int line;
	double count;
};

static int srcsum_cmp(const void *x, const void *y)
{
	const struct srcsum *a = x, *b = y;
	int c;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	c = strcmp(a->base, b->base);
	return c ? c : a->line - b->line;
}

/* perf annotate --print-line's summary: the share of each source line */
static int print_summary(const struct func *f,
			 const struct ap_annotate_insn *v, size_t nr,
			 FILE *out)
{
	struct srcsum *sum = NULL;
	size_t i, j, n = 0, cap = 0;

	for (i = 0; i < nr; i++) {
		const char *base;

		if (!v[i].file || !(v[i].count > 0))
			continue;
		base = base_name(v[i].file);
		/* as report --sort srcline's key: basename:line */
		for (j = 0; j < n; j++)
			if (sum[j].line == v[i].line &&
			    !strcmp(sum[j].base, base))
				break;
		if (j == n) {
			if (ap_grow((void **)&sum, &cap, n, sizeof(*sum), 16)) {
				free(sum);
				return -ENOMEM;
			}
			sum[n++] = (struct srcsum){ base, v[i].line, 0 };
		}
		sum[j].count += v[i].count;
	}
	ap_sort(sum, n, sizeof(*sum), srcsum_cmp);
	fprintf(out, "\nSorted summary for file %s\n"
		     "----------------------------------------------\n\n",
		f->file);
	for (i = 0; i < n; i++)
		fprintf(out, " %7.2f %s:%d\n", 100.0 * sum[i].count / f->count,
			sum[i].base, sum[i].line);
	free(sum);
	return 0;
}

static void print_header(const struct func *f, FILE *out)
{
	char title[512];
	int len, i;

	len = snprintf(title, sizeof(title),
		       " Percent |\tSource code & Disassembly of %s for cpu-clock (%.0f samples, percent: local period)",
		       f->dso, f->count);
	fprintf(out, "%s\n", title);
	for (i = 0; i < len && i < (int)sizeof(title); i++)
		fputc('-', out);
	fprintf(out, "\n%8s :\n%8s :      Disassembly of section .text:\n"
		     "%8s :\n%8s :      %016" PRIx64 " <%s>:\n",
		"", "", "", "", f->start, f->linkage ? f->linkage : f->name);
}

/* the samples of f at each instruction of v (sorted by address);
 * returns those at no instruction's start or inside one */
static double spread_counts(const struct func *f, struct ap_annotate_insn *v,
			    const uint32_t *sizes, size_t nr)
{
	uint64_t addr, cnt;
	double lost = 0;
	size_t it = 0;

	while (ap_hmap__next(&f->at, &it, &addr, &cnt)) {
		size_t lo = 0, hi = nr;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (v[mid].addr <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && addr - v[lo - 1].addr < sizes[lo - 1])
			v[lo - 1].count += cnt;
		else
			lost += cnt;
	}
	return lost;
}

/* what disassembling a function gives: rows, and the addresses known to
 * start an instruction (samples, branch targets) to go on from past what
 * capstone cannot decode */
struct dis {
	struct dis_row {
		uint64_t addr;
		uint32_t size;
		char text[160];
	} *rows;
	size_t nr, cap;
	uint64_t *known;
	size_t nr_known, cap_known;
};

static int dis_known(struct dis *d, uint64_t addr)
{
	if (ap_grow((void **)&d->known, &d->cap_known, d->nr_known,
		    sizeof(*d->known), 64))
		return -ENOMEM;
	d->known[d->nr_known++] = addr;
	return 0;
}

static struct dis_row *dis_row(struct dis *d)
{
	if (ap_grow((void **)&d->rows, &d->cap, d->nr, sizeof(*d->rows), 64))
		return NULL;
	return &d->rows[d->nr++];
}

/* the first known instruction start in (after, end); 0: none */
static uint64_t dis_next(const struct dis *d, uint64_t after, uint64_t end)
{
	uint64_t best = 0;
	size_t i;

	for (i = 0; i < d->nr_known; i++)
		if (d->known[i] > after && d->known[i] < end &&
		    (!best || d->known[i] < best))
			best = d->known[i];
	return best;
}

/* code (len bytes at f->start) into d: capstone 4 stops at what it cannot
 * decode (some AVX-512), where a "(bad)" row, as objdump's, spans up to
 * the next known instruction start */
static int disassemble(struct ap_annotate *a, const struct func *f, csh cs,
		       const unsigned char *code, uint64_t len, struct dis *d)
{
	uint64_t off = 0, addr, cnt, next, to;
	struct dis_row *r;
	size_t it = 0, i, n;
	cs_insn *ci;

	while (ap_hmap__next(&f->at, &it, &addr, &cnt))
		if (dis_known(d, addr))
			return -ENOMEM;
	while (off < len) {
		n = cs_disasm(cs, code + off, len - off, f->start + off, 0, &ci);
		for (i = 0; i < n; i++) {
			r = dis_row(d);
			if (!r) {
				cs_free(ci, n);
				return -ENOMEM;
			}
			to = insn_text(a, f, cs, &ci[i], r->text,
				       sizeof(r->text));
			r->addr = ci[i].address;
			r->size = ci[i].size;
			off = r->addr + r->size - f->start;
			if (to && dis_known(d, to)) {
				cs_free(ci, n);
				return -ENOMEM;
			}
		}
		cs_free(ci, n);
		if (off >= len)
			break;
		next = dis_next(d, f->start + off, f->start + len);
		r = dis_row(d);
		if (!r)
			return -ENOMEM;
		r->addr = f->start + off;
		r->size = (next ? next : f->start + len) - r->addr;
		snprintf(r->text, sizeof(r->text),
			 "(bad)  (%u bytes capstone cannot decode)", r->size);
		if (!next)
			break;
		off = next - f->start;
	}
	return 0;
}

static int annotate_func(struct ap_annotate *a, const struct func *f,
			 const struct ap_annotate_opts *o, FILE *out)
{
	struct ap_annotate_insn *v = NULL;
	unsigned char *code = NULL;
	struct dis d = { 0 };
	struct src_ctx sc;
	uint32_t *sizes = NULL;
	size_t n = 0, i;
	const char *why;
	double lost;
	csh cs;
	long len;
	int err = 0;

	len = read_code(f->file, f->start, f->end, &code, &why);
	if (len < 0) {
		fprintf(out, "Cannot annotate %s: %s: %s\n", f->name, f->file,
			why);
		return len == -ENOMEM ? -ENOMEM : 0;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		fprintf(out, "Cannot annotate %s: capstone: cs_open failed\n",
			f->name);
		free(code);
		return 0;
	}
	cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	/* the operands' kinds: which size suffixes objdump leaves out */
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	err = disassemble(a, f, cs, code, len, &d);
	n = d.nr;
	v = calloc(n ? n : 1, sizeof(*v));
	sizes = calloc(n ? n : 1, sizeof(*sizes));
	if (err || !v || !sizes) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		v[i].addr = d.rows[i].addr;
		v[i].text = d.rows[i].text;
		sizes[i] = d.rows[i].size;
	}
	lost = spread_counts(f, v, sizes, n);
	for (i = 0; i < n && !o->no_source; i++) {
		const struct ap_sym_loc *loc;

		/* the line report --sort srcline gives the address */
		loc = ap_symbolizer__user(a->sym, f->as, v[i].addr + f->delta,
					  0);
		if (!loc->nr_frames)
			continue;
		v[i].file = loc->frames[0].file;
		v[i].line = loc->frames[0].line;
		v[i].func = loc->frames[0].sym;
		v[i].inlined = loc->nr_frames > 1;
	}
	if (!o->no_source) {
		err = print_summary(f, v, n, out);
		if (err)
			goto out;
	}
	fputc('\n', out);
	print_header(f, out);
	sc.a = a;
	sc.comp_dir = o->no_source ? NULL :
		      ap_symbolizer__comp_dir(a->sym, f->as,
					      f->start + f->delta);
	ap_annotate__listing(v, n, f->count, o->no_source, src_line, &sc, out);
	if (lost > 0)
		fprintf(out, "%8.2f :      (samples at no instruction's start)\n",
			100.0 * lost / f->count);
out:
	cs_close(&cs);
	free(d.rows);
	free(d.known);
	free(sizes);
	free(v);
	free(code);
	return err;
}

static int func_cmp(const void *x, const void *y)
{
	const struct func *a = *(const struct func *const *)x;
	const struct func *b = *(const struct func *const *)y;
	int c;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	return a->start < b->start ? -1 : a->start > b->start;
}

static int func_named(const struct func *f, const char *name)
{
	return !strcmp(f->name, name) ||
	       (f->linkage && !strcmp(f->linkage, name));
}

int ap_annotate__print(struct ap_annotate *a, const struct ap_annotate_opts *o,
		       FILE *out)
{
	struct func **by = malloc((a->nr ? a->nr : 1) * sizeof(*by));
	size_t i, shown = 0;
	int err = 0;

	if (!by)
		return -ENOMEM;
	for (i = 0; i < a->nr; i++)
		by[i] = &a->funcs[i];
	ap_sort(by, a->nr, sizeof(*by), func_cmp);
	for (i = 0; i < a->nr && !err; i++) {
		const struct func *f = by[i];

		if (o->symbol ? !func_named(f, o->symbol) :
		    (o->limit > 0 && shown >= (size_t)o->limit))
			continue;
		if (shown++)
			fputc('\n', out);
		if (f->module == &kernel_module) {
			/* perf annotate without a vmlinux says the same */
			fprintf(out, "Cannot annotate %s (%s, %.0f samples): kernel code needs a vmlinux, which the recording does not hold\n",
				f->name, f->dso, f->count);
			continue;
		}
		err = annotate_func(a, f, o, out);
	}
	free(by);
	if (err)
		return err;
	if (!shown) {
		if (o->symbol)
			fprintf(stderr, "aperture annotate: no CPU samples in a function named '%s'\n",
				o->symbol);
		else
			fprintf(stderr, "aperture annotate: no CPU samples with a stack to annotate\n");
		return -ENOENT;
	}
	return 0;
}
