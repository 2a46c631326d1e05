// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU profile: samples counted per (thread context, stack id) as they
 * arrive; stacks are symbolized once each at print time, so report time
 * grows with unique stacks and addresses, not with samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "event/event.h"
#include "export/export.h"
#include "report/ctxtab.h"
#include "util/hmap.h"
#include "export/profile.h"
#include "report/session.h"
#include "report/stackres.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "util/vec.h"
#include "report/view.h"

struct agg {
	uint32_t ctx;			/* index in ctxs */
	uint32_t stack_id;
	uint32_t cpu;			/* with --sort cpu; else 0 */
	uint32_t next;			/* + 1: the same ctx and stack, another cpu */
	double count;
};

struct row {
	const char *key;
	const struct ap_ctx *c;
	struct ap_rframe f;
	/* --sort srcline: "file.c:12" (interned) of the innermost inlined
	 * frame at the address, whose file and line f then holds */
	const char *srcline;
	uint32_t cpu;
	double self, children;
	size_t stamp;			/* last sample that counted children */
	uint32_t graph;			/* + 1: its call graph's root node */
};

/* a call graph node: a function, its samples, its first child and its
 * next sibling (indices + 1 in view_cpu.nodes) */
struct cg_node {
	const char *sym;		/* interned */
	int kernel;
	double count;
	uint32_t child, sib;
};

struct view_cpu {
	const struct ap_report_opts *o;
	struct ap_session *s;
	struct ap_strtab *strs;
	struct ap_ctxtab ctxs;		/* who was sampled */
	struct agg *aggs;
	size_t nr_aggs, cap_aggs;
	struct ap_hmap agg_by_key;	/* ctx << 32 | stack -> index */
	double total;
	double all;			/* before the filters */
	uint64_t no_stack;
	double roots[AP_ROOT_NR];	/* samples by where their stack ends */
	double cut;			/* ... ended at a non-code address */
	double own_bpf;			/* ... in aperture's BPF programs */
	struct ap_stackres res;		/* print-time scratch */
	double shown;			/* self samples of the rows that passed
					 * --dsos and --symbols */
	struct cg_node *nodes;		/* -g: the call graphs of the rows */
	size_t nr_nodes, cap_nodes;
	struct ap_prof_times times;	/* speedscope: each sample's */
	unsigned keys;			/* 1 << AP_KEY_* of o's, at print */
};

static void *cpu_new(const struct ap_report_opts *o, struct ap_session *s)
{
	struct view_cpu *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->o = o;
	v->s = s;
	ap_hmap__init(&v->agg_by_key);
	if (ap_view__names_init(o, &v->strs, &v->ctxs, &v->res)) {
		free(v);
		return NULL;
	}
	return v;
}

static void cpu_free(void *p)
{
	struct view_cpu *v = p;

	if (!v)
		return;
	ap_view__names_free(v->strs, &v->ctxs, &v->res);
	ap_hmap__free(&v->agg_by_key);
	free(v->aggs);
	free(v->nodes);
	ap_prof_times__free(&v->times);
	free(v);
}

static int has_key(const struct ap_report_opts *o, int key)
{
	return ap_report_opts__has_key(o, key);
}

static int new_agg(struct view_cpu *v, uint32_t c, uint32_t stack_id,
		   uint32_t cpu)
{
	if (ap_grow((void **)&v->aggs, &v->cap_aggs, v->nr_aggs,
		    sizeof(*v->aggs), 256))
		return -ENOMEM;
	v->aggs[v->nr_aggs] = (struct agg){ c, stack_id, cpu, 0, 0 };
	return 0;
}

static int cpu_event(void *p, const struct ap_frame *f)
{
	struct view_cpu *v = p;
	struct ap_cpu_sample e;
	struct agg *a;
	uint64_t *slot;
	long c;
	int fresh;

	if (ap_cpu_sample__decode(f->payload, f->len, &e))
		return -EBADMSG;
	v->all += 1;
	if (!ap_report_opts__match(v->o, v->s, e.pid, e.tid))
		return 0;
	/* --time */
	if (e.ts < v->o->time_lo || (v->o->time_hi && e.ts > v->o->time_hi))
		return 0;
	if (!has_key(v->o, AP_KEY_CPU))
		e.cpu = 0;
	c = ap_ctxtab__index(&v->ctxs, v->s, e.pid, e.tid);
	if (c < 0)
		return (int)c;
	slot = ap_hmap__upsert(&v->agg_by_key,
			       (uint64_t)c << 32 | e.stack_id, &fresh);
	if (!slot)
		return -ENOMEM;
	if (fresh) {
		if (new_agg(v, (uint32_t)c, e.stack_id, e.cpu))
			return -ENOMEM;
		*slot = v->nr_aggs++;
	}
	/* one agg per CPU of a (thread, stack): a chain, rarely long */
	a = &v->aggs[*slot];
	while (a->cpu != e.cpu && a->next)
		a = &v->aggs[a->next - 1];
	if (a->cpu != e.cpu) {
		size_t prev = a - v->aggs;

		if (new_agg(v, (uint32_t)c, e.stack_id, e.cpu))
			return -ENOMEM;
		v->aggs[prev].next = ++v->nr_aggs;
		a = &v->aggs[v->nr_aggs - 1];
	}
	a->count += 1;
	v->total += 1;
	if (!e.stack_id)
		v->no_stack++;
	/* a sample stands for the period before it */
	if (ap_format__is_timed(v->o->format) && v->o->freq &&
	    ap_prof_times__add(&v->times, e.ts, 1000000000ull / v->o->freq,
			       (uint32_t)(a - v->aggs)))
		return -ENOMEM;
	return 0;
}

