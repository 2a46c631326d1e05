// SPDX-License-Identifier: GPL-2.0
/*
 * Memory accesses: samples aggregated by data object (the global or static
 * variable covering the address, from the ELF symbols of the file mapped
 * there), by mapping and by page, with the load/store split where the
 * source gives it (IBS) and the data source level (L1, RAM...).  Folded
 * output puts each sample's weight on the stack of the code that made the
 * access.
 *
 * Addresses are attributed when the frame is read, against the address
 * space as the file says it was at that point: a later mapping at the
 * same place cannot claim an earlier sample.  A sample older than its
 * process's last exec (the sensor's ring and the task events are read
 * separately, so one can arrive after the exec) belongs to an image that
 * is gone: it is counted as unresolved, never given to the new image.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/ctxtab.h"
#include "symbols/datasym.h"
#include "mem/codec.h"
#include "util/hmap.h"
#include "export/profile.h"
#include "mem.h"
#include "record/perf_decode.h"
#include "report/session.h"
#include "report/stackres.h"
#include "util/num.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "util/vec.h"
#include "report/view.h"

#define PAGE_SHIFT	12
#define DEFAULT_ROWS	20

/* why a sample has no place */
enum {
	UNRES_NO_ADDR,			/* the source gave no data address */
	UNRES_NO_MAPPING,		/* no recorded mapping covers it */
	UNRES_EXEC,			/* its image was replaced by exec */
	UNRES_NO_PROC,			/* process never described */
	UNRES_NR,
};

static const char *const unres_name[UNRES_NR] = {
	"no data address", "no mapping", "image replaced by exec",
	"unknown process",
};

/* one aggregate: a data object, a mapping, a page or a level */
struct row {
	const char *key;		/* interned */
	const char *name;		/* object, mapping or level */
	const char *where;		/* module, path, or page's object */
	uint64_t addr;			/* mapping start, page address */
	uint32_t pid;
	double samples, weight, load, store;
};

struct table {
	struct row *v;
	size_t nr, cap;
	struct ap_hmap by_key;		/* interned key -> index */
};

struct stk {
	uint32_t ctx;
	uint32_t stack_id;
	uint64_t ip;			/* when there is no stack */
	double weight;
};

struct view_mem {
	const struct ap_report_opts *o;
	struct ap_session *s;
	struct ap_strtab *strs;
	struct ap_datasym *ds;
	struct table objects, mappings, pages, levels;
	struct ap_ctxtab ctxs;		/* who made the access */
	struct stk *stks;
	size_t nr_stks, cap_stks;
	struct ap_hmap stk_by_key;
	double samples, weight, load, store;
	double unres[UNRES_NR];		/* samples */
	uint32_t sources;		/* 1 << AP_MEM_SRC_* seen */
	uint64_t first_period, period, period_changes, lost;
	struct ap_stackres res;		/* print-time scratch */
};

static void *mem_new(const struct ap_report_opts *o, struct ap_session *s)
{
	struct view_mem *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->o = o;
	v->s = s;
	v->strs = ap_strtab__new();
	/* names from other users: escaped but in JSON, which escapes */
	ap_strtab__set_escape(v->strs, o->format != AP_FMT_JSON);
	v->ds = ap_datasym__new(ap_session__symbolizer(s));
	ap_hmap__init(&v->objects.by_key);
	ap_hmap__init(&v->mappings.by_key);
	ap_hmap__init(&v->pages.by_key);
	ap_hmap__init(&v->levels.by_key);
	ap_hmap__init(&v->stk_by_key);
	if (!v->strs || !v->ds) {
		ap_strtab__free(v->strs);
		ap_datasym__free(v->ds);
		free(v);
		return NULL;
	}
	ap_ctxtab__init(&v->ctxs, v->strs);
	ap_stackres__init(&v->res, v->strs);
	return v;
}

static void table_free(struct table *t)
{
	free(t->v);
	ap_hmap__free(&t->by_key);
}

static void mem_free(void *p)
{
	struct view_mem *v = p;

	if (!v)
		return;
	table_free(&v->objects);
	table_free(&v->mappings);
	table_free(&v->pages);
	table_free(&v->levels);
	ap_hmap__free(&v->stk_by_key);
	ap_ctxtab__free(&v->ctxs);
	free(v->stks);
	ap_stackres__free(&v->res);
	ap_datasym__free(v->ds);
	ap_strtab__free(v->strs);
	free(v);
}

