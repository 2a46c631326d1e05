// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoints: how often each one fired, in which processes, and from
 * which stacks (perf report on a tracepoint event, sorted by callchain).
 * Stacks that resolve to the same frames are one row, whichever thread or
 * process took them; folded output puts each hit on its stack under the
 * tracepoint's name: comm;CAT:NAME;root;...;leaf COUNT.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "export/profile.h"
#include "report/ctxtab.h"
#include "report/session.h"
#include "report/stackres.h"
#include "report/view.h"
#include "tracepoint/codec.h"
#include "util/hmap.h"
#include "util/strtab.h"
#include "util/vec.h"

#define DEFAULT_ROWS	10
#define STACK_FRAMES	16	/* frames a table's stack shows */

/* hits of one tracepoint in one thread context from one stack */
struct stk {
	uint32_t idx;
	uint32_t ctx;
	uint32_t stack_id;
	double n;
};

/* a row of a printed table: a process, or a stack's frames */
struct row {
	uint32_t idx;
	uint32_t pid;
	const char *key;		/* interned: comm, or the frames */
	double n;
};

struct view_tp {
	const struct ap_report_opts *o;
	struct ap_session *s;
	struct ap_strtab *strs;
	struct ap_strtab *keys;		/* stacks' rows: their frames' names
					 * (escaped in strs) and separators */
	struct ap_ctxtab ctxs;
	struct ap_stackres res;
	struct ap_tp_table descs;
	double count[AP_TP_MAX];
	double total;
	struct stk *stks;
	size_t nr_stks, cap_stks;
	struct ap_hmap by_key;
};

static void *tp_new(const struct ap_report_opts *o, struct ap_session *s)
{
	struct view_tp *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->o = o;
	v->s = s;
	v->keys = ap_strtab__new();
	if (!v->keys || ap_view__names_init(o, &v->strs, &v->ctxs, &v->res)) {
		ap_strtab__free(v->keys);
		free(v);
		return NULL;
	}
	ap_hmap__init(&v->by_key);
	return v;
}

static void tp_free(void *p)
{
	struct view_tp *v = p;

	if (!v)
		return;
	ap_tp_table__free(&v->descs);
	ap_hmap__free(&v->by_key);
	free(v->stks);
	ap_view__names_free(v->strs, &v->ctxs, &v->res);
	ap_strtab__free(v->keys);
	free(v);
}

static int tp_event(void *p, const struct ap_frame *f)
{
	struct view_tp *v = p;
	struct ap_tp_event e;
	uint64_t key, *slot;
	long c;
	int fresh;

	switch (ap_tp_frame__kind(f->payload, f->len)) {
	case AP_TP_FRAME_DESC:
		return ap_tp_table__add(&v->descs, f->payload, f->len);
	case AP_TP_FRAME_EVENT:
		break;
	case -EBADMSG:
		return -EBADMSG;
	default:
		return 0;
	}
	if (ap_tp_event__decode(f->payload, f->len, &e))
		return -EBADMSG;
	if (!ap_tp_table__get(&v->descs, e.idx))
		return -EBADMSG;
	if (!ap_report_opts__match(v->o, v->s, e.pid, e.tid))
		return 0;
	c = ap_ctxtab__index(&v->ctxs, v->s, e.pid, e.tid);
	if (c < 0)
		return (int)c;
	key = ap_hash64(((uint64_t)c << 32 | e.stack_id) ^
			ap_hash64(e.idx + 1));
	if (key == AP_HMAP_EMPTY)
		key--;
	slot = ap_hmap__upsert(&v->by_key, key, &fresh);
	if (!slot)
		return -ENOMEM;
	if (fresh) {
		if (ap_grow((void **)&v->stks, &v->cap_stks, v->nr_stks,
			    sizeof(*v->stks), 256))
			return -ENOMEM;
		v->stks[v->nr_stks] = (struct stk){ e.idx, (uint32_t)c,
						    e.stack_id, 0 };
		*slot = v->nr_stks++;
	}
	v->stks[*slot].n += 1;
	v->count[e.idx] += 1;
	v->total += 1;
	return 0;
}

static void tp_decay(void *p, unsigned num, unsigned den)
{
	struct view_tp *v = p;
	double f = den ? (double)num / den : 0;
	size_t i;

	for (i = 0; i < v->nr_stks; i++)
		v->stks[i].n *= f;
	for (i = 0; i < AP_TP_MAX; i++)
		v->count[i] *= f;
	v->total *= f;
}