static void cpu_decay(void *p, unsigned num, unsigned den)
{
	struct view_cpu *v = p;
	size_t i;

	v->total = 0;
	v->all = den ? v->all * num / den : 0;
	for (i = 0; i < v->nr_aggs; i++) {
		v->aggs[i].count = den ? v->aggs[i].count * num / den : 0;
		if (v->aggs[i].count < 0.01)
			v->aggs[i].count = 0;
		v->total += v->aggs[i].count;
	}
}

/* the frames of a stack, leaf first, into v->res; returns the count */
static long resolve(struct view_cpu *v, const struct ap_ctx *c, uint32_t id)
{
	return ap_stackres__resolve(&v->res, v->s, c->as, id,
				    AP_STACKRES_UNKNOWN | AP_STACKRES_KERNEL |
				    (v->o->user_only ?
				     AP_STACKRES_USER_ONLY : 0));
}

/* one field of a row's key at key + off, as snprintf puts it */
__attribute__((format(printf, 4, 5)))
static size_t key_add(char *key, size_t size, size_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	off += vsnprintf(key + off, size - off, fmt, ap);
	va_end(ap);
	return off;
}

static const char *row_key(struct view_cpu *v, const struct ap_ctx *c,
			   uint32_t cpu, const struct ap_rframe *f,
			   const char *srcline)
{
	char key[2048];
	size_t off = 0, n = sizeof(key);
	int i;

	for (i = 0; i < v->o->nr_keys && off < n; i++) {
		switch (v->o->keys[i]) {
		case AP_KEY_COMM:
			off = key_add(key, n, off, "%s\x1f", c->comm);
			break;
		case AP_KEY_PID:
			off = key_add(key, n, off, "%u\x1f", c->pid);
			break;
		case AP_KEY_TID:
			off = key_add(key, n, off, "%u\x1f", c->tid);
			break;
		case AP_KEY_DSO:
			off = key_add(key, n, off, "%s\x1f", f->dso);
			break;
		case AP_KEY_SYM:
			off = key_add(key, n, off, "%s%s\x1f",
				      f->kernel ? "k:" : "u:", f->sym);
			break;
		case AP_KEY_SRCLINE:
			off = key_add(key, n, off, "%s\x1f", srcline);
			break;
		case AP_KEY_CPU:
			off = key_add(key, n, off, "%u\x1f", cpu);
			break;
		}
	}
	return ap_strtab__intern(v->strs, key, -1);
}

/*
 * What row_key() makes its key of, as pointers and numbers: a frame seen
 * again finds its row through this without formatting and interning the
 * key (that was most of report's time on stacks of many processes).
 * Names are interned, so equal tuples make equal keys; a tuple is only
 * a memo of row_key(), and the rows stay keyed by their strings.
 */
struct rtuple {
	const char *comm, *dso, *sym, *srcline;
	uint32_t pid, tid, cpu;
	int kernel;
};

/* tuples seen, each with what it found (a row, or in build_graphs a
 * graph's row or none) */
struct rmemo {
	struct ap_hmap by_hash;		/* hash -> first entry + 1 */
	struct rmemo_ent {
		struct rtuple t;
		uint64_t hash;
		uint64_t val;
		size_t next;		/* + 1: same hash slot */
	} *v;
	size_t nr, cap;
};