static const char *intern(struct view_mem *v, const char *s)
{
	return ap_strtab__intern(v->strs, s ? s : "", -1);
}

static struct row *table_get(struct view_mem *v, struct table *t,
			     const char *key)
{
	const char *k = intern(v, key);
	uint64_t *slot;
	int fresh;

	if (!k)
		return NULL;
	slot = ap_hmap__upsert(&t->by_key, (uintptr_t)k, &fresh);
	if (!slot)
		return NULL;
	if (!fresh)
		return &t->v[*slot];
	if (ap_grow((void **)&t->v, &t->cap, t->nr, sizeof(*t->v), 64))
		return NULL;
	memset(&t->v[t->nr], 0, sizeof(t->v[0]));
	t->v[t->nr].key = k;
	*slot = t->nr;
	return &t->v[t->nr++];
}

static void count(struct row *r, const struct ap_mem_event *e)
{
	r->samples += 1;
	r->weight += e->period;
	if (e->access == AP_MEM_ACC_LOAD)
		r->load += e->period;
	else if (e->access == AP_MEM_ACC_STORE)
		r->store += e->period;
}

static int add_stack(struct view_mem *v, const struct ap_mem_event *e)
{
	long c = ap_ctxtab__index(&v->ctxs, v->s, e->pid, e->tid);
	uint64_t key, *slot;
	int fresh;

	if (c < 0)
		return (int)c;
	/* without a stack, fold by the accessing instruction */
	key = ap_hash64((uint64_t)c << 32 | e->stack_id) ^
	      (e->stack_id ? 0 : ap_hash64(e->ip));
	if (key == AP_HMAP_EMPTY)
		key--;
	slot = ap_hmap__upsert(&v->stk_by_key, key, &fresh);
	if (!slot)
		return -ENOMEM;
	if (fresh) {
		if (ap_grow((void **)&v->stks, &v->cap_stks, v->nr_stks,
			    sizeof(*v->stks), 256))
			return -ENOMEM;
		v->stks[v->nr_stks] = (struct stk){ (uint32_t)c, e->stack_id,
						    e->ip, 0 };
		*slot = v->nr_stks++;
	}
	v->stks[*slot].weight += e->period;
	return 0;
}

/* object, mapping and page of e's address; -1 with *why when none */
static int attribute(struct view_mem *v, const struct ap_mem_event *e,
		     int *why)
{
	const struct ap_proc_info *p = ap_session__proc(v->s, e->pid);
	const struct ap_mmap *m, *file;
	char name[256], key[768], where[256];
	const char *region;
	uint64_t off, page = e->addr >> PAGE_SHIFT << PAGE_SHIFT;
	struct row *r;
	int k;

	if (!(e->flags & AP_MEM_F_ADDR)) {
		*why = UNRES_NO_ADDR;
		return -1;
	}
	if (!p || !p->as) {
		*why = UNRES_NO_PROC;
		return -1;
	}
	if (p->generation && e->ts < p->exec_ts) {
		*why = UNRES_EXEC;
		return -1;
	}
	m = ap_addrspace__find(p->as, e->addr);
	if (!m) {
		*why = UNRES_NO_MAPPING;
		return -1;
	}
	region = ap_datasym__region(m);
	/*
	 * A .bss past the file: the anonymous mappings right after it (more
	 * than one when madvise or mprotect split it).  Which variable, if
	 * any, is the file's symbols' say: past its segment, none.
	 */
	file = m;
	for (k = 0; m->path[0] != '/' && k < 16; k++) {
		const struct ap_mmap *prev = file->start ?
			ap_addrspace__find(p->as, file->start - 1) : NULL;

		if (!prev || prev->end != file->start || prev->path[0] == '[')
			break;
		file = prev;
		if (prev->path[0] == '/')
			break;
	}
	if (file->path[0] != '/')
		file = m;
	if (file->path[0] == '/' &&
	    !ap_datasym__lookup(v->ds, file, e->addr, name, sizeof(name),
				&off)) {
		const char *slash = strrchr(file->path, '/');

		snprintf(where, sizeof(where), "%.255s", slash ? slash + 1 :
			 file->path);
	} else {
		snprintf(name, sizeof(name), region[0] == '[' ? "%s" : "[%s]",
			 region);
		snprintf(where, sizeof(where), "%.255s",
			 file != m ? ap_datasym__region(file) : "");
	}
	snprintf(key, sizeof(key), "%s\x1f%s", name, where);
	r = table_get(v, &v->objects, key);
	if (!r)
		return -ENOMEM;
	if (!r->name) {
		r->name = intern(v, name);
		r->where = intern(v, where);
	}
	count(r, e);

	/* mappings per process image: the same library in two processes
	 * is two mappings */
	snprintf(key, sizeof(key), "%p\x1f%" PRIx64, (void *)p->as, m->start);
	r = table_get(v, &v->mappings, key);
	if (!r)
		return -ENOMEM;
	if (!r->name) {
		r->name = intern(v, file != m ? ap_datasym__region(file) :
				 region);
		r->where = intern(v, m->path[0] ? m->path :
				  file != m ? "(anonymous, after the file: .bss)" :
				  "(anonymous)");
		r->addr = m->start;
		r->pid = e->pid;
	}
	count(r, e);

	snprintf(key, sizeof(key), "%p\x1f%" PRIx64, (void *)p->as, page);
	r = table_get(v, &v->pages, key);
	if (!r)
		return -ENOMEM;
	if (!r->name) {
		r->name = intern(v, name);
		r->where = intern(v, where);
		r->addr = page;
		r->pid = e->pid;
	}
	count(r, e);
	return 0;
}