/* the frames of k into v->res, leaf first */
static long resolve(struct view_tp *v, const struct stk *k)
{
	const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, k->ctx);

	return ap_stackres__resolve(&v->res, v->s, c->as, k->stack_id,
				    AP_STACKRES_UNKNOWN | AP_STACKRES_KERNEL |
				    (v->o->user_only ?
				     AP_STACKRES_USER_ONLY : 0));
}

/* rows summed by (idx, pid, key) */
struct rows {
	struct row *v;
	size_t nr, cap;
	struct ap_hmap by_key;
};

static int rows_add(struct rows *rs, uint32_t idx, uint32_t pid,
		    const char *key, double n)
{
	uint64_t h = ap_hash64((uintptr_t)key ^ ap_hash64((uint64_t)idx << 32 |
							  pid)), *slot;
	int fresh;

	if (!key)
		return -ENOMEM;
	if (h == AP_HMAP_EMPTY)
		h--;
	slot = ap_hmap__upsert(&rs->by_key, h, &fresh);
	if (!slot)
		return -ENOMEM;
	if (fresh) {
		if (ap_grow((void **)&rs->v, &rs->cap, rs->nr, sizeof(*rs->v),
			    64))
			return -ENOMEM;
		rs->v[rs->nr] = (struct row){ idx, pid, key, 0 };
		*slot = rs->nr++;
	}
	rs->v[*slot].n += n;
	return 0;
}

static void rows_free(struct rows *rs)
{
	free(rs->v);
	ap_hmap__free(&rs->by_key);
}

