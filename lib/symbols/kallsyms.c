// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbol tables: parsed from /proc/kallsyms at record time, rebuilt
 * from the file's AP_TAG_KSYM frames at report time.
 *
 * Compact, because record keeps the whole kernel's table for as long as it
 * runs: a symbol is 16 bytes in one array, sorted in place, and its name
 * lives once in one pool addressed by offset (a kernel of 120,000 text
 * symbols: about 5 MB; it was 10 MB with 40-byte records of pointers and
 * a separate 16-byte index, 27 MB with fixed 208-byte records).  The
 * array is sorted lazily, on the first find after an add; what find
 * returns is filled in for each call.
 */
#include "symbols/symbolizer.h"
#include "util/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KSYM_PAGE	4096ULL
#define NAME_MAX_LEN	127	/* what the file's ap_ksym keeps */
#define READ_BUF	(256 * 1024)

/* 16 bytes: the pool grows in insertion order, so that the name's offset
 * orders aliases as they were added, and the few sizes known (JIT
 * images') are in a table of their own */
struct ksym_ent {
	uint64_t addr;
	uint32_t name;		/* offset in the pool */
	uint16_t module;	/* index in modules; 0: vmlinux */
	char type;
	uint8_t sized;		/* in sizes */
};

struct ksym_sized {
	uint32_t name;		/* the symbol's, as in ksym_ent */
	uint64_t size;
};

struct ap_kallsyms {
	struct ksym_ent *v;	/* sorted by (addr, name) when sorted != 0 */
	size_t nr, cap;
	struct ksym_sized *sizes;	/* by name, as added */
	size_t nr_sizes, cap_sizes;
	int sorted;
	char *pool;		/* the names, NUL-terminated */
	size_t pool_len, pool_cap;
	char **modules;		/* modules[0] is "" */
	size_t nr_modules, cap_modules;
	uint16_t last_module;	/* modules come in runs */
	struct ap_kallsym out;	/* what find returned last */
};

struct ap_kallsyms *ap_kallsyms__new(void)
{
	struct ap_kallsyms *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->sorted = 1;
	k->modules = malloc(16 * sizeof(*k->modules));
	if (k->modules)
		k->modules[0] = strdup("");
	if (!k->modules || !k->modules[0]) {
		free(k->modules);
		free(k);
		return NULL;
	}
	k->nr_modules = 1;
	k->cap_modules = 16;
	return k;
}

void ap_kallsyms__free(struct ap_kallsyms *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nr_modules; i++)
		free(k->modules[i]);
	free(k->modules);
	free(k->v);
	free(k->sizes);
	free(k->pool);
	free(k);
}

size_t ap_kallsyms__count(const struct ap_kallsyms *k)
{
	return k ? k->nr : 0;
}

size_t ap_kallsyms__bytes(const struct ap_kallsyms *k)
{
	size_t n, i;

	if (!k)
		return 0;
	n = sizeof(*k) + k->cap * sizeof(*k->v) + k->pool_cap +
	    k->cap_sizes * sizeof(*k->sizes) +
	    k->cap_modules * sizeof(*k->modules);
	for (i = 0; i < k->nr_modules; i++)
		n += strlen(k->modules[i]) + 1;
	return n;
}

static const char *ent__name(const struct ap_kallsyms *k,
			     const struct ksym_ent *e)
{
	return k->pool + e->name;
}

static const char *ent__module(const struct ap_kallsyms *k,
			       const struct ksym_ent *e)
{
	return k->modules[e->module];
}

/* 0: unknown, runs to the next symbol */
static uint64_t ent__size(const struct ap_kallsyms *k,
			  const struct ksym_ent *e)
{
	size_t lo = 0, hi = k->nr_sizes;

	if (!e->sized)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->sizes[mid].name < e->name)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->nr_sizes && k->sizes[lo].name == e->name ?
	       k->sizes[lo].size : 0;
}