static int mem_event(void *p, const struct ap_frame *f)
{
	struct view_mem *v = p;
	struct ap_mem_event e;
	struct row *r;
	int why = 0, err;

	if (ap_mem_event__decode(f->payload, f->len, &e))
		return -EBADMSG;
	/* a sample weighs its period: no more than a recorder sets (a
	 * hostile file's would overflow the sums every output shows) */
	if (e.period > ap_mem_period_max(e.source))
		e.period = ap_mem_period_max(e.source);
	if (e.source < 32)
		v->sources |= 1u << e.source;
	if (e.kind == AP_MEM_KIND_PERIOD) {
		if (e.period != v->period)
			v->period_changes++;
		v->period = e.period;
		if (e.lost > v->lost)
			v->lost = e.lost;
		return 0;
	}
	if (e.kind != AP_MEM_KIND_SAMPLE)
		return 0;
	if (!ap_report_opts__match(v->o, v->s, e.pid, e.tid))
		return 0;
	if (!v->first_period)
		v->first_period = e.period;
	if (!v->period)
		v->period = e.period;
	v->samples += 1;
	v->weight += e.period;
	if (e.access == AP_MEM_ACC_LOAD)
		v->load += e.period;
	else if (e.access == AP_MEM_ACC_STORE)
		v->store += e.period;
	err = attribute(v, &e, &why);
	if (err < -1)
		return err;
	if (err == -1)
		v->unres[why] += 1;
	if (e.data_src) {
		r = table_get(v, &v->levels,
			      ap_mem_data_src__level(e.data_src));
		if (!r)
			return -ENOMEM;
		if (!r->name)
			r->name = r->key;
		count(r, &e);
	}
	return add_stack(v, &e);
}

static void scale_table(struct table *t, double f)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		t->v[i].samples *= f;
		t->v[i].weight *= f;
		t->v[i].load *= f;
		t->v[i].store *= f;
	}
}

static void mem_decay(void *p, unsigned num, unsigned den)
{
	struct view_mem *v = p;
	double f = den ? (double)num / den : 0;
	size_t i;
	int k;

	scale_table(&v->objects, f);
	scale_table(&v->mappings, f);
	scale_table(&v->pages, f);
	scale_table(&v->levels, f);
	for (i = 0; i < v->nr_stks; i++)
		v->stks[i].weight *= f;
	v->samples *= f;
	v->weight *= f;
	v->load *= f;
	v->store *= f;
	for (k = 0; k < UNRES_NR; k++)
		v->unres[k] *= f;
}

static int by_weight(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->key, y->key);
}