static void rmemo__free(struct rmemo *m)
{
	ap_hmap__free(&m->by_hash);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* the keys of the rows, as the tuples read them: top changes them
 * between prints */
static unsigned key_mask(const struct ap_report_opts *o)
{
	unsigned m = 0;
	int i;

	for (i = 0; i < o->nr_keys; i++)
		m |= 1u << o->keys[i];
	return m;
}

/* the tuple of a row's key fields (those not in the keys zero) */
static uint64_t rtuple_make(const struct view_cpu *v, const struct ap_ctx *c,
			    uint32_t cpu, const struct ap_rframe *f,
			    const char *srcline, struct rtuple *t)
{
	uint64_t h;

	memset(t, 0, sizeof(*t));
	if (v->keys & 1u << AP_KEY_COMM)
		t->comm = c->comm;
	if (v->keys & 1u << AP_KEY_PID)
		t->pid = c->pid;
	if (v->keys & 1u << AP_KEY_TID)
		t->tid = c->tid;
	if (v->keys & 1u << AP_KEY_DSO)
		t->dso = f->dso;
	if (v->keys & 1u << AP_KEY_SYM) {
		t->sym = f->sym;
		t->kernel = !!f->kernel;
	}
	if (v->keys & 1u << AP_KEY_SRCLINE)
		t->srcline = srcline;
	if (v->keys & 1u << AP_KEY_CPU)
		t->cpu = cpu;
	/* each field times its odd constant: the map mixes the sum */
	h = (uintptr_t)t->comm * 0x9e3779b97f4a7c15ull +
	    (uintptr_t)t->dso * 0xbf58476d1ce4e5b9ull +
	    (uintptr_t)t->sym * 0x94d049bb133111ebull +
	    (uintptr_t)t->srcline * 0xd6e8feb86659fd93ull +
	    ((uint64_t)t->pid << 32 | t->tid) * 0xa0761d6478bd642full +
	    ((uint64_t)t->cpu << 1 | (uint64_t)t->kernel) *
	    0xe7037ed1a0b428dbull;
	return h == AP_HMAP_EMPTY ? 0 : h;
}

static struct rmemo_ent *rmemo__find(const struct rmemo *m,
				     const struct rtuple *t, uint64_t h)
{
	uint64_t *slot = ap_hmap__find(&m->by_hash, h);
	size_t i;

	for (i = slot ? *slot : 0; i; i = m->v[i - 1].next)
		if (!memcmp(&m->v[i - 1].t, t, sizeof(*t)))
			return &m->v[i - 1];
	return NULL;
}

static int rmemo__add(struct rmemo *m, const struct rtuple *t, uint64_t h,
		      uint64_t val)
{
	uint64_t *slot;
	int fresh;

	if (ap_grow((void **)&m->v, &m->cap, m->nr, sizeof(*m->v), 256))
		return -ENOMEM;
	slot = ap_hmap__upsert(&m->by_hash, h, &fresh);
	if (!slot)
		return -ENOMEM;
	m->v[m->nr] = (struct rmemo_ent){ *t, h, val, fresh ? 0 : *slot };
	*slot = ++m->nr;
	return 0;
}

struct rows {
	struct row *v;
	size_t nr, cap;
	struct ap_hmap by_key;
	struct rmemo memo;		/* key tuple -> row index */
};

static struct row *get_row(struct rows *rs, const char *key,
			   const struct ap_ctx *c, uint32_t cpu,
			   const struct ap_rframe *f, const char *srcline,
			   const struct ap_rframe *src)
{
	uint64_t *slot;
	int fresh;

	slot = ap_hmap__upsert(&rs->by_key, (uintptr_t)key, &fresh);
	if (!slot)
		return NULL;
	if (!fresh)
		return &rs->v[*slot];
	if (ap_grow((void **)&rs->v, &rs->cap, rs->nr, sizeof(*rs->v), 256))
		return NULL;
	rs->v[rs->nr] = (struct row){ .key = key, .c = c, .f = *f,
				      .srcline = srcline, .cpu = cpu };
	if (src) {
		rs->v[rs->nr].f.file = src->file;
		rs->v[rs->nr].f.line = src->line;
	}
	*slot = rs->nr;
	return &rs->v[rs->nr++];
}

/* the row of a frame's key fields, made when new */
static struct row *find_row(struct view_cpu *v, struct rows *rs,
			    const struct ap_ctx *c, uint32_t cpu,
			    const struct ap_rframe *f, const char *srcline,
			    const struct ap_rframe *src)
{
	struct rtuple t;
	uint64_t h = rtuple_make(v, c, cpu, f, srcline, &t);
	struct rmemo_ent *e = rmemo__find(&rs->memo, &t, h);
	const char *key;
	struct row *r;

	if (e)
		return &rs->v[e->val];
	key = row_key(v, c, cpu, f, srcline);
	r = key ? get_row(rs, key, c, cpu, f, srcline, src) : NULL;
	if (!r || rmemo__add(&rs->memo, &t, h, (uint64_t)(r - rs->v)))
		return NULL;
	return r;
}

static int by_self(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->children != y->children)
		return x->children < y->children ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* top cycles through these (ap_report_opts.top_sort) */
static int by_children(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->children != y->children)
		return x->children < y->children ? 1 : -1;
	return by_self(a, b);
}

static int by_comm(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->c->comm, y->c->comm);

	return c ? c : by_self(a, b);
}

static int by_sym(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->f.sym, y->f.sym);

	return c ? c : by_self(a, b);
}

static const char *const cpu_sorts[] = {
	"self", "children", "comm", "symbol", NULL,
};

static int (*const cpu_cmp[])(const void *, const void *) = {
	by_self, by_children, by_comm, by_sym,
};

/* the file name of a path: rows name user objects by it, so a path
 * given to --dsos matches by its file name too */
static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* does a frame pass --dsos and --symbols? */
static int frame_passes(const struct ap_report_opts *o,
			const struct ap_rframe *f)
{
	int i, ok;

	if (o->nr_dsos) {
		for (ok = 0, i = 0; i < o->nr_dsos && !ok; i++)
			ok = !strcmp(o->dsos[i], f->dso) ||
			     !strcmp(base_name(o->dsos[i]), f->dso) ||
			     !strcmp(o->dsos[i], base_name(f->dso));
		if (!ok)
			return 0;
	}
	if (o->nr_symbols) {
		for (ok = 0, i = 0; i < o->nr_symbols && !ok; i++)
			ok = !strcmp(o->symbols[i], f->sym);
		if (!ok)
			return 0;
	}
	return 1;
}

/* What makes two aggregates give the same rows: the stack, the address
 * space it resolves in, and what of the thread the row keys hold.  Threads
 * of a process that share a stack make one walk of its frames, not one
 * per thread (a 2,048-frame stack of 10,000 threads: 20 M frames). */
struct gkey {
	const struct ap_addrspace *as;
	const char *comm;		/* NULL: not a key */
	uint32_t stack_id;
	uint32_t pid, tid;		/* 0: not a key */
	uint32_t cpu;			/* the agg's: 0 unless --sort cpu */
	uint32_t agg;			/* first in file order first */
};

static int cmp_gkey_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y ? -1 : x > y;
}

static int same_group(const struct gkey *x, const struct gkey *y)
{
	return x->as == y->as && x->stack_id == y->stack_id &&
	       x->comm == y->comm && x->pid == y->pid && x->tid == y->tid &&
	       x->cpu == y->cpu;
}

static int cmp_gkey(const void *a, const void *b)
{
	const struct gkey *x = a, *y = b;
	int c = cmp_gkey_ptr(x->as, y->as);

	if (!c)
		c = x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
	if (!c)
		c = cmp_gkey_ptr(x->comm, y->comm);
	if (!c)
		c = x->pid < y->pid ? -1 : x->pid > y->pid;
	if (!c)
		c = x->tid < y->tid ? -1 : x->tid > y->tid;
	if (!c)
		c = x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
	if (!c)
		c = x->agg < y->agg ? -1 : x->agg > y->agg;
	return c;
}

/* the aggregates with a count, grouped: same_group() ones adjacent;
 * kc, kp, kt: the comm, pid, tid tell groups apart */