/* by tracepoint, then count (largest first), then key */
static int by_count(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* the processes (threads with --per-thread) and the stacks, as rows:
 * a stack's key is its frames, leaf first, a line each: 'k' (kernel) or
 * 'u', the symbol, a tab, the module */
static int build_rows(struct view_tp *v, struct rows *procs,
		      struct rows *stacks)
{
	char *buf = NULL;
	size_t i, cap = 0;
	int err = 0;

	for (i = 0; i < v->nr_stks && !err; i++) {
		const struct stk *k = &v->stks[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, k->ctx);
		size_t off = 0;
		long n, j;

		if (k->n < 0.5)
			continue;
		err = rows_add(procs, k->idx, v->o->per_thread ? c->tid :
			       c->pid, c->comm, k->n);
		if (err)
			break;
		n = resolve(v, k);
		if (n < 0) {
			err = (int)n;
			break;
		}
		for (j = 0; j < n && j < STACK_FRAMES; j++) {
			const struct ap_rframe *fr = &v->res.frames[j];
			size_t want = off + strlen(fr->sym) +
				      strlen(fr->dso) + 16;

			if (want > cap) {
				char *nb = realloc(buf, want * 2);

				if (!nb) {
					err = -ENOMEM;
					break;
				}
				buf = nb;
				cap = want * 2;
			}
			off += (size_t)sprintf(buf + off, "%s%c%s\t%s",
					       j ? "\n" : "",
					       fr->kernel ? 'k' : 'u',
					       fr->sym, fr->dso);
		}
		if (!err)
			err = rows_add(stacks, k->idx, 0,
				       ap_strtab__intern(v->keys,
							 off ? buf : "", -1),
				       k->n);
	}
	free(buf);
	if (!err) {
		ap_sort(procs->v, procs->nr, sizeof(struct row), by_count);
		ap_sort(stacks->v, stacks->nr, sizeof(struct row), by_count);
	}
	return err;
}

static size_t limit(const struct view_tp *v)
{
	return v->o->limit > 0 ? (size_t)v->o->limit : DEFAULT_ROWS;
}

/* the rows of idx: from *i on, *i left past them */
static size_t rows_of(const struct rows *rs, uint32_t idx, size_t *i)
{
	size_t from;

	while (*i < rs->nr && rs->v[*i].idx < idx)
		(*i)++;
	from = *i;
	while (*i < rs->nr && rs->v[*i].idx == idx)
		(*i)++;
	return *i - from;
}

/* each line of a stack's key into sym, dso and kernel; the rest */
static const char *next_frame(const char *p, char *sym, size_t symlen,
			      char *dso, size_t dsolen, int *kernel)
{
	const char *nl = strchr(p, '\n'), *tab;
	size_t n = nl ? (size_t)(nl - p) : strlen(p), k;

	*kernel = *p == 'k';
	tab = memchr(p, '\t', n);
	k = tab ? (size_t)(tab - p) : n;
	snprintf(sym, symlen, "%.*s", k ? (int)k - 1 : 0, p + 1);
	snprintf(dso, dsolen, "%.*s", tab ? (int)(n - k - 1) : 0,
		 tab ? tab + 1 : "");
	return p + n + (nl ? 1 : 0);
}

static void print_stack(const char *p, FILE *out)
{
	char sym[1024], dso[512];
	int kernel;

	while (*p) {
		p = next_frame(p, sym, sizeof(sym), dso, sizeof(dso), &kernel);
		fprintf(out, "#              %s  (%s)%s\n", sym, dso,
			kernel ? " [k]" : "");
	}
}

static void print_table(struct view_tp *v, const struct rows *procs,
			const struct rows *stacks, FILE *out)
{
	size_t pi = 0, si = 0, n, j;
	uint32_t i;
	char pct[16];

	fprintf(out, "# Tracepoints: %.0f events\n", v->total);
	if (!v->total) {
		fprintf(out, "# no events%s\n",
			v->o->nr_pids || v->o->nr_tids || v->o->comm ?
			" match the filters" : "");
		return;
	}
	fprintf(out, "#\n# %10s %8s  %s\n", "Count", "Percent", "Tracepoint");
	for (i = 0; i < AP_TP_MAX; i++) {
		const struct ap_tp_desc *d = ap_tp_table__get(&v->descs, i);

		if (!d)
			continue;
		ap_pct(pct, sizeof(pct), v->count[i], v->total);
		fprintf(out, "  %10.0f %8s  %s", v->count[i], pct, d->fmt.name);
		if (d->filter[0])
			fprintf(out, "  (--filter '%s')", d->filter);
		fputc('\n', out);
	}
	for (i = 0; i < AP_TP_MAX; i++) {
		const struct ap_tp_desc *d = ap_tp_table__get(&v->descs, i);
		size_t from;

		if (!d || v->count[i] < 0.5)
			continue;
		from = pi;
		n = rows_of(procs, i, &pi);
		fprintf(out, "#\n# %s by %s (%zu of %zu)\n# %10s %8s %8s  %s\n",
			d->fmt.name, v->o->per_thread ? "thread" : "process",
			n < limit(v) ? n : limit(v), n, "Count", "Percent",
			v->o->per_thread ? "TID" : "PID", "Command");
		for (j = 0; j < n && j < limit(v); j++) {
			const struct row *r = &procs->v[from + j];

			ap_pct(pct, sizeof(pct), r->n, v->count[i]);
			fprintf(out, "  %10.0f %8s %8u  %s\n", r->n, pct,
				r->pid, r->key);
		}
		from = si;
		n = rows_of(stacks, i, &si);
		fprintf(out, "#\n# %s stacks (%zu of %zu), leaf first\n",
			d->fmt.name, n < limit(v) ? n : limit(v), n);
		for (j = 0; j < n && j < limit(v); j++) {
			const struct row *r = &stacks->v[from + j];

			ap_pct(pct, sizeof(pct), r->n, v->count[i]);
			fprintf(out, "  %10.0f %8s\n", r->n, pct);
			print_stack(r->key, out);
		}
	}
}

static void json_stack(const char *p, FILE *out)
{
	char sym[1024], dso[512];
	int kernel, first = 1;

	fputc('[', out);
	while (*p) {
		p = next_frame(p, sym, sizeof(sym), dso, sizeof(dso), &kernel);
		fputs(first ? "{\"sym\": " : ", {\"sym\": ", out);
		ap_json_str(out, sym);
		fputs(", \"dso\": ", out);
		ap_json_str(out, dso);
		fprintf(out, ", \"kernel\": %s}", kernel ? "true" : "false");
		first = 0;
	}
	fputc(']', out);
}

static void print_json(struct view_tp *v, const struct rows *procs,
		       const struct rows *stacks, FILE *out)
{
	size_t pi = 0, si = 0, n, j, from;
	int first = 1;
	uint32_t i;

	fprintf(out, "{\"events\": %.0f, \"tracepoints\": [", v->total);
	for (i = 0; i < AP_TP_MAX; i++) {
		const struct ap_tp_desc *d = ap_tp_table__get(&v->descs, i);

		if (!d)
			continue;
		fputs(first ? "\n    {\"name\": " : ",\n    {\"name\": ", out);
		first = 0;
		ap_json_str(out, d->fmt.name);
		fprintf(out, ", \"id\": %u, \"filter\": ", d->fmt.id);
		ap_json_str(out, d->filter);
		fprintf(out, ", \"count\": %.0f, \"%s\": [", v->count[i],
			v->o->per_thread ? "threads" : "processes");
		from = pi;
		n = rows_of(procs, i, &pi);
		for (j = 0; j < n && j < limit(v); j++) {
			const struct row *r = &procs->v[from + j];

			fprintf(out, "%s{\"%s\": %u, \"comm\": ", j ? ", " : "",
				v->o->per_thread ? "tid" : "pid", r->pid);
			ap_json_str(out, r->key);
			fprintf(out, ", \"count\": %.0f}", r->n);
		}
		fputs("], \"stacks\": [", out);
		from = si;
		n = rows_of(stacks, i, &si);
		for (j = 0; j < n && j < limit(v); j++) {
			const struct row *r = &stacks->v[from + j];

			fprintf(out, "%s{\"count\": %.0f, \"frames\": ",
				j ? ", " : "", r->n);
			json_stack(r->key, out);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fprintf(out, "%s]}", first ? "" : "\n  ");
}

/* comm;CAT:NAME;root;...;leaf COUNT */
static int print_folded(struct view_tp *v, FILE *out)
{
	struct ap_fbuf b = { .srcline = v->o->folded_srcline };
	struct ap_folded fo;
	size_t i;
	int err = 0;

	ap_folded__init(&fo);
	for (i = 0; i < v->nr_stks; i++) {
		const struct stk *k = &v->stks[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, k->ctx);
		const struct ap_tp_desc *d = ap_tp_table__get(&v->descs,
							      k->idx);
		long n;

		if (k->n < 0.5 || !d)
			continue;
		n = resolve(v, k);
		if (n < 0) {
			err = (int)n;
			goto out;
		}
		err = ap_fbuf__stack(&b, c->comm, d->fmt.name, v->res.frames,
				     n);
		if (!err)
			err = ap_folded__add(&fo, ap_fbuf__intern(&b, v->strs),
					     k->n);
		if (err)
			goto out;
	}
	ap_folded__print(&fo, out, 1, AP_TAG_TRACEPOINT, v->o);
out:
	ap_folded__free(&fo);
	free(b.p);
	return err;
}

/* hits per stack, under the tracepoint's name */
static int tp_profile(void *p, struct ap_profile *pr)
{
	struct view_tp *v = p;
	size_t i;
	int idx, err;

	idx = ap_profile__add_kind(pr, AP_TAG_TRACEPOINT, 0);
	if (idx < 0)
		return idx;
	for (i = 0; i < v->nr_stks; i++) {
		const struct stk *k = &v->stks[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, k->ctx);
		const struct ap_tp_desc *d = ap_tp_table__get(&v->descs,
							      k->idx);
		struct ap_prof_sample smp = {
			.view = idx, .pid = c->pid, .tid = c->tid,
			.comm = c->comm, .as = c->as,
			.stack_id = k->stack_id,
			.v = { ap_weight(k->n) },
		};

		if (k->n < 0.5 || !d)
			continue;
		smp.root = ap_strtab__intern(v->strs, d->fmt.name, -1);
		if (!smp.root)
			return -ENOMEM;
		err = ap_profile__add(pr, &smp);
		if (err)
			return err;
	}
	return 0;
}

static int tp_print(void *p, FILE *out)
{
	struct view_tp *v = p;
	struct rows procs = { 0 }, stacks = { 0 };
	int err;

	if (v->o->format == AP_FMT_FOLDED)
		return print_folded(v, out);
	ap_hmap__init(&procs.by_key);
	ap_hmap__init(&stacks.by_key);
	err = build_rows(v, &procs, &stacks);
	if (!err && v->o->format == AP_FMT_JSON)
		print_json(v, &procs, &stacks, out);
	else if (!err)
		print_table(v, &procs, &stacks, out);
	rows_free(&procs);
	rows_free(&stacks);
	return err;
}

const struct ap_view_ops ap_view_tracepoint = {
	.name = "tracepoint",
	.tag = AP_TAG_TRACEPOINT,
	.new = tp_new,
	.event = tp_event,
	.print = tp_print,
	.decay = tp_decay,
	.free = tp_free,
	.profile = tp_profile,
};