static size_t rows_shown(const struct view_mem *v, const struct table *t)
{
	size_t lim = v->o->limit > 0 ? (size_t)v->o->limit : DEFAULT_ROWS;

	return t->nr < lim ? t->nr : lim;
}

static int has_rw(const struct view_mem *v)
{
	return v->load > 0 || v->store > 0;
}

static const char *source_names(const struct view_mem *v, char *buf,
				size_t len)
{
	size_t off = 0;
	uint32_t s;

	buf[0] = '\0';
	for (s = 0; s < 32 && off < len; s++)
		if (v->sources & (1u << s))
			off += snprintf(buf + off, len - off, "%s%s",
					off ? "+" : "", ap_mem_source__name(s));
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

static double unresolved(const struct view_mem *v)
{
	double n = 0;
	int k;

	for (k = 0; k < UNRES_NR; k++)
		n += v->unres[k];
	return n;
}

#define NAME_MAX_WIDTH	40	/* the widest Object or Mapping column */

/* the name column as wide as its longest shown value, within its cap */
static int name_width(const struct table *t, size_t n, const char *label)
{
	int w = strlen(label);
	size_t i;

	for (i = 0; i < n; i++) {
		int l = strlen(t->v[i].name);

		if (l > w)
			w = l;
	}
	return w < NAME_MAX_WIDTH ? w : NAME_MAX_WIDTH;
}

/* name and where of one row; where, when there, starts at the header's
 * column: a longer name is cut, not let push it */
static void put_name(FILE *out, const struct row *r, int w)
{
	if (r->where && r->where[0]) {
		ap_put_col(out, r->name, w);
		fprintf(out, "  %s", r->where);
	} else {
		ap_put_col(out, r->name, (int)strlen(r->name) > w ? w : 0);
	}
}

static void print_rows(struct view_mem *v, struct table *t, const char *title,
		       const char *name, const char *where, int addr,
		       FILE *out)
{
	size_t n = rows_shown(v, t), i;
	int rw = has_rw(v), w = name_width(t, n, name);
	char pct[16];

	fprintf(out, "#\n# %s (%zu of %zu)\n#  %8s %9s", title, n, t->nr,
		"Weight", "Samples");
	if (rw)
		fprintf(out, " %7s %7s", "Loads", "Stores");
	if (addr)
		fprintf(out, "  %-18s", addr == 2 ? "Page" : "Start");
	if (where)
		fprintf(out, "  %-*s  %s\n", w, name, where);
	else
		fprintf(out, "  %s\n", name);
	for (i = 0; i < n; i++) {
		const struct row *r = &t->v[i];

		ap_pct(pct, sizeof(pct), r->weight, v->weight);
		fprintf(out, "  %9s %9.0f", pct, r->samples);
		if (rw) {
			char l[16], s[16];

			ap_pct(l, sizeof(l), r->load, r->weight);
			ap_pct(s, sizeof(s), r->store, r->weight);
			fprintf(out, " %7s %7s", l, s);
		}
		if (addr)
			fprintf(out, "  0x%016" PRIx64, r->addr);
		put_name(out, r, w);
		fputc('\n', out);
	}
}

static void print_table(struct view_mem *v, FILE *out)
{
	char src[64];
	int k, first = 1;

	fprintf(out, "# Memory accesses: %.0f samples from %s, weight %.0f %s",
		v->samples, source_names(v, src, sizeof(src)), v->weight,
		v->sources & (1u << AP_MEM_SRC_IBS_OP) ? "ops" : "faults");
	if (has_rw(v)) {
		char l[16], s[16];

		ap_pct(l, sizeof(l), v->load, v->weight);
		ap_pct(s, sizeof(s), v->store, v->weight);
		fprintf(out, " (loads %s, stores %s)", l, s);
	} else {
		fprintf(out, " (no load/store split from this source)");
	}
	fprintf(out, "\n# period %" PRIu64, v->first_period);
	if (v->period_changes)
		fprintf(out, ", raised %" PRIu64 " times to %" PRIu64
			" after lost samples", v->period_changes, v->period);
	fprintf(out, "; %" PRIu64 " samples lost\n", v->lost);
	if (unresolved(v) > 0) {
		fprintf(out, "# unresolved: %.0f samples (", unresolved(v));
		for (k = 0; k < UNRES_NR; k++) {
			if (!v->unres[k])
				continue;
			fprintf(out, "%s%s %.0f", first ? "" : ", ",
				unres_name[k], v->unres[k]);
			first = 0;
		}
		fprintf(out, ")\n");
	}
	if (!v->samples) {
		fprintf(out, "# no samples%s\n",
			v->o->nr_pids || v->o->nr_tids || v->o->comm ?
			" match the filters" : "");
		return;
	}
	print_rows(v, &v->objects, "Top data objects", "Object", "Module", 0,
		   out);
	print_rows(v, &v->mappings, "Top mappings", "Mapping", "Path", 1, out);
	print_rows(v, &v->pages, "Top pages", "Object", "Module", 2, out);
	if (v->levels.nr)
		print_rows(v, &v->levels, "Data source", "Level", NULL, 0, out);
}

static void json_rows(struct view_mem *v, struct table *t, const char *name,
		      const char *what, FILE *out)
{
	size_t lim = v->o->limit > 0 ? (size_t)v->o->limit : 100, i;
	size_t n = t->nr < lim ? t->nr : lim;

	fprintf(out, ", \"%s\": [", name);
	for (i = 0; i < n; i++) {
		const struct row *r = &t->v[i];

		fprintf(out, "%s\n    {\"%s\": ", i ? "," : "", what);
		ap_json_str(out, r->name);
		if (t != &v->levels) {
			fputs(", \"where\": ", out);
			ap_json_str(out, r->where);
		}
		if (t == &v->mappings || t == &v->pages)
			fprintf(out, ", \"addr\": \"0x%" PRIx64 "\", \"pid\": %u",
				r->addr, r->pid);
		fprintf(out, ", \"samples\": %.0f, \"weight\": %.0f, \"percent\": %.4f, \"loads\": %.0f, \"stores\": %.0f}",
			r->samples, r->weight,
			v->weight ? 100.0 * r->weight / v->weight : 0, r->load,
			r->store);
	}
	fprintf(out, "%s]", n ? "\n  " : "");
}

static void print_json(struct view_mem *v, FILE *out)
{
	char src[64];
	int k;

	fputs("{\"source\": ", out);
	ap_json_str(out, source_names(v, src, sizeof(src)));
	fprintf(out, ", \"samples\": %.0f, \"weight\": %.0f, \"loads\": %.0f, \"stores\": %.0f, \"rw_known\": %s",
		v->samples, v->weight, v->load, v->store,
		has_rw(v) ? "true" : "false");
	fprintf(out, ", \"period\": {\"initial\": %" PRIu64 ", \"final\": %"
		PRIu64 ", \"changes\": %" PRIu64 "}, \"lost\": %" PRIu64,
		v->first_period, v->period, v->period_changes, v->lost);
	fputs(", \"unresolved\": {", out);
	for (k = 0; k < UNRES_NR; k++) {
		fprintf(out, "%s", k ? ", " : "");
		ap_json_str(out, unres_name[k]);
		fprintf(out, ": %.0f", v->unres[k]);
	}
	fputc('}', out);
	json_rows(v, &v->objects, "objects", "object", out);
	json_rows(v, &v->mappings, "mappings", "mapping", out);
	json_rows(v, &v->pages, "pages", "object", out);
	json_rows(v, &v->levels, "levels", "level", out);
	fputc('}', out);
}

/* frames of a folded line, leaf first, into v->res */
static long resolve(struct view_mem *v, const struct stk *k)
{
	struct ap_symbolizer *sym = ap_session__symbolizer(v->s);
	const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, k->ctx);
	struct ap_stack st;
	int err;

	if (k->stack_id && !ap_session__stack(v->s, k->stack_id, &st))
		return ap_stackres__resolve_stack(&v->res, v->s, c->as, &st,
						  AP_STACKRES_KERNEL |
						  (v->o->user_only ?
						   AP_STACKRES_USER_ONLY : 0));
	/* the accessing instruction alone */
	ap_stackres__clear(&v->res);
	if (k->ip >= 0xffff800000000000ull)
		err = ap_stackres__push_loc(&v->res,
					    ap_symbolizer__kernel(sym, k->ip),
					    1);
	else if (c->as)
		err = ap_stackres__push_loc(&v->res,
					    ap_symbolizer__user(sym, c->as,
								k->ip, 0),
					    0);
	else
		err = ap_stackres__push(&v->res, "[unknown]", "[unknown]", 0);
	return err ? err : (long)v->res.nr;
}