static struct gkey *group_aggs(struct view_cpu *v, int kc, int kp, int kt,
			       size_t *nr)
{
	struct gkey *g = malloc((v->nr_aggs ? v->nr_aggs : 1) * sizeof(*g));
	size_t i, n = 0;

	if (!g)
		return NULL;
	for (i = 0; i < v->nr_aggs; i++) {
		const struct agg *a = &v->aggs[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, a->ctx);

		if (!(a->count > 0))
			continue;
		g[n++] = (struct gkey){
			.as = c->as, .stack_id = a->stack_id,
			.comm = kc ? c->comm : NULL,
			.pid = kp ? c->pid : 0, .tid = kt ? c->tid : 0,
			.cpu = a->cpu, .agg = (uint32_t)i,
		};
	}
	ap_sort(g, n, sizeof(*g), cmp_gkey);
	*nr = n;
	return g;
}

static int build_rows(struct view_cpu *v, struct rows *rs)
{
	const char *filter = v->o->sym_filter;
	int sort = v->o->top_sort;
	int srcline = has_key(v->o, AP_KEY_SRCLINE);
	char buf[512];
	struct gkey *g;
	size_t i, k, nr_g;

	memset(v->roots, 0, sizeof(v->roots));
	v->cut = 0;
	v->own_bpf = 0;
	v->shown = 0;
	v->keys = key_mask(v->o);
	g = group_aggs(v, has_key(v->o, AP_KEY_COMM),
		       has_key(v->o, AP_KEY_PID), has_key(v->o, AP_KEY_TID),
		       &nr_g);
	if (!g)
		return -ENOMEM;
	for (i = 0; i < nr_g; i = k) {
		const struct agg *a = &v->aggs[g[i].agg];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, a->ctx);
		double count = 0;
		long n, j;
		int leaf = 1, self, touched = 0;

		for (k = i; k < nr_g && same_group(&g[k], &g[i]); k++)
			count += v->aggs[g[k].agg].count;
		n = resolve(v, c, a->stack_id);
		if (n < 0) {
			free(g);
			return (int)n;
		}
		if (n && a->stack_id) {
			v->roots[ap_stackres__root(&v->res)] += count;
			if (v->res.cut)
				v->cut += count;
			if (ap_stackres__own_bpf(&v->res))
				v->own_bpf += count;
		}
		const struct ap_rframe *inner = NULL;

		for (j = 0; j < n; j++) {
			const struct ap_rframe *f = &v->res.frames[j];
			const struct ap_rframe *src = NULL;
			const char *where = NULL;
			struct row *r;

			/* the line of the address is the innermost inlined
			 * frame's: the others' are call sites */
			if (!j || !v->res.frames[j - 1].inlined)
				inner = f;
			/* rows are ELF functions, as perf's: an inlined
			 * function's time is its host's (it stays in the
			 * stacks and folded lines) */
			if (f->inlined && !v->o->inline_rows)
				continue;
			self = leaf;
			leaf = 0;
			if (filter && *filter && !strstr(f->sym, filter))
				continue;
			if (!frame_passes(v->o, f))
				continue;
			if (srcline) {
				src = v->o->inline_rows ? f : inner;
				where = ap_strtab__intern(v->strs,
					ap_rframe__srcline(src, buf,
							   sizeof(buf)), -1);
				if (!where) {
					free(g);
					return -ENOMEM;
				}
			}
			r = find_row(v, rs, c, a->cpu, f, where, src);
			if (!r) {
				free(g);
				return -ENOMEM;
			}
			if (self)
				r->self += count;
			touched = 1;
			/* recursion counts once per sample */
			if (r->stamp != i + 1) {
				r->stamp = i + 1;
				r->children += count;
			}
		}
		if (touched)
			v->shown += count;
	}
	free(g);
	/* without the children column, a row of callers only says nothing */
	if (v->o->no_children) {
		size_t n = 0;

		for (i = 0; i < rs->nr; i++)
			if (rs->v[i].self > 0)
				rs->v[n++] = rs->v[i];
		rs->nr = n;
	}
	if (sort < 0 || sort >= (int)(sizeof(cpu_cmp) / sizeof(cpu_cmp[0])))
		sort = 0;
	ap_sort(rs->v, rs->nr, sizeof(*rs->v), cpu_cmp[sort]);
	return 0;
}

/* what percentages are of: --percentage; relative under --dsos or
 * --symbols is of the samples in which a row they keep appears */
static double pct_total(const struct view_cpu *v)
{
	if (v->o->pct_relative && (v->o->nr_dsos || v->o->nr_symbols))
		return v->shown;
	return v->o->pct_relative || v->all < v->total ? v->total : v->all;
}

/* --percent-limit: on the shown overhead, children where shown */
static int under_limit(const struct view_cpu *v, const struct row *row)
{
	double n = v->o->no_children ? row->self : row->children;

	return v->o->percent_limit > 0 && pct_total(v) > 0 &&
	       100.0 * n / pct_total(v) < v->o->percent_limit;
}

/*
 * -g: a call graph under each row, built from the stacks once the rows
 * are known: the row's function is the root; its callers (callee order,
 * perf's default) or what it calls (caller order) are the branches, each
 * with its samples.  A sample counts once per row, at the row's innermost
 * occurrence (callee) or outermost (caller), as children do.
 */
static long cg_new(struct view_cpu *v, const struct ap_rframe *f)
{
	if (ap_grow((void **)&v->nodes, &v->cap_nodes, v->nr_nodes,
		    sizeof(*v->nodes), 256))
		return -ENOMEM;
	v->nodes[v->nr_nodes] = (struct cg_node){ .sym = f->sym,
						  .kernel = f->kernel };
	return (long)++v->nr_nodes;
}

