// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbol tables: parsed from /proc/kallsyms at record time, rebuilt
 * from the file's AP_TAG_KSYM frames at report time.
 *
 * Symbols live in fixed-size chunks, so a pointer returned by find stays
 * valid until ap_kallsyms__free, whatever is added later.  The address
 * index is sorted lazily, on the first find after an add.
 */
#include "symbolizer.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KSYM_CHUNK	1024
#define KSYM_PAGE	4096ULL

struct ksym_ref {
	uint64_t addr;
	size_t idx;		/* insertion order: ties keep the first added */
};

struct ap_kallsyms {
	struct ap_ksym **chunks;
	size_t nr_chunks;
	size_t cap_chunks;
	size_t nr;
	struct ksym_ref *index;	/* nr entries, sorted when sorted != 0 */
	size_t cap_index;
	int sorted;
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
	free(k->chunks);
	free(k->index);
	free(k);
}

size_t ap_kallsyms__count(const struct ap_kallsyms *k)
{
	return k ? k->nr : 0;
}

static struct ap_ksym *kallsyms__at(const struct ap_kallsyms *k, size_t idx)
{
	return &k->chunks[idx / KSYM_CHUNK][idx % KSYM_CHUNK];
}

int ap_kallsyms__add(struct ap_kallsyms *k, const struct ap_ksym *sym)
{
	struct ap_ksym *dst;

	if (!k || !sym)
		return -EINVAL;

	if (k->nr == k->nr_chunks * KSYM_CHUNK) {
		struct ap_ksym *chunk;

		if (k->nr_chunks == k->cap_chunks) {
			size_t cap = k->cap_chunks ? k->cap_chunks * 2 : 16;
			struct ap_ksym **chunks;

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
	*dst = *sym;
	dst->name[sizeof(dst->name) - 1] = '\0';
	dst->module[sizeof(dst->module) - 1] = '\0';
	if (k->nr && k->index[k->nr - 1].addr > sym->addr)
		k->sorted = 0;
	k->index[k->nr].addr = sym->addr;
	k->index[k->nr].idx = k->nr;
	k->nr++;
	return 0;
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
 * one page past its page, as perf's symbols__fixup_end does. */
static uint64_t kallsyms__end(const struct ap_kallsyms *k, size_t pos)
{
	const struct ap_ksym *sym = kallsyms__at(k, k->index[pos].idx);
	size_t i;

	if (sym->size)
		return sym->addr + sym->size;
	for (i = pos + 1; i < k->nr; i++) {
		const struct ap_ksym *next;

		if (k->index[i].addr == sym->addr)
			continue;
		next = kallsyms__at(k, k->index[i].idx);
		if (strcmp(next->module, sym->module) == 0)
			return next->addr;
		break;
	}
	return ((sym->addr + KSYM_PAGE - 1) & ~(KSYM_PAGE - 1)) + KSYM_PAGE;
}

static size_t underscores(const char *name)
{
	return strspn(name, "_");
}

/* perf's choose_best_symbol, for what kallsyms keeps */
static int alias__better(const struct ap_ksym *a, const struct ap_ksym *b)
{
	size_t ua = underscores(a->name), ub = underscores(b->name);

	if (ua != ub)
		return ua < ub;
	return strlen(a->name) > strlen(b->name);
}

const struct ap_ksym *ap_kallsyms__find(struct ap_kallsyms *k, uint64_t addr)
{
	const struct ap_ksym *best;
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

	/* aliases at one address: the one perf prints (fewer leading
	 * underscores, then the longer name), the first added on a tie */
	best = NULL;
	for (i = first; i < lo; i++) {
		const struct ap_ksym *sym = kallsyms__at(k, k->index[i].idx);

		if (addr >= kallsyms__end(k, i))
			continue;
		if (!best || alias__better(sym, best))
			best = sym;
	}
	return best;
}

/* "ffffffff81000000 T _stext\t[module]"; returns 1 for a symbol whose
 * type letter is in types, 0 for a line to skip. */
static int kallsyms__parse_line(char *line, const char *types,
				struct ap_ksym *sym)
{
	char *p = line, *end, *name, *mod;
	char type;
	size_t n;

	sym->addr = strtoull(p, &end, 16);
	if (end == p || !isspace((unsigned char)*end))
		return 0;
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	type = *p++;
	if (!type || !strchr(types, type))
		return 0;
	if (*p != ' ' && *p != '\t')
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	name = p;
	n = strcspn(name, " \t\r\n");
	if (n == 0)
		return 0;
	p = name + n;
	if (n >= sizeof(sym->name))
		n = sizeof(sym->name) - 1;
	memcpy(sym->name, name, n);
	sym->name[n] = '\0';

	sym->module[0] = '\0';
	mod = strchr(p, '[');
	if (mod) {
		mod++;
		n = strcspn(mod, "]\r\n");
		if (n >= sizeof(sym->module))
			n = sizeof(sym->module) - 1;
		memcpy(sym->module, mod, n);
		sym->module[n] = '\0';
	}
	sym->size = 0;
	return 1;
}

struct ap_kallsyms *ap_kallsyms__load(const char *path, int *err)
{
	return ap_kallsyms__load_types(path, "tTwW", err);
}

struct ap_kallsyms *ap_kallsyms__load_types(const char *path,
					    const char *types, int *err)
{
	struct ap_kallsyms *k;
	struct ap_ksym sym;
	size_t zero = 0;
	char line[1024];
	FILE *f;
	int ret = 0;

	if (!path)
		path = "/proc/kallsyms";
	k = ap_kallsyms__new();
	if (!k) {
		ret = -ENOMEM;
		goto out;
	}
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		goto out_free;
	}

	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		/* a line longer than the buffer: skip its tail */
		if (n && line[n - 1] != '\n' && !feof(f)) {
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		if (!kallsyms__parse_line(line, types, &sym))
			continue;
		if (sym.addr == 0) {
			zero++;
			continue;
		}
		ret = ap_kallsyms__add(k, &sym);
		if (ret)
			goto out_close;
	}
	if (ferror(f)) {
		ret = -EIO;
		goto out_close;
	}
	/* kptr_restrict hides every address from the unprivileged */
	if (k->nr == 0)
		ret = zero ? -EPERM : -ENODATA;

out_close:
	fclose(f);
	if (!ret)
		goto out;
out_free:
	ap_kallsyms__free(k);
	k = NULL;
out:
	if (err)
		*err = ret;
	return k;
}