/* accesses (samples weighted by their period) per stack, or per
 * accessing instruction where the sample has no stack */
static int mem_profile(void *p, struct ap_profile *pr)
{
	struct view_mem *v = p;
	size_t i;
	int idx, err;

	idx = ap_profile__add_kind(pr, AP_TAG_MEM, 0);
	if (idx < 0)
		return idx;
	for (i = 0; i < v->nr_stks; i++) {
		const struct stk *k = &v->stks[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, k->ctx);
		struct ap_prof_sample smp = {
			.view = idx, .pid = c->pid, .tid = c->tid,
			.comm = c->comm, .as = c->as,
			.stack_id = k->stack_id, .ip = k->ip,
			.v = { ap_weight(k->weight) },
		};

		if (k->weight < 0.5)
			continue;
		/* a stack id the session lacks: the instruction instead */
		if (smp.stack_id && smp.ip) {
			struct ap_stack st;

			if (ap_session__stack(v->s, smp.stack_id, &st))
				smp.stack_id = 0;
		}
		err = ap_profile__add(pr, &smp);
		if (err)
			return err;
	}
	return 0;
}

/* comm;root;...;leaf WEIGHT, kernel frames suffixed _[k] */
static int print_folded(struct view_mem *v, FILE *out)
{
	struct ap_fbuf b = { .srcline = v->o->folded_srcline };
	struct ap_folded fo;
	size_t i;
	int err = 0;

	ap_folded__init(&fo);
	for (i = 0; i < v->nr_stks; i++) {
		const struct stk *k = &v->stks[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, k->ctx);
		long n;

		if (k->weight < 0.5)
			continue;
		n = resolve(v, k);
		if (n < 0) {
			err = (int)n;
			goto out;
		}
		err = ap_fbuf__stack(&b, c->comm, NULL, v->res.frames, n);
		if (!err)
			err = ap_folded__add(&fo, ap_fbuf__intern(&b, v->strs),
					     k->weight);
		if (err)
			goto out;
	}
	ap_folded__print(&fo, out, 1, AP_TAG_MEM, v->o);
out:
	ap_folded__free(&fo);
	free(b.p);
	return err;
}