/* a copy of s[0..n) in the pool, NUL-terminated: its offset, or -ENOMEM */
static int64_t kallsyms__strdup(struct ap_kallsyms *k, const char *s, size_t n)
{
	size_t at = k->pool_len;

	if (n > NAME_MAX_LEN)
		n = NAME_MAX_LEN;
	if (k->pool_cap - k->pool_len < n + 1) {
		/* doubling: realloc moves a large pool by remapping it, and
		 * pages not written yet take no memory */
		size_t cap = k->pool_cap ? k->pool_cap * 2 : 65536;
		char *pool;

		if (cap > UINT32_MAX)
			return -ENOMEM;
		pool = realloc(k->pool, cap);
		if (!pool)
			return -ENOMEM;
		k->pool = pool;
		k->pool_cap = cap;
	}
	memcpy(k->pool + at, s, n);
	k->pool[at + n] = '\0';
	k->pool_len += n + 1;
	return at;
}

/* the index of module mod[0..n), added when new; -errno */
static int kallsyms__module(struct ap_kallsyms *k, const char *mod, size_t n)
{
	size_t i;
	char *name;

	if (!n)
		return 0;
	if (n > NAME_MAX_LEN)
		n = NAME_MAX_LEN;
	name = k->modules[k->last_module];
	if (strlen(name) == n && !memcmp(name, mod, n))
		return k->last_module;
	for (i = 1; i < k->nr_modules; i++)
		if (strlen(k->modules[i]) == n && !memcmp(k->modules[i], mod, n))
			return k->last_module = i;
	if (k->nr_modules > UINT16_MAX)
		return -E2BIG;
	if (k->nr_modules == k->cap_modules) {
		char **m = realloc(k->modules, 2 * k->cap_modules * sizeof(*m));

		if (!m)
			return -ENOMEM;
		k->modules = m;
		k->cap_modules *= 2;
	}
	name = strndup(mod, n);
	if (!name)
		return -ENOMEM;
	k->modules[k->nr_modules] = name;
	return k->last_module = k->nr_modules++;
}

static int kallsyms__push(struct ap_kallsyms *k, uint64_t addr, uint64_t size,
			  char type, const char *name, size_t name_len,
			  const char *mod, size_t mod_len)
{
	struct ksym_ent *dst;
	int64_t off;
	int m;

	if (k->nr == SIZE_MAX / sizeof(*k->v) / 2)
		return -E2BIG;
	if (k->nr == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 1024;
		struct ksym_ent *v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		k->cap = cap;
	}
	m = kallsyms__module(k, mod, mod_len);
	if (m < 0)
		return m;
	if (size && ap_grow((void **)&k->sizes, &k->cap_sizes, k->nr_sizes,
			    sizeof(*k->sizes), 64))
		return -ENOMEM;
	off = kallsyms__strdup(k, name, name_len);
	if (off < 0)
		return (int)off;
	dst = &k->v[k->nr];
	dst->addr = addr;
	dst->name = off;
	dst->module = m;
	dst->type = type;
	dst->sized = size != 0;
	if (size) {
		k->sizes[k->nr_sizes].name = off;
		k->sizes[k->nr_sizes++].size = size;
	}
	if (k->nr && k->v[k->nr - 1].addr > addr)
		k->sorted = 0;
	k->nr++;
	return 0;
}

/* a loaded table takes what it holds, not what doubling left spare */
static void kallsyms__fit(struct ap_kallsyms *k)
{
	void *p;

	if (k->nr && k->nr < k->cap) {
		p = realloc(k->v, k->nr * sizeof(*k->v));
		if (p) {
			k->v = p;
			k->cap = k->nr;
		}
	}
	if (k->pool_len && k->pool_len < k->pool_cap) {
		p = realloc(k->pool, k->pool_len);
		if (p) {
			k->pool = p;
			k->pool_cap = k->pool_len;
		}
	}
}

int ap_kallsyms__add(struct ap_kallsyms *k, const struct ap_ksym *sym)
{
	if (!k || !sym)
		return -EINVAL;
	return kallsyms__push(k, sym->addr, sym->size, 'T', sym->name,
			      strnlen(sym->name, sizeof(sym->name) - 1),
			      sym->module,
			      strnlen(sym->module, sizeof(sym->module) - 1));
}

void ap_kallsym__to_ksym(const struct ap_kallsym *k, struct ap_ksym *out)
{
	memset(out, 0, sizeof(*out));
	out->addr = k->addr;
	out->size = k->size;
	snprintf(out->name, sizeof(out->name), "%s", k->name);
	snprintf(out->module, sizeof(out->module), "%s", k->module);
}

