// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbol tables: parsed from /proc/kallsyms at record time, rebuilt
 * from the file's AP_TAG_KSYM frames at report time.
 *
 * Compact, because record keeps the whole kernel's table for as long as it
 * runs: a symbol is 40 bytes and its name lives once in a pool of 64 KiB
 * blocks (a kernel of 120,000 text symbols: about 8 MB, not the 27 MB of
 * fixed 208-byte records).  Symbols and names live in blocks that never
 * move, so a pointer returned by find stays valid until ap_kallsyms__free,
 * whatever is added later.  The address index is sorted lazily, on the
 * first find after an add.
 */
#include "symbolizer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KSYM_CHUNK	1024
#define KSYM_PAGE	4096ULL
#define NAME_BLOCK	65536
#define NAME_MAX_LEN	127	/* what the file's ap_ksym keeps */
#define READ_BUF	(256 * 1024)

struct ksym_ref {
	uint64_t addr;
	size_t idx;		/* insertion order: ties keep the first added */
};

struct ap_kallsyms {
	struct ap_kallsym **chunks;
	size_t nr_chunks;
	size_t cap_chunks;
	size_t nr;
	struct ksym_ref *index;	/* nr entries, sorted when sorted != 0 */
	size_t cap_index;
	int sorted;
	char **blocks;		/* the name pool */
	size_t nr_blocks;
	size_t cap_blocks;
	size_t block_used;	/* bytes used in blocks[nr_blocks - 1] */
	const char *last_module;	/* modules come in runs: one copy each */
};

struct ap_kallsyms *ap_kallsyms__new(void)
{
	struct ap_kallsyms *k = calloc(1, sizeof(*k));

	if (k)
		k->sorted = 1;
	return k;
}

void ap_kallsyms__free(struct ap_kallsyms *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nr_chunks; i++)
		free(k->chunks[i]);
	for (i = 0; i < k->nr_blocks; i++)
		free(k->blocks[i]);
	free(k->chunks);
	free(k->blocks);
	free(k->index);
	free(k);
}

size_t ap_kallsyms__count(const struct ap_kallsyms *k)
{
	return k ? k->nr : 0;
}

static struct ap_kallsym *kallsyms__at(const struct ap_kallsyms *k, size_t idx)
{
	return &k->chunks[idx / KSYM_CHUNK][idx % KSYM_CHUNK];
}

/* a copy of s[0..n) in the pool, NUL-terminated; NULL when out of memory */
static const char *kallsyms__strdup(struct ap_kallsyms *k, const char *s,
				    size_t n)
{
	char *dst;

	if (n > NAME_MAX_LEN)
		n = NAME_MAX_LEN;
	if (!k->nr_blocks || k->block_used + n + 1 > NAME_BLOCK) {
		char *block;

		if (k->nr_blocks == k->cap_blocks) {
			size_t cap = k->cap_blocks ? k->cap_blocks * 2 : 16;
			char **blocks = realloc(k->blocks,
						cap * sizeof(*blocks));

			if (!blocks)
				return NULL;
			k->blocks = blocks;
			k->cap_blocks = cap;
		}
		block = malloc(NAME_BLOCK);
		if (!block)
			return NULL;
		k->blocks[k->nr_blocks++] = block;
		k->block_used = 0;
	}
	dst = k->blocks[k->nr_blocks - 1] + k->block_used;
	memcpy(dst, s, n);
	dst[n] = '\0';
	k->block_used += n + 1;
	return dst;
}