/* node's child for frame f (indices + 1), made when new */
static long cg_child(struct view_cpu *v, uint32_t node,
		     const struct ap_rframe *f)
{
	uint32_t c;
	long n;

	for (c = v->nodes[node - 1].child; c; c = v->nodes[c - 1].sib)
		if (v->nodes[c - 1].sym == f->sym &&
		    v->nodes[c - 1].kernel == f->kernel)
			return c;
	n = cg_new(v, f);
	if (n < 0)
		return n;
	v->nodes[n - 1].sib = v->nodes[node - 1].child;
	v->nodes[node - 1].child = (uint32_t)n;
	return n;
}

/* the frames of v->res from k0 to k1 by step (both included; none when
 * k0 is past k1) as a path under node, weighing count each */
static int cg_path(struct view_cpu *v, uint32_t node, long k0, long k1,
		   long step, double count)
{
	long k, c;

	v->nodes[node - 1].count += count;
	for (k = k0; step > 0 ? k <= k1 : k >= k1; k += step) {
		const struct ap_rframe *f = &v->res.frames[k];

		if (f->inlined && !v->o->inline_rows)
			continue;
		c = cg_child(v, node, f);
		if (c < 0)
			return (int)c;
		node = (uint32_t)c;
		v->nodes[node - 1].count += count;
	}
	return 0;
}

/* is frame j the innermost that rows count (the sample's self)? */
static int innermost(const struct view_cpu *v, long j)
{
	long k;

	for (k = 0; k < j; k++)
		if (!v->res.frames[k].inlined || v->o->inline_rows)
			return 0;
	return 1;
}

/* --sort srcline: frame j's key as build_rows makes it (the line of the
 * innermost inlined frame at its address); NULL without the key */
static const char *graph_srcline(struct view_cpu *v, long j)
{
	const struct ap_rframe *src = &v->res.frames[j];
	char buf[512];

	if (!has_key(v->o, AP_KEY_SRCLINE))
		return NULL;
	if (!v->o->inline_rows)
		while (j > 0 && v->res.frames[j - 1].inlined)
			src = &v->res.frames[--j];
	return ap_strtab__intern(v->strs,
				 ap_rframe__srcline(src, buf, sizeof(buf)), -1);
}

/* call graphs for the first n rows (those printed) */
static int build_graphs(struct view_cpu *v, struct rows *rs, size_t n)
{
	int callee = v->o->call_graph == AP_CG_CALLEE, err = 0;
	struct ap_hmap by_key;
	struct rmemo memo = { 0 };	/* key tuple -> printed row + 1, or 0 */
	uint64_t *slot;
	size_t i, r;
	int fresh;

	ap_hmap__init(&by_key);
	v->nr_nodes = 0;
	v->keys = key_mask(v->o);
	for (r = 0; r < n && !err; r++) {
		long root;

		rs->v[r].stamp = 0;
		if (under_limit(v, &rs->v[r]))
			continue;
		root = cg_new(v, &rs->v[r].f);
		slot = root < 0 ? NULL :
		       ap_hmap__upsert(&by_key, (uintptr_t)rs->v[r].key,
				       &fresh);
		if (!slot) {
			err = -ENOMEM;
			break;
		}
		rs->v[r].graph = (uint32_t)root;
		*slot = r;
	}
	for (i = 0; i < v->nr_aggs && !err; i++) {
		const struct agg *a = &v->aggs[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, a->ctx);
		long nf = a->count > 0 ? resolve(v, c, a->stack_id) : 0, j, k;

		if (nf < 0) {
			err = (int)nf;
			break;
		}
		for (k = 0; k < nf && !err; k++) {
			const struct ap_rframe *f;
			const struct rmemo_ent *e;
			const char *where;
			struct rtuple t;
			struct row *row;
			uint64_t h, at;

			j = callee ? k : nf - 1 - k;
			f = &v->res.frames[j];
			if ((f->inlined && !v->o->inline_rows) ||
			    !frame_passes(v->o, f))
				continue;
			where = graph_srcline(v, j);
			h = rtuple_make(v, c, a->cpu, f, where, &t);
			e = rmemo__find(&memo, &t, h);
			if (e) {
				at = e->val;
			} else {
				slot = ap_hmap__find(&by_key,
					(uintptr_t)row_key(v, c, a->cpu, f,
							   where));
				at = slot ? *slot + 1 : 0;
				err = rmemo__add(&memo, &t, h, at);
				if (err)
					break;
			}
			if (!at)
				continue;
			row = &rs->v[at - 1];
			if (row->stamp == i + 1)
				continue;
			row->stamp = i + 1;
			/* callee: the callers beyond j; caller: the callees
			 * below j, or for a self sample the chain from the
			 * root down to j, as perf report -G */
			if (callee)
				err = cg_path(v, row->graph, j + 1, nf - 1, 1,
					      a->count);
			else if (innermost(v, j))
				err = cg_path(v, row->graph, nf - 1, j, -1,
					      a->count);
			else
				err = cg_path(v, row->graph, j - 1, 0, -1,
					      a->count);
		}
	}
	ap_hmap__free(&by_key);
	rmemo__free(&memo);
	return err;
}

static int by_count_desc(const void *a, const void *b, void *arg)
{
	const struct cg_node *nodes = arg;
	const struct cg_node *x = &nodes[*(const uint32_t *)a - 1];
	const struct cg_node *y = &nodes[*(const uint32_t *)b - 1];

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->sym, y->sym);
}