static int ksym_ent__cmp(const void *a, const void *b)
{
	const struct ksym_ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Where a symbol of unknown size ends: at the next higher symbol of the same
 * module, else (the last one, or the last of vmlinux before the modules)
 * one page past its page, as perf's symbols__fixup_end does.  A BPF
 * program's JIT image (module "bpf") whose size the kernel did not tell
 * ends within its page: the programs are packed into shared pages among
 * gaps, and the next [bpf] symbol may be an unrelated program far away. */
static uint64_t kallsyms__end(const struct ap_kallsyms *k, size_t pos)
{
	const struct ksym_ent *sym = &k->v[pos];
	int bpf = !strcmp(ent__module(k, sym), "bpf");
	uint64_t size = ent__size(k, sym), page_end;
	size_t i;

	if (size)
		return sym->addr + size;
	page_end = (sym->addr & ~(KSYM_PAGE - 1)) + KSYM_PAGE;
	for (i = pos + 1; i < k->nr; i++) {
		const struct ksym_ent *next = &k->v[i];

		if (next->addr == sym->addr)
			continue;
		if (next->module == sym->module) {
			if (bpf && next->addr > page_end)
				return page_end;
			return next->addr;
		}
		break;
	}
	if (bpf)
		return page_end;
	return ((sym->addr + KSYM_PAGE - 1) & ~(KSYM_PAGE - 1)) + KSYM_PAGE;
}

/* Among aliases at one address, the one perf prints: a sized symbol (a
 * BPF image the kernel told the size of), then the last in the file.
 * perf's choose_best_symbol prefers a symbol of non-zero length before
 * binding, underscores or name length, and its symbols__fixup_end, run
 * before it on kallsyms, ends every alias at the next one's start: only
 * the last of a group keeps a length ("__x64_sys_getpid", not the
 * "__ia32_sys_getpid" before it).  Names enter the pool in file order. */
static int alias__better(const struct ksym_ent *a, const struct ksym_ent *b)
{
	if (!a->sized != !b->sized)
		return a->sized;
	return a->name > b->name;
}

const struct ap_kallsym *ap_kallsyms__find(struct ap_kallsyms *k,
					   uint64_t addr)
{
	const struct ksym_ent *best;
	size_t lo = 0, hi, first, i;

	if (!k || !k->nr)
		return NULL;
	if (!k->sorted) {
		qsort(k->v, k->nr, sizeof(*k->v), ksym_ent__cmp);
		k->sorted = 1;
	}

	/* the first entry above addr; the group before it starts <= addr */
	hi = k->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	first = lo - 1;
	while (first > 0 && k->v[first - 1].addr == k->v[lo - 1].addr)
		first--;

	/* aliases at one address: the one perf prints */
	best = NULL;
	for (i = first; i < lo; i++) {
		const struct ksym_ent *sym = &k->v[i];

		if (addr >= kallsyms__end(k, i))
			continue;
		if (!best || alias__better(sym, best))
			best = sym;
	}
	if (!best)
		return NULL;
	k->out.addr = best->addr;
	k->out.size = ent__size(k, best);
	k->out.name = ent__name(k, best);
	k->out.module = ent__module(k, best);
	k->out.type = best->type;
	return &k->out;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "ffffffff81000000 T _stext\t[module]" (line[len] is not part of it):
 * adds the symbol when its type letter is in types; counts a zero address
 * (kptr_restrict) in *zero.  0 or -errno. */
static int kallsyms__parse_line(struct ap_kallsyms *k, const char *line,
				size_t len, const char *types, size_t *zero,
				const struct ap_ksym_size *sizes, size_t nr_sizes)
{
	const char *p = line, *end = line + len, *name, *mod = NULL;
	size_t name_len, mod_len = 0;
	uint64_t addr = 0, size = 0;
	int digits = 0, v;
	char type;

	while (p < end && (v = hexval(*p)) >= 0) {
		addr = addr << 4 | (uint64_t)v;
		p++;
		digits++;
	}
	if (!digits || p == end || !is_space(*p))
		return 0;
	while (p < end && is_space(*p))
		p++;
	if (p == end)
		return 0;
	type = *p++;
	if (!strchr(types, type) || p == end || !is_space(*p))
		return 0;
	while (p < end && is_space(*p))
		p++;
	name = p;
	while (p < end && !is_space(*p) && *p != '\r')
		p++;
	name_len = p - name;
	if (!name_len)
		return 0;
	while (p < end && *p != '[')
		p++;
	if (p < end) {
		mod = ++p;
		while (p < end && *p != ']' && *p != '\r')
			p++;
		mod_len = p - mod;
	}
	if (!addr) {
		(*zero)++;
		return 0;
	}
	/* a BPF program's JIT image: its real length, where known */
	if (nr_sizes && mod_len == 3 && !memcmp(mod, "bpf", 3)) {
		size_t lo = 0, hi = nr_sizes;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (sizes[mid].addr < addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nr_sizes && sizes[lo].addr == addr)
			size = sizes[lo].size;
	}
	return kallsyms__push(k, addr, size, type, name, name_len, mod,
			      mod_len);
}

/* BPF programs the kernel's kallsyms does not list (net.core.
 * bpf_jit_kallsyms=0): named as the kernel would name them */
static int kallsyms__add_missing(struct ap_kallsyms *k,
				 const struct ap_ksym_size *sizes,
				 size_t nr_sizes)
{
	unsigned char *missing;
	size_t i;
	int ret = 0;

	if (!nr_sizes)
		return 0;
	missing = calloc(nr_sizes, 1);
	if (!missing)
		return -ENOMEM;
	for (i = 0; i < nr_sizes; i++) {
		const struct ap_kallsym *sym = ap_kallsyms__find(k,
								 sizes[i].addr);

		missing[i] = !sym || sym->addr != sizes[i].addr;
	}
	for (i = 0; i < nr_sizes && !ret; i++)
		if (missing[i])
			ret = kallsyms__push(k, sizes[i].addr, sizes[i].size,
					     't', sizes[i].name,
					     strlen(sizes[i].name), "bpf", 3);
	free(missing);
	return ret;
}

struct ap_kallsyms *ap_kallsyms__load(const char *path, int *err)
{
	return ap_kallsyms__load_sized(path, "tTwW", NULL, 0, err);
}

struct ap_kallsyms *ap_kallsyms__load_types(const char *path,
					    const char *types, int *err)
{
	return ap_kallsyms__load_sized(path, types, NULL, 0, err);
}

struct ap_kallsyms *ap_kallsyms__load_sized(const char *path,
					    const char *types,
					    const struct ap_ksym_size *sizes,
					    size_t nr_sizes, int *err)
{
	struct ap_kallsyms *k;
	size_t zero = 0, have = 0;
	char *buf = NULL;
	int fd = -1, ret = 0, skip = 0;

	if (!path)
		path = "/proc/kallsyms";
	k = ap_kallsyms__new();
	buf = malloc(READ_BUF);
	if (!k || !buf) {
		ret = -ENOMEM;
		goto out_free;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}

	/* read in large blocks and parse in place: fgets and strtoull
	 * per line were most of record's start-up */
	for (;;) {
		ssize_t n = read(fd, buf + have, READ_BUF - have);
		char *p, *nl, *lim;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out_free;
		}
		lim = buf + have + n;
		p = buf;
		while ((nl = memchr(p, '\n', lim - p))) {
			if (!skip) {
				ret = kallsyms__parse_line(k, p, nl - p, types,
							   &zero, sizes,
							   nr_sizes);
				if (ret)
					goto out_free;
			}
			skip = 0;
			p = nl + 1;
		}
		if (n == 0) {
			/* a last line without its newline */
			if (p < lim && !skip) {
				ret = kallsyms__parse_line(k, p, lim - p, types,
							   &zero, sizes,
							   nr_sizes);
				if (ret)
					goto out_free;
			}
			break;
		}
		have = lim - p;
		if (have == READ_BUF) {
			/* a line longer than the buffer: skip its tail */
			have = 0;
			skip = 1;
		} else {
			memmove(buf, p, have);
		}
	}
	/* kptr_restrict hides every address from the unprivileged */
	if (k->nr == 0) {
		ret = zero ? -EPERM : -ENODATA;
		goto out_free;
	}
	ret = kallsyms__add_missing(k, sizes, nr_sizes);
	if (!ret)
		kallsyms__fit(k);

out_free:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (ret) {
		ap_kallsyms__free(k);
		k = NULL;
	}
	if (err)
		*err = ret;
	return k;
}