static int kallsyms__push(struct ap_kallsyms *k, uint64_t addr, uint64_t size,
			  char type, const char *name, size_t name_len,
			  const char *mod, size_t mod_len)
{
	struct ap_kallsym *dst;

	if (k->nr == k->nr_chunks * KSYM_CHUNK) {
		struct ap_kallsym *chunk;

		if (k->nr_chunks == k->cap_chunks) {
			size_t cap = k->cap_chunks ? k->cap_chunks * 2 : 16;
			struct ap_kallsym **chunks;

			chunks = realloc(k->chunks, cap * sizeof(*chunks));
			if (!chunks)
				return -ENOMEM;
			k->chunks = chunks;
			k->cap_chunks = cap;
		}
		chunk = malloc(KSYM_CHUNK * sizeof(*chunk));
		if (!chunk)
			return -ENOMEM;
		k->chunks[k->nr_chunks++] = chunk;
	}
	if (k->nr == k->cap_index) {
		size_t cap = k->cap_index ? k->cap_index * 2 : KSYM_CHUNK;
		struct ksym_ref *index;

		index = realloc(k->index, cap * sizeof(*index));
		if (!index)
			return -ENOMEM;
		k->index = index;
		k->cap_index = cap;
	}

	dst = kallsyms__at(k, k->nr);
	dst->addr = addr;
	dst->size = size;
	dst->type = type;
	dst->name = kallsyms__strdup(k, name, name_len);
	if (!dst->name)
		return -ENOMEM;
	if (!mod_len) {
		dst->module = "";
	} else if (k->last_module && strlen(k->last_module) == mod_len &&
		   !memcmp(k->last_module, mod, mod_len)) {
		dst->module = k->last_module;
	} else {
		dst->module = kallsyms__strdup(k, mod, mod_len);
		if (!dst->module)
			return -ENOMEM;
		k->last_module = dst->module;
	}
	if (k->nr && k->index[k->nr - 1].addr > addr)
		k->sorted = 0;
	k->index[k->nr].addr = addr;
	k->index[k->nr].idx = k->nr;
	k->nr++;
	return 0;
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

static int ksym_ref__cmp(const void *a, const void *b)
{
	const struct ksym_ref *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Where a symbol of unknown size ends: at the next higher symbol of the same
 * module, else (the last one, or the last of vmlinux before the modules)
 * one page past its page, as perf's symbols__fixup_end does.  A BPF
 * program's JIT image (module "bpf") whose size the kernel did not tell
 * ends within its page: the programs are packed into shared pages among
 * gaps, and the next [bpf] symbol may be an unrelated program far away. */
static uint64_t kallsyms__end(const struct ap_kallsyms *k, size_t pos)
{
	const struct ap_kallsym *sym = kallsyms__at(k, k->index[pos].idx);
	uint64_t page_end;
	size_t i;

	if (sym->size)
		return sym->addr + sym->size;
	page_end = (sym->addr & ~(KSYM_PAGE - 1)) + KSYM_PAGE;
	for (i = pos + 1; i < k->nr; i++) {
		const struct ap_kallsym *next;

		if (k->index[i].addr == sym->addr)
			continue;
		next = kallsyms__at(k, k->index[i].idx);
		if (strcmp(next->module, sym->module) == 0) {
			if (!strcmp(sym->module, "bpf") &&
			    next->addr > page_end)
				return page_end;
			return next->addr;
		}
		break;
	}
	if (!strcmp(sym->module, "bpf"))
		return page_end;
	return ((sym->addr + KSYM_PAGE - 1) & ~(KSYM_PAGE - 1)) + KSYM_PAGE;
}

static size_t underscores(const char *name)
{
	return strspn(name, "_");
}

/* kallsyms' type letter as an ELF binding: 2 global, 1 local, 0 weak */
static int binding(char type)
{
	if (type == 'w' || type == 'W' || type == 'v' || type == 'V')
		return 0;
	return type >= 'A' && type <= 'Z' ? 2 : 1;
}

/* perf's choose_best_symbol: a sized symbol, then not weak, then global,
 * then fewer leading underscores, then the longer name */
static int alias__better(const struct ap_kallsym *a, const struct ap_kallsym *b)
{
	size_t ua, ub, la, lb;

	if (!a->size != !b->size)
		return a->size != 0;
	if (binding(a->type) != binding(b->type))
		return binding(a->type) > binding(b->type);
	ua = underscores(a->name);
	ub = underscores(b->name);
	if (ua != ub)
		return ua < ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	return la > lb;
}

const struct ap_kallsym *ap_kallsyms__find(struct ap_kallsyms *k,
					   uint64_t addr)
{
	const struct ap_kallsym *best;
	size_t lo = 0, hi, first, i;

	if (!k || !k->nr)
		return NULL;
	if (!k->sorted) {
		qsort(k->index, k->nr, sizeof(*k->index), ksym_ref__cmp);
		k->sorted = 1;
	}

	/* the first entry above addr; the group before it starts <= addr */
	hi = k->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->index[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	first = lo - 1;
	while (first > 0 && k->index[first - 1].addr == k->index[lo - 1].addr)
		first--;

	/* aliases at one address: the one perf prints, the first added on
	 * a tie */
	best = NULL;
	for (i = first; i < lo; i++) {
		const struct ap_kallsym *sym = kallsyms__at(k, k->index[i].idx);

		if (addr >= kallsyms__end(k, i))
			continue;
		if (!best || alias__better(sym, best))
			best = sym;
	}
	return best;
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