/* node's children, most samples first, into a new array (NULL: none) */
static uint32_t *cg_kids(struct view_cpu *v, uint32_t node, size_t *nr)
{
	uint32_t *k, c;
	size_t n = 0;

	for (c = v->nodes[node - 1].child; c; c = v->nodes[c - 1].sib)
		n++;
	*nr = 0;
	k = n ? malloc(n * sizeof(*k)) : NULL;
	if (!k)
		return NULL;
	for (c = v->nodes[node - 1].child; c; c = v->nodes[c - 1].sib)
		k[(*nr)++] = c;
	qsort_r(k, n, sizeof(*k), by_count_desc, v->nodes);
	return k;
}

/* branches under perf's threshold (0.5%, or --percent-limit) are left out */
static double cg_min(const struct view_cpu *v)
{
	double pct = v->o->cg_percent > 0 ? v->o->cg_percent :
		     v->o->percent_limit > 0 ? v->o->percent_limit : 0.5;

	return pct * pct_total(v) / 100;
}

/* one line per branch: --PERCENT-- name, four columns deeper per level */
static void print_graph(struct view_cpu *v, FILE *out, uint32_t node,
			int depth)
{
	size_t nr, i;
	uint32_t *k = cg_kids(v, node, &nr);
	char pct[16];

	for (i = 0; i < nr; i++) {
		const struct cg_node *c = &v->nodes[k[i] - 1];

		if (c->count < cg_min(v))
			break;
		ap_pct(pct, sizeof(pct), c->count, pct_total(v));
		fprintf(out, "%*s--%s-- %s%s\n", 12 + 4 * depth, "", pct,
			c->sym, c->kernel ? " [k]" : "");
		print_graph(v, out, k[i], depth + 1);
	}
	free(k);
}

static void print_graph_json(struct view_cpu *v, FILE *out, uint32_t node)
{
	size_t nr, i;
	uint32_t *k = cg_kids(v, node, &nr);

	fputc('[', out);
	for (i = 0; i < nr; i++) {
		const struct cg_node *c = &v->nodes[k[i] - 1];

		if (c->count < cg_min(v))
			break;
		fputs(i ? ", {\"sym\": " : "{\"sym\": ", out);
		ap_json_str(out, c->sym);
		fprintf(out, ", \"kernel\": %s, \"samples\": %.0f, \"percent\": %.4f, \"calls\": ",
			c->kernel ? "true" : "false", c->count,
			pct_total(v) ? 100.0 * c->count / pct_total(v) : 0);
		print_graph_json(v, out, k[i]);
		fputc('}', out);
	}
	fputc(']', out);
	free(k);
}

#define SYM_MIN_WIDTH	24	/* what a narrow terminal keeps for Symbol */
#define SYM_COL_MAX	60	/* Symbol's widest, when a column follows */

/* shrink Shared Object, then Command, until Symbol has its room */
static void fit_columns(const struct ap_report_opts *o, int width,
			int *wcomm, int *wdso, int wsrc)
{
	int fixed = 1 + 10 + (o->no_children ? 0 : 10) +
		    (o->show_samples ? 10 : 0), i, over;

	for (i = 0; i < o->nr_keys; i++) {
		switch (o->keys[i]) {
		case AP_KEY_COMM:
			fixed += 2 + *wcomm;
			break;
		case AP_KEY_PID:
		case AP_KEY_TID:
			fixed += 9;
			break;
		case AP_KEY_CPU:
			fixed += 5;
			break;
		case AP_KEY_DSO:
			fixed += 2 + *wdso;
			break;
		case AP_KEY_SYM:
			fixed += 6;
			break;
		case AP_KEY_SRCLINE:
			fixed += 2 + wsrc;
			break;
		}
	}
	over = fixed + SYM_MIN_WIDTH - width;
	if (over > 0 && *wdso > 6) {
		int cut = over < *wdso - 6 ? over : *wdso - 6;

		*wdso -= cut;
		over -= cut;
	}
	if (over > 0 && *wcomm > 4)
		*wcomm -= over < *wcomm - 4 ? over : *wcomm - 4;
}

/* one line on how complete the stacks are: where they end */
static void print_quality(struct view_cpu *v, FILE *out)
{
	double n = 0;
	int i;

	for (i = 0; i < AP_ROOT_NR; i++)
		n += v->roots[i];
	if (!n)
		return;
	fprintf(out, "\n# Stacks : %.1f%% reach a known root, %.1f%% truncated, %.1f%% end in an unknown frame",
		100 * v->roots[AP_ROOT_KNOWN] / n,
		100 * v->roots[AP_ROOT_TRUNCATED] / n,
		100 * v->roots[AP_ROOT_UNKNOWN] / n);
	if (v->cut)
		fprintf(out, " (%.0f cut at a non-code address)", v->cut);
	/* the profiler's own cost, where it was spent */
	if (v->own_bpf)
		fprintf(out, "\n# BPF    : %.1f%% of the samples in aperture's own BPF programs and the helpers they call",
			100 * v->own_bpf / n);
}