static int reindex(struct table *t)
{
	uint64_t *slot;
	size_t i;

	for (i = 0; i < t->nr; i++) {
		slot = ap_hmap__upsert(&t->by_key, (uintptr_t)t->v[i].key, NULL);
		if (!slot)
			return -ENOMEM;
		*slot = i;
	}
	return 0;
}

static int mem_print(void *p, FILE *out)
{
	struct view_mem *v = p;

	if (v->o->format == AP_FMT_FOLDED)
		return print_folded(v, out);
	ap_sort(v->objects.v, v->objects.nr, sizeof(struct row), by_weight);
	ap_sort(v->mappings.v, v->mappings.nr, sizeof(struct row), by_weight);
	ap_sort(v->pages.v, v->pages.nr, sizeof(struct row), by_weight);
	ap_sort(v->levels.v, v->levels.nr, sizeof(struct row), by_weight);
	/* sorting moved the rows: the key -> index maps are rebuilt */
	ap_hmap__free(&v->objects.by_key);
	ap_hmap__free(&v->mappings.by_key);
	ap_hmap__free(&v->pages.by_key);
	ap_hmap__free(&v->levels.by_key);
	if (reindex(&v->objects) || reindex(&v->mappings) ||
	    reindex(&v->pages) || reindex(&v->levels))
		return -ENOMEM;
	if (v->o->format == AP_FMT_JSON)
		print_json(v, out);
	else
		print_table(v, out);
	return 0;
}

const struct ap_view_ops ap_view_mem = {
	.name = "mem",
	.tag = AP_TAG_MEM,
	.new = mem_new,
	.event = mem_event,
	.print = mem_print,
	.decay = mem_decay,
	.free = mem_free,
	.profile = mem_profile,
};