static void print_table(struct view_cpu *v, struct rows *rs, FILE *out)
{
	const struct ap_report_opts *o = v->o;
	int wcomm = 7, wdso = 13, wsrc = 11, wsym = 6, i;
	size_t n = rs->nr, r;
	char self[16], child[16], sym[SYM_COL_MAX + 2];

	if (o->limit > 0 && (size_t)o->limit < n)
		n = o->limit;
	for (r = 0; r < n; r++) {
		int l = strlen(rs->v[r].c->comm);

		if (l > wcomm)
			wcomm = l;
		l = strlen(rs->v[r].f.dso);
		if (l > wdso)
			wdso = l;
		l = rs->v[r].srcline ? (int)strlen(rs->v[r].srcline) : 0;
		if (l > wsrc)
			wsrc = l;
		l = 4 + strlen(rs->v[r].f.sym);
		if (l > wsym)
			wsym = l;
	}
	if (wdso > 40)
		wdso = 40;
	if (wsym > SYM_COL_MAX)
		wsym = SYM_COL_MAX;
	if (wsrc > 60)
		wsrc = 60;
	if (o->max_width > 0)
		fit_columns(o, o->max_width, &wcomm, &wdso, wsrc);
	fprintf(out, "# Samples: %.0f of event 'cpu'", v->total);
	if (v->no_stack)
		fprintf(out, " (%" PRIu64 " without a stack)", v->no_stack);
	if (v->all > v->total)
		fprintf(out, "; %.0f before the filters, percentages of %s",
			v->all, o->pct_relative ? "the filtered samples" :
			"all samples (--percentage relative: of the filtered)");
	print_quality(v, out);
	fprintf(out, "\n#\n#");
	if (!o->no_children)
		fprintf(out, " %9s", "Children");
	fprintf(out, " %9s", "Self");
	if (o->show_samples)
		fprintf(out, " %9s", "Samples");
	for (i = 0; i < o->nr_keys; i++) {
		switch (o->keys[i]) {
		case AP_KEY_COMM:
			fprintf(out, "  %-*.*s", wcomm, wcomm, "Command");
			break;
		case AP_KEY_PID:
			fprintf(out, "  %7s", "Pid");
			break;
		case AP_KEY_TID:
			fprintf(out, "  %7s", "Tid");
			break;
		case AP_KEY_CPU:
			fprintf(out, "  %3s", "CPU");
			break;
		case AP_KEY_DSO:
			fprintf(out, "  %-*.*s", wdso, wdso, "Shared Object");
			break;
		case AP_KEY_SYM:
			fprintf(out, "  %-*s", i == o->nr_keys - 1 ? 0 : wsym,
				"Symbol");
			break;
		case AP_KEY_SRCLINE:
			fprintf(out, "  %-*s", i == o->nr_keys - 1 ? 0 : wsrc,
				"Source:Line");
			break;
		}
	}
	fprintf(out, "\n#\n");
	for (r = 0; r < n; r++) {
		const struct row *row = &rs->v[r];

		if (under_limit(v, row))
			continue;
		ap_pct(self, sizeof(self), row->self, pct_total(v));
		ap_pct(child, sizeof(child), row->children, pct_total(v));
		fputc(' ', out);
		if (!o->no_children)
			fprintf(out, " %9s", child);
		fprintf(out, " %9s", self);
		if (o->show_samples)
			fprintf(out, " %9.0f", row->self);
		for (i = 0; i < o->nr_keys; i++) {
			switch (o->keys[i]) {
			case AP_KEY_COMM:
				ap_put_col(out, row->c->comm, wcomm);
				break;
			case AP_KEY_PID:
				fprintf(out, "  %7u", row->c->pid);
				break;
			case AP_KEY_TID:
				fprintf(out, "  %7u", row->c->tid);
				break;
			case AP_KEY_CPU:
				fprintf(out, "  %3u", row->cpu);
				break;
			case AP_KEY_DSO:
				ap_put_col(out, row->f.dso, wdso);
				break;
			case AP_KEY_SYM:
				if (i == o->nr_keys - 1) {
					fprintf(out, "  [%s] %s",
						ap_rframe__mark(&row->f),
						row->f.sym);
					break;
				}
				/* a column follows: padded, or cut with a '+' */
				snprintf(sym, sizeof(sym), "[%s] %s",
					 ap_rframe__mark(&row->f), row->f.sym);
				ap_put_col(out, sym, wsym);
				break;
			case AP_KEY_SRCLINE:
				ap_put_col(out,
					   row->srcline ? row->srcline : "",
					   i == o->nr_keys - 1 ? 0 : wsrc);
				break;
			}
		}
		fputc('\n', out);
		if (row->graph) {
			print_graph(v, out, row->graph, 0);
			fputc('\n', out);
		}
	}
	if (!n)
		fprintf(out, "# no samples%s\n",
			o->nr_pids || o->nr_tids || o->comm ||
			o->nr_dsos || o->nr_symbols || o->time_lo ||
			o->time_hi || (o->sym_filter && *o->sym_filter) ?
			" match the filters" : "");
}

static void print_json(struct view_cpu *v, struct rows *rs, FILE *out)
{
	const struct ap_report_opts *o = v->o;
	size_t n = rs->nr, r;

	if (o->limit > 0 && (size_t)o->limit < n)
		n = o->limit;
	fprintf(out, "{\"samples\": %.0f, \"stacks\": {\"known_root\": %.0f, \"truncated\": %.0f, \"unknown_end\": %.0f, \"other_end\": %.0f, \"cut_non_code\": %.0f, \"own_bpf\": %.0f}, \"rows\": [",
		v->total, v->roots[AP_ROOT_KNOWN], v->roots[AP_ROOT_TRUNCATED],
		v->roots[AP_ROOT_UNKNOWN], v->roots[AP_ROOT_OTHER], v->cut,
		v->own_bpf);
	for (r = 0; r < n; r++) {
		const struct row *row = &rs->v[r];

		fprintf(out, "%s\n    {", r ? "," : "");
		if (!o->no_children)
			fprintf(out, "\"children\": %.4f, ",
				pct_total(v) ?
				100.0 * row->children / pct_total(v) : 0);
		fprintf(out, "\"self\": %.4f, \"self_samples\": %.0f, \"children_samples\": %.0f",
			pct_total(v) ? 100.0 * row->self / pct_total(v) : 0,
			row->self,
			row->children);
		if (has_key(o, AP_KEY_COMM)) {
			fputs(", \"comm\": ", out);
			ap_json_str(out, row->c->comm);
		}
		if (has_key(o, AP_KEY_PID))
			fprintf(out, ", \"pid\": %u", row->c->pid);
		if (has_key(o, AP_KEY_TID))
			fprintf(out, ", \"tid\": %u", row->c->tid);
		if (has_key(o, AP_KEY_CPU))
			fprintf(out, ", \"cpu\": %u", row->cpu);
		if (has_key(o, AP_KEY_DSO)) {
			fputs(", \"dso\": ", out);
			ap_json_str(out, row->f.dso);
		}
		if (has_key(o, AP_KEY_SYM)) {
			fputs(", \"sym\": ", out);
			ap_json_str(out, row->f.sym);
			fprintf(out, ", \"kernel\": %s",
				row->f.kernel ? "true" : "false");
		}
		if (has_key(o, AP_KEY_SRCLINE)) {
			fputs(", \"srcline\": ", out);
			ap_json_str(out, row->srcline);
		}
		/* the srcline's source file (the path DWARF gives) and
		 * line, where known */
		if (has_key(o, AP_KEY_SRCLINE) && row->f.file) {
			fputs(", \"file\": ", out);
			ap_json_str(out, row->f.file);
			fprintf(out, ", \"line\": %d", row->f.line);
		}
		if (row->graph) {
			fprintf(out, ", \"call_graph\": {\"order\": \"%s\", \"calls\": ",
				o->call_graph == AP_CG_CALLER ? "caller" :
				"callee");
			print_graph_json(v, out, row->graph);
			fputc('}', out);
		}
		fputc('}', out);
	}
	fprintf(out, "%s]}", n ? "\n  " : "");
}

/* comm;root;...;leaf COUNT, kernel frames suffixed _[k] */
static int print_folded(struct view_cpu *v, FILE *out)
{
	struct ap_fbuf b = { .srcline = v->o->folded_srcline };
	struct ap_folded fo;
	struct gkey *g;
	size_t i, k, nr_g;
	int err = 0;

	ap_folded__init(&fo);
	/* one line per comm and stack: threads of one name are one group */
	g = group_aggs(v, 1, 0, 0, &nr_g);
	if (!g)
		return -ENOMEM;
	for (i = 0; i < nr_g; i = k) {
		const struct agg *a = &v->aggs[g[i].agg];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, a->ctx);
		double count = 0;
		long n;

		for (k = i; k < nr_g && same_group(&g[k], &g[i]); k++)
			count += v->aggs[g[k].agg].count;
		n = resolve(v, c, a->stack_id);
		if (n < 0) {
			err = (int)n;
			goto out;
		}
		err = ap_fbuf__stack(&b, c->comm, NULL, v->res.frames, n);
		if (!err)
			err = ap_folded__add(&fo, ap_fbuf__intern(&b, v->strs),
					     count);
		if (err)
			goto out;
	}
	ap_folded__print(&fo, out, 1, AP_TAG_CPU, v->o);
out:
	ap_folded__free(&fo);
	free(g);
	free(b.p);
	return err;
}

static int cpu_print(void *p, FILE *out)
{
	struct view_cpu *v = p;
	struct rows rs = { 0 };
	int err;

	if (v->o->format == AP_FMT_FOLDED)
		return print_folded(v, out);
	ap_hmap__init(&rs.by_key);
	err = build_rows(v, &rs);
	if (!err && v->o->call_graph)
		err = build_graphs(v, &rs, v->o->limit > 0 &&
				   (size_t)v->o->limit < rs.nr ?
				   (size_t)v->o->limit : rs.nr);
	if (!err) {
		if (v->o->format == AP_FMT_JSON)
			print_json(v, &rs, out);
		else
			print_table(v, &rs, out);
	}
	ap_hmap__free(&rs.by_key);
	rmemo__free(&rs.memo);
	free(rs.v);
	return err;
}

/* samples and CPU time (samples * the period at -F Hz) */
static int cpu_profile(void *p, struct ap_profile *pr)
{
	struct view_cpu *v = p;
	struct ap_prof_view *pv;
	size_t i;
	int idx, err;

	idx = ap_profile__add_kind(pr, AP_TAG_CPU, 0);
	if (idx < 0)
		return idx;
	/* the descriptor's second type is the time: the period's */
	pv = &pr->views[idx];
	pv->period_type = pv->types[1];
	pv->period = v->o->freq ? 1000000000ll / v->o->freq : 0;
	for (i = 0; i < v->nr_aggs; i++) {
		const struct agg *a = &v->aggs[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, a->ctx);
		struct ap_prof_sample smp = {
			.view = idx, .pid = c->pid, .tid = c->tid,
			.comm = c->comm, .as = c->as, .stack_id = a->stack_id,
			.ref = (uint32_t)i,
		};

		if (a->count <= 0)
			continue;
		smp.v[0] = ap_weight(a->count);
		smp.v[1] = smp.v[0] * pv->period;
		err = ap_profile__add(pr, &smp);
		if (err)
			return err;
	}
	return ap_profile__take_times(pr, idx, &v->times);
}

/* a table's rows and call graphs are ELF functions, its srcline key the
 * address's own line: only --inline and the other formats show inline
 * frames */
static int cpu_needs_inline(const struct ap_report_opts *o)
{
	return o->format != AP_FMT_TABLE || o->inline_rows;
}

const struct ap_view_ops ap_view_cpu = {
	.name = "cpu",
	.tag = AP_TAG_CPU,
	.new = cpu_new,
	.event = cpu_event,
	.print = cpu_print,
	.decay = cpu_decay,
	.free = cpu_free,
	.sort_names = cpu_sorts,
	.sort_keys = (1u << AP_KEY_NR) - 1,
	.profile = cpu_profile,
	.needs_inline = cpu_needs_inline,
};
