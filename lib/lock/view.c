// SPDX-License-Identifier: GPL-2.0
/*
 * Lock contention: waits summed per lock (kind, class, process, address;
 * per thread with --per-thread) and per (lock, waiter stack) as frames
 * arrive.  A futex wait's class (mutex, cond, join, other) comes from its
 * waiter's frames, resolved once per stack; only mutexes are shown unless
 * --lock-class asks for more, but every class is counted in the header.  Lock addresses and stacks are symbolized once each at print
 * time: a user lock by the variable covering it (lib/symbols/datasym.c) or the
 * mapping it lives in, a kernel lock by the name recorded with it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "event/event.h"
#include "symbols/datasym.h"
#include "lock/codec.h"
#include "util/hmap.h"
#include "export/export.h"
#include "export/profile.h"
#include "report/session.h"
#include "report/stackres.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "util/vec.h"
#include "report/view.h"

#define TOP_STACKS	3	/* waiter stacks shown per lock */
#define TABLE_FRAMES	8	/* frames of each of them in the table */
/* per thread: the waits a later one may contain */
#define RECENT_WAITS	4

struct lrow {
	const char *key;		/* interned: identity of the row */
	uint32_t kind;			/* AP_LOCK_* */
	uint32_t cls;			/* futex: AP_LOCK_CLS_* */
	uint32_t pid, tid;		/* 0 where rows are merged */
	uint64_t addr;
	uint32_t flags;			/* kernel: LCB_F_*, part of the key */
	const char *ksym;		/* recorded name, or NULL */
	const char *comm;
	struct ap_addrspace *as;
	double count, wait, hold, holds, errors;
	double inner_count, inner_wait;	/* inside another wait counted */
	uint64_t wait_max;
	double scale;			/* lock_clamp's, for the stacks */
	/* print time */
	const char *name;		/* variable or kernel symbol, or NULL */
	const char *region;
};

struct lstk {
	uint32_t row;
	uint32_t stack_id;
	uint32_t tid;			/* exports: the waiter; else 0 */
	const char *comm;
	struct ap_addrspace *as;	/* of the waiter: maps its frames */
	double wait, count;
};

/* a counted wait of a thread, until a later one may turn out to hold it */
struct lrecent {
	uint64_t end, addr;
	uint32_t kind, row;
	double wait, weight;	/* as added to the totals; 0: taken out */
};

struct lthread {
	struct lrecent w[RECENT_WAITS];
	unsigned next;
};

struct view_lock {
	const struct ap_report_opts *o;
	struct ap_session *s;
	struct ap_strtab *strs;
	struct ap_datasym *ds;
	struct lrow *rows;
	size_t nr_rows, cap_rows;
	struct ap_hmap row_by_key;
	struct lstk *stks;
	size_t nr_stks, cap_stks;
	struct ap_hmap stk_by_key;
	/* each wait once: none inside another */
	double total_wait, total_count;
	double by_kind[4];		/* contentions per AP_LOCK_* */
	double inner;			/* inside others: not in totals */
	struct lthread *threads;
	size_t nr_threads, cap_threads;
	struct ap_hmap thread_by_tid;
	double by_class[AP_LOCK_NR_CLS];	/* futex waits, shown or not */
	unsigned classes;		/* shown: 1u << AP_LOCK_CLS_* */
	struct ap_hmap cls_by_stack;	/* "as/stack id" -> class + 1 */
	struct ap_stackres res;		/* print-time scratch */
};

static void *lock_new(const struct ap_report_opts *o, struct ap_session *s)
{
	struct view_lock *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->o = o;
	v->s = s;
	v->classes = o->lock_classes ? o->lock_classes :
		     1u << AP_LOCK_CLS_MUTEX;
	v->strs = ap_view__strtab(o);
	v->ds = ap_datasym__new(ap_session__symbolizer(s));
	ap_hmap__init(&v->row_by_key);
	ap_hmap__init(&v->stk_by_key);
	ap_hmap__init(&v->cls_by_stack);
	ap_hmap__init(&v->thread_by_tid);
	if (!v->strs || !v->ds) {
		ap_strtab__free(v->strs);
		ap_datasym__free(v->ds);
		free(v);
		return NULL;
	}
	ap_stackres__init(&v->res, v->strs);
	return v;
}

static void lock_free(void *p)
{
	struct view_lock *v = p;

	if (!v)
		return;
	ap_strtab__free(v->strs);
	ap_datasym__free(v->ds);
	ap_hmap__free(&v->row_by_key);
	ap_hmap__free(&v->stk_by_key);
	ap_hmap__free(&v->cls_by_stack);
	ap_hmap__free(&v->thread_by_tid);
	free(v->threads);
	free(v->rows);
	free(v->stks);
	ap_stackres__free(&v->res);
	free(v);
}

/* the class of a futex wait: its frames', else its op's (no stack, or a
 * waiter whose functions name nothing known) */
static long futex_class(struct view_lock *v, const struct ap_lock_event *e)
{
	struct ap_addrspace *as = ap_session__event_as(v->s, e->pid);
	char key[64];
	const char *k;
	uint64_t *slot;
	long n, i;
	int fresh, cls = -1;

	if (!e->stack_id)
		return ap_lock__op_class(e->flags);
	snprintf(key, sizeof(key), "%p/%u", (void *)as, e->stack_id);
	k = ap_strtab__intern(v->strs, key, -1);
	if (!k)
		return -ENOMEM;
	slot = ap_hmap__upsert(&v->cls_by_stack, (uintptr_t)k, &fresh);
	if (!slot)
		return -ENOMEM;
	if (!fresh)
		return (long)*slot - 1;
	n = ap_stackres__resolve(&v->res, v->s, as, e->stack_id,
				 AP_STACKRES_USER_ONLY);
	for (i = 0; i < n && cls < 0; i++)
		cls = ap_lock__frame_class(v->res.frames[i].sym);
	if (cls < 0)
		cls = (int)ap_lock__op_class(e->flags);
	*slot = (uint64_t)cls + 1;
	return cls;
}

static long row_index(struct view_lock *v, const struct ap_lock_event *e,
		      uint32_t cls)
{
	const struct ap_proc_info *pi = NULL;
	struct ap_addrspace *as = NULL;
	uint32_t pid = e->pid, tid = v->o->per_thread ? e->tid : 0;
	const char *comm;
	char key[128];
	const char *k;
	uint64_t *slot;
	struct lrow *r;
	int fresh;

	if (e->kind == AP_LOCK_KERNEL) {
		/* a kernel lock is one lock whoever waits for it */
		if (!v->o->per_thread)
			pid = 0;
		comm = pid ? ap_session__comm(v->s, e->pid, tid ? tid : e->pid) :
			     "[kernel]";
	} else {
		pi = ap_session__proc(v->s, pid);
		as = pi ? ap_session__event_as(v->s, pid) : NULL;
		comm = ap_session__comm(v->s, pid, tid ? tid : pid);
	}
	/* a kernel rwsem waited for as reader and as writer: two rows */
	snprintf(key, sizeof(key), "%u/%u/%u/%u/%p/%" PRIx64 "/%x", e->kind,
		 cls, pid, tid, (void *)as, e->lock_addr,
		 e->kind == AP_LOCK_KERNEL ? e->flags : 0);
	k = ap_strtab__intern(v->strs, key, -1);
	if (!k)
		return -ENOMEM;
	slot = ap_hmap__upsert(&v->row_by_key, (uintptr_t)k, &fresh);
	if (!slot)
		return -ENOMEM;
	if (!fresh)
		return (long)*slot;
	if (ap_grow((void **)&v->rows, &v->cap_rows, v->nr_rows,
		    sizeof(*v->rows), 64))
		return -ENOMEM;
	r = &v->rows[v->nr_rows];
	memset(r, 0, sizeof(*r));
	r->key = k;
	r->kind = e->kind;
	r->cls = cls;
	r->pid = pid;
	r->tid = tid;
	r->addr = e->lock_addr;
	r->comm = comm;
	r->as = as;
	*slot = v->nr_rows;
	return (long)v->nr_rows++;
}

static long stk_index(struct view_lock *v, uint32_t row,
		      const struct ap_lock_event *e)
{
	const char *comm = ap_session__comm(v->s, e->pid, e->tid);
	struct ap_addrspace *as = ap_session__event_as(v->s, e->pid);
	/* the exports label each sample with its thread */
	uint32_t tid = ap_format__is_export(v->o->format) ? e->tid : 0;
	char key[160];
	const char *k;
	uint64_t *slot;
	int fresh;

	snprintf(key, sizeof(key), "%u/%u/%p/%p/%u", row, e->stack_id,
		 (const void *)comm, (void *)as, tid);
	k = ap_strtab__intern(v->strs, key, -1);
	if (!k)
		return -ENOMEM;
	slot = ap_hmap__upsert(&v->stk_by_key, (uintptr_t)k, &fresh);
	if (!slot)
		return -ENOMEM;
	if (!fresh)
		return (long)*slot;
	if (ap_grow((void **)&v->stks, &v->cap_stks, v->nr_stks,
		    sizeof(*v->stks), 256))
		return -ENOMEM;
	v->stks[v->nr_stks] = (struct lstk){ row, e->stack_id, tid, comm, as,
					     0, 0 };
	*slot = v->nr_stks;
	return (long)v->nr_stks++;
}

/* does wait e hold the earlier wait w of its thread: a pthread wait the
 * futex sleeps on its mutex, a futex or pthread wait the kernel lock
 * contention inside it (the thread waits for one thing at a time, so an
 * earlier wait that ended after e began is inside e) */
static int holds_wait(const struct ap_lock_event *e, const struct lrecent *w)
{
	if (!(w->weight > 0) || w->end > e->ts ||
	    w->end + e->wait_ns < e->ts || w->wait > e->wait_ns)
		return 0;
	if (e->kind == AP_LOCK_PTHREAD && w->kind == AP_LOCK_FUTEX)
		return w->addr == e->lock_addr;
	return e->kind != AP_LOCK_KERNEL && w->kind == AP_LOCK_KERNEL;
}

/* a pthread wait and the futex sleeps inside it are one wait: the inner
 * ones leave the totals (their rows keep them), so that the header sums
 * never exceed threads x duration; e, in row ri, is kept for later ones */
static int count_once(struct view_lock *v, const struct ap_lock_event *e,
		      long ri)
{
	struct lthread *t;
	struct lrecent *w;
	uint64_t *slot;
	unsigned i;
	int fresh;

	slot = ap_hmap__upsert(&v->thread_by_tid, e->tid, &fresh);
	if (!slot)
		return -ENOMEM;
	if (fresh) {
		if (ap_grow((void **)&v->threads, &v->cap_threads,
			    v->nr_threads, sizeof(*v->threads), 64)) {
			ap_hmap__remove(&v->thread_by_tid, e->tid);
			return -ENOMEM;
		}
		memset(&v->threads[v->nr_threads], 0, sizeof(*v->threads));
		*slot = v->nr_threads++;
	}
	t = &v->threads[*slot];
	for (i = 0; i < RECENT_WAITS; i++) {
		w = &t->w[i];
		if (!holds_wait(e, w))
			continue;
		v->rows[w->row].inner_count += w->weight;
		v->rows[w->row].inner_wait += w->wait;
		v->total_count -= w->weight;
		v->total_wait -= w->wait;
		v->by_kind[w->kind] -= w->weight;
		v->inner += w->weight;
		w->weight = 0;
	}
	t->w[t->next] = (struct lrecent){ e->ts, e->lock_addr, e->kind,
					  (uint32_t)ri, e->wait_ns, 1 };
	t->next = (t->next + 1) % RECENT_WAITS;
	return 0;
}

static int lock_event(void *p, const struct ap_frame *f)
{
	struct view_lock *v = p;
	struct ap_lock_event e;
	struct lrow *r;
	long ri, si, cls = AP_LOCK_CLS_MUTEX;

	if (ap_lock_event__decode(f->payload, f->len, &e))
		return -EBADMSG;
	if (e.kind < AP_LOCK_FUTEX || e.kind > AP_LOCK_PTHREAD)
		return 0;	/* a kind from a newer aperture */
	if (!ap_report_opts__match(v->o, v->s, e.pid, e.tid))
		return 0;
	if (e.kind == AP_LOCK_FUTEX) {
		cls = futex_class(v, &e);
		if (cls < 0)
			return (int)cls;
		v->by_class[cls] += 1;
	}
	/* a pthread wait is a mutex's; kernel locks are always shown */
	if (e.kind != AP_LOCK_KERNEL && !(v->classes & (1u << cls)))
		return 0;
	ri = row_index(v, &e, (uint32_t)cls);
	if (ri < 0)
		return (int)ri;
	r = &v->rows[ri];
	/* the hold of a pthread mutex that waited, sent at its unlock */
	if (e.kind == AP_LOCK_PTHREAD && (e.flags & AP_LOCK_F_HOLD)) {
		r->hold += e.hold_ns;
		r->holds += 1;
		return 0;
	}
	si = stk_index(v, (uint32_t)ri, &e);
	if (si < 0)
		return (int)si;
	r = &v->rows[ri];
	r->count += 1;
	r->wait += e.wait_ns;
	if (e.wait_ns > r->wait_max)
		r->wait_max = e.wait_ns;
	if (e.hold_ns) {
		r->hold += e.hold_ns;
		r->holds += 1;
	}
	if (e.result)
		r->errors += 1;
	r->flags = e.flags;
	if (e.sym[0] && !r->ksym)
		r->ksym = ap_strtab__intern(v->strs, e.sym, -1);
	v->stks[si].wait += e.wait_ns;
	v->stks[si].count += 1;
	v->total_wait += e.wait_ns;
	v->total_count += 1;
	v->by_kind[e.kind] += 1;
	return count_once(v, &e, ri);
}

static void lock_decay(void *p, unsigned num, unsigned den)
{
	struct view_lock *v = p;
	double k = den ? (double)num / den : 0;
	size_t i;

	v->total_wait = v->total_count = 0;
	for (i = 0; i < 4; i++)
		v->by_kind[i] *= k;
	v->inner *= k;
	for (i = 0; i < v->nr_threads * RECENT_WAITS; i++) {
		struct lrecent *w = &v->threads[i / RECENT_WAITS].w[i %
							RECENT_WAITS];

		w->wait *= k;
		w->weight *= k;
	}
	for (i = 0; i < AP_LOCK_NR_CLS; i++)
		v->by_class[i] *= k;
	for (i = 0; i < v->nr_rows; i++) {
		struct lrow *r = &v->rows[i];

		r->count *= k;
		r->wait *= k;
		r->hold *= k;
		r->holds *= k;
		r->errors *= k;
		r->inner_count *= k;
		r->inner_wait *= k;
		if (!k)
			r->wait_max = 0;
		v->total_wait += r->wait - r->inner_wait;
		v->total_count += r->count - r->inner_count;
	}
	for (i = 0; i < v->nr_stks; i++) {
		v->stks[i].wait *= k;
		v->stks[i].count *= k;
	}
}

/* the name of a user lock: the variable covering it, else the mapping */
static void name_user_lock(struct view_lock *v, struct lrow *r)
{
	const struct ap_mmap *m, *file;
	char buf[AP_LOCK_SYM_MAX + 24];
	uint64_t off;

	m = r->as ? ap_addrspace__find(r->as, r->addr) : NULL;
	r->region = ap_strtab__intern(v->strs, ap_datasym__region(m), -1);
	if (!m)
		return;
	file = m;
	/* a .bss larger than the file's last page continues in the
	 * anonymous mapping right after the file's data mapping */
	if (!m->path[0] && m->start)
		file = ap_addrspace__find(r->as, m->start - 1);
	if (!file || file->path[0] != '/')
		return;
	if (ap_datasym__lookup(v->ds, file, r->addr, buf, AP_LOCK_SYM_MAX,
			       &off))
		return;
	if (file != m)
		r->region = ap_strtab__intern(v->strs,
					      ap_datasym__region(file), -1);
	if (off) {
		size_t n = strlen(buf);

		snprintf(buf + n, sizeof(buf) - n, "+0x%" PRIx64, off);
	}
	r->name = ap_strtab__intern(v->strs, buf, -1);
}

static void name_rows(struct view_lock *v)
{
	size_t i;

	for (i = 0; i < v->nr_rows; i++) {
		struct lrow *r = &v->rows[i];

		if (r->kind == AP_LOCK_KERNEL) {
			r->name = r->ksym;
			r->region = "kernel";
		} else if (!r->region) {
			name_user_lock(v, r);
		}
	}
}

static const char *type_name(const struct lrow *r)
{
	static const char *const futex_types[AP_LOCK_NR_CLS] = {
		"futex:mutex", "futex:cond", "futex:join", "futex:other",
	};

	if (r->kind == AP_LOCK_KERNEL)
		return ap_lock__kernel_type(r->flags);
	if (r->kind == AP_LOCK_FUTEX && r->cls < AP_LOCK_NR_CLS)
		return futex_types[r->cls];
	return ap_lock__kind_name(r->kind);
}

static void lock_label(const struct lrow *r, char *buf, size_t len)
{
	if (r->name)
		snprintf(buf, len, "%s", r->name);
	else if (r->kind == AP_LOCK_KERNEL)
		snprintf(buf, len, "0x%" PRIx64, r->addr);
	else
		snprintf(buf, len, "0x%" PRIx64 " [%s]", r->addr, r->region);
}

static int cmp_rows(const void *a, const void *b)
{
	const struct lrow *x = *(const struct lrow *const *)a;
	const struct lrow *y = *(const struct lrow *const *)b;

	if (x->wait != y->wait)
		return x->wait < y->wait ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

static int cmp_stks(const void *a, const void *b)
{
	const struct lstk *x = *(const struct lstk *const *)a;
	const struct lstk *y = *(const struct lstk *const *)b;

	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	if (x->wait != y->wait)
		return x->wait < y->wait ? 1 : -1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

/* the frames of stack id, leaf first, into v->res; returns the count */
static long resolve(struct view_lock *v, const struct lstk *st)
{
	int flags = v->o->user_only ? AP_STACKRES_USER_ONLY : 0;
	long n;
	int err;

	/* pthread stacks are taken where pthread_mutex_lock returns */
	if (v->rows[st->row].kind == AP_LOCK_PTHREAD)
		flags |= AP_STACKRES_LEAF_RET;
	n = ap_stackres__resolve(&v->res, v->s, st->as, st->stack_id, flags);
	if (n)
		return n;
	/* no stack, or nothing of it left */
	err = ap_stackres__push(&v->res, "[unknown]", "[unknown]", 0);
	return err ? err : 1;
}

/* rows sorted by total wait, and each row's stacks sorted by wait */
struct sorted {
	struct lrow **rows;
	size_t nr;
	struct lstk **stks;		/* grouped by row index */
	size_t *first;			/* per row index: first in stks */
	size_t *count;
};

static void sorted_free(struct sorted *so)
{
	free(so->rows);
	free(so->stks);
	free(so->first);
	free(so->count);
}

static int sort_all(struct view_lock *v, struct sorted *so)
{
	size_t i;

	memset(so, 0, sizeof(*so));
	so->rows = calloc(v->nr_rows + 1, sizeof(*so->rows));
	so->stks = calloc(v->nr_stks + 1, sizeof(*so->stks));
	so->first = calloc(v->nr_rows + 1, sizeof(*so->first));
	so->count = calloc(v->nr_rows + 1, sizeof(*so->count));
	if (!so->rows || !so->stks || !so->first || !so->count) {
		sorted_free(so);
		return -ENOMEM;
	}
	for (i = 0; i < v->nr_rows; i++)
		if (v->rows[i].count > 0)
			so->rows[so->nr++] = &v->rows[i];
	ap_sort(so->rows, so->nr, sizeof(*so->rows), cmp_rows);
	for (i = 0; i < v->nr_stks; i++)
		so->stks[i] = &v->stks[i];
	ap_sort(so->stks, v->nr_stks, sizeof(*so->stks), cmp_stks);
	for (i = v->nr_stks; i-- > 0;) {
		so->first[so->stks[i]->row] = i;
		so->count[so->stks[i]->row]++;
	}
	name_rows(v);
	return 0;
}

static size_t shown(const struct view_lock *v, size_t nr)
{
	if (v->o->limit > 0 && (size_t)v->o->limit < nr)
		return v->o->limit;
	return nr;
}

/* every futex wait by class, and which classes the table shows */
static void print_classes(struct view_lock *v, FILE *out)
{
	unsigned i, n = 0;

	fputs("# futex waits:", out);
	for (i = 0; i < AP_LOCK_NR_CLS; i++)
		fprintf(out, "%s %s %.0f", i ? "," : "",
			ap_lock__class_name(i), v->by_class[i]);
	fputs("; shown:", out);
	for (i = 0; i < AP_LOCK_NR_CLS; i++)
		if (v->classes & (1u << i))
			fprintf(out, "%s%s", n++ ? "," : " ",
				ap_lock__class_name(i));
	if (v->classes != (1u << AP_LOCK_NR_CLS) - 1)
		fputs(" (--lock-class all shows every class)", out);
	fputs("\n#\n", out);
}

static void print_table(struct view_lock *v, struct sorted *so, FILE *out)
{
	char tw[16], mw[16], aw[16], ah[16], lbl[AP_LOCK_SYM_MAX + 64];
	size_t n = shown(v, so->nr), i, j;
	int per_thread = v->o->per_thread;

	ap_fmt_ns(tw, sizeof(tw), v->total_wait);
	fprintf(out, "# Lock contention: %.0f waits, %s total wait (futex %.0f, kernel %.0f, pthread %.0f",
		v->total_count, tw, v->by_kind[AP_LOCK_FUTEX],
		v->by_kind[AP_LOCK_KERNEL], v->by_kind[AP_LOCK_PTHREAD]);
	if (v->inner >= 0.5)
		fprintf(out, "; %.0f waits inside these not counted again",
			v->inner);
	fputs(")\n", out);
	print_classes(v, out);
	fprintf(out, "# %9s  %10s  %10s  %10s  %10s  %-11s  %7s  %-15s  %s\n#\n",
		"Contended", "Total wait", "Max wait", "Avg wait", "Avg hold",
		"Type", per_thread ? "Tid" : "Pid", "Command", "Lock");
	for (i = 0; i < n; i++) {
		const struct lrow *r = so->rows[i];
		size_t ri = r - v->rows, k;

		ap_fmt_ns(tw, sizeof(tw), r->wait);
		ap_fmt_ns(mw, sizeof(mw), r->wait_max);
		ap_fmt_ns(aw, sizeof(aw), r->wait / r->count);
		if (r->holds > 0)
			ap_fmt_ns(ah, sizeof(ah), r->hold / r->holds);
		else
			snprintf(ah, sizeof(ah), "-");
		lock_label(r, lbl, sizeof(lbl));
		fprintf(out, "  %9.0f  %10s  %10s  %10s  %10s  %-11s  ", r->count,
			tw, mw, aw, ah, type_name(r));
		if (per_thread ? r->tid : r->pid)
			fprintf(out, "%7u", per_thread ? r->tid : r->pid);
		else
			fprintf(out, "%7s", "-");
		fprintf(out, "  %-15s  %s\n", r->comm, lbl);
		for (j = 0; j < so->count[ri] && j < TOP_STACKS; j++) {
			const struct lstk *st = so->stks[so->first[ri] + j];
			char pct[16];
			long nf = resolve(v, st);

			if (nf < 0 || st->wait <= 0)
				break;
			ap_pct(pct, sizeof(pct), st->wait, r->wait);
			fprintf(out, "  %19s  %s", pct, st->comm);
			for (k = 0; k < (size_t)nf && k < TABLE_FRAMES; k++)
				fprintf(out, "%s%s%s", k ? " <- " : ": ",
					v->res.frames[k].sym,
					v->res.frames[k].kernel ? " [k]" : "");
			if ((size_t)nf > TABLE_FRAMES)
				fputs(" <- ...", out);
			fputc('\n', out);
		}
	}
	if (!n)
		fprintf(out, "# no lock contention%s\n",
			v->o->nr_pids || v->o->nr_tids || v->o->comm ?
			" matches the filters" : " recorded");
}

static void print_json(struct view_lock *v, struct sorted *so, FILE *out)
{
	size_t n = shown(v, so->nr), i, j;
	long k;

	fprintf(out, "{\"contentions\": %.0f, \"total_wait_ns\": %.0f, \"by_kind\": {\"futex\": %.0f, \"kernel\": %.0f, \"pthread\": %.0f}, \"inner_waits\": %.0f, \"futex_by_class\": {",
		v->total_count, v->total_wait, v->by_kind[AP_LOCK_FUTEX],
		v->by_kind[AP_LOCK_KERNEL], v->by_kind[AP_LOCK_PTHREAD],
		v->inner);
	for (i = 0; i < AP_LOCK_NR_CLS; i++)
		fprintf(out, "%s\"%s\": %.0f", i ? ", " : "",
			ap_lock__class_name((unsigned)i), v->by_class[i]);
	fputs("}, \"classes_shown\": [", out);
	for (i = 0, j = 0; i < AP_LOCK_NR_CLS; i++)
		if (v->classes & (1u << i))
			fprintf(out, "%s\"%s\"", j++ ? ", " : "",
				ap_lock__class_name((unsigned)i));
	fputs("], \"locks\": [", out);
	for (i = 0; i < n; i++) {
		const struct lrow *r = so->rows[i];
		size_t ri = r - v->rows;

		fprintf(out, "%s\n    {\"addr\": \"0x%" PRIx64 "\", \"name\": ",
			i ? "," : "", r->addr);
		if (r->name)
			ap_json_str(out, r->name);
		else
			fputs("null", out);
		fputs(", \"kind\": ", out);
		ap_json_str(out, ap_lock__kind_name(r->kind));
		if (r->kind == AP_LOCK_FUTEX) {
			fputs(", \"class\": ", out);
			ap_json_str(out, ap_lock__class_name(r->cls));
		}
		fputs(", \"type\": ", out);
		ap_json_str(out, type_name(r));
		fprintf(out, ", \"flags\": %u, \"region\": ", r->flags);
		ap_json_str(out, r->region);
		fprintf(out, ", \"pid\": %u", r->pid);
		if (v->o->per_thread)
			fprintf(out, ", \"tid\": %u", r->tid);
		fputs(", \"comm\": ", out);
		ap_json_str(out, r->comm);
		fprintf(out, ", \"contentions\": %.0f, \"total_wait_ns\": %.0f, \"max_wait_ns\": %" PRIu64 ", \"avg_wait_ns\": %.0f, \"errors\": %.0f, \"holds\": %.0f, \"avg_hold_ns\": ",
			r->count, r->wait, r->wait_max, r->wait / r->count,
			r->errors, r->holds);
		if (r->holds > 0)
			fprintf(out, "%.0f", r->hold / r->holds);
		else
			fputs("null", out);
		fputs(", \"stacks\": [", out);
		for (j = 0; j < so->count[ri] && j < TOP_STACKS; j++) {
			const struct lstk *st = so->stks[so->first[ri] + j];
			long nf = resolve(v, st);

			if (nf < 0)
				break;
			fprintf(out, "%s{\"share\": %.4f, \"wait_ns\": %.0f, \"count\": %.0f, \"comm\": ",
				j ? ", " : "",
				r->wait > 0 ? 100.0 * st->wait / r->wait : 0,
				st->wait, st->count);
			ap_json_str(out, st->comm);
			fputs(", \"frames\": [", out);
			for (k = 0; k < nf; k++) {
				fputs(k ? ", " : "", out);
				ap_json_str(out, v->res.frames[k].sym);
			}
			fputs("]}", out);
		}
		fputs("]}", out);
	}
	fprintf(out, "%s]}", n ? "\n  " : "");
}

/* comm;root;...;leaf;KIND:LOCK WAIT_NS: a contention flame graph; with
 * lock:pthread a mutex shows twice, its futex sleeps inside its pthread
 * waits, told apart by KIND */
static int print_folded(struct view_lock *v, struct sorted *so, FILE *out)
{
	char lbl[AP_LOCK_SYM_MAX + 64];
	struct ap_fbuf b = { .srcline = v->o->folded_srcline };
	size_t i;
	int err = 0;

	for (i = 0; i < v->nr_stks; i++) {
		const struct lstk *st = so->stks[i];
		const struct lrow *r = &v->rows[st->row];
		long nf, k;

		if (st->wait < 1)
			continue;
		nf = resolve(v, st);
		if (nf < 0) {
			err = (int)nf;
			break;
		}
		b.len = 0;
		err = ap_fbuf__add(&b, "", st->comm, "");
		if (!err)
			err = ap_fbuf__frames(&b, v->res.frames, nf);
		if (err)
			break;
		lock_label(r, lbl, sizeof(lbl));
		/* flamegraph.pl splits on the last space: none in a frame */
		for (k = 0; lbl[k]; k++)
			if (lbl[k] == ' ')
				lbl[k] = '_';
		fprintf(out, "%s;%s:%s %.0f\n", b.p,
			ap_lock__kind_name(r->kind), lbl,
			ap_event_kind__folded_weight(AP_TAG_LOCK, v->o,
						     st->wait));
	}
	free(b.p);
	return err;
}

/*
 * Waits within what the recording holds: a hostile file claims years.
 * One wait is no longer than the recording; a row's are its waiters'
 * at once, each thread's one after another, so no more than the span
 * times its waits or the threads that waited, whichever is fewer; and
 * all rows together (each wait once) no more than the span times the
 * threads, the bound count_once keeps honest sums to.  A row's stacks
 * scale with it, so that the table, folded, JSON and every export
 * agree.  Before any output; again changes nothing.
 */
static void lock_clamp(struct view_lock *v)
{
	double max = ap_session__max_ns(v->s, 0);
	double nthr = v->nr_threads ? (double)v->nr_threads : 1;
	double all, k;
	size_t i;

	v->total_wait = 0;
	for (i = 0; i < v->nr_rows; i++) {
		struct lrow *r = &v->rows[i];
		double w = ap_session__clamp_sum(v->s, r->wait,
						 r->count < nthr ? r->count :
								   nthr);

		r->scale = r->wait > w ? w / r->wait : 1;
		r->wait = w;
		r->inner_wait *= r->scale;
		if ((double)r->wait_max > max)
			r->wait_max = (uint64_t)max;
		r->hold = ap_session__clamp_sum(v->s, r->hold,
						r->holds < nthr ? r->holds :
								  nthr);
		v->total_wait += r->wait - r->inner_wait;
	}
	all = ap_session__clamp_sum(v->s, v->total_wait, nthr);
	k = v->total_wait > all ? all / v->total_wait : 1;
	v->total_wait = 0;
	for (i = 0; i < v->nr_rows; i++) {
		struct lrow *r = &v->rows[i];

		r->scale *= k;
		r->wait *= k;
		r->inner_wait *= k;
		if ((double)r->wait_max > r->wait)
			r->wait_max = (uint64_t)r->wait;
		v->total_wait += r->wait - r->inner_wait;
	}
	for (i = 0; i < v->nr_stks; i++)
		v->stks[i].wait *= v->rows[v->stks[i].row].scale;
}

static int lock_print(void *p, FILE *out)
{
	struct view_lock *v = p;
	struct sorted so;
	int err;

	lock_clamp(v);
	err = sort_all(v, &so);
	if (err)
		return err;
	if (v->o->format == AP_FMT_FOLDED)
		err = print_folded(v, &so, out);
	else if (v->o->format == AP_FMT_JSON)
		print_json(v, &so, out);
	else
		print_table(v, &so, out);
	sorted_free(&so);
	return err;
}

/* wait time and waits per waiter stack, the lock as the leaf
 * (KIND:LOCK, as in folded output) */
static int lock_profile(void *p, struct ap_profile *pr)
{
	struct view_lock *v = p;
	char lbl[AP_LOCK_SYM_MAX + 64], leaf[AP_LOCK_SYM_MAX + 96];
	size_t i;
	int idx, err;

	idx = ap_profile__add_kind(pr, AP_TAG_LOCK, 0);
	if (idx < 0)
		return idx;
	lock_clamp(v);
	name_rows(v);
	for (i = 0; i < v->nr_stks; i++) {
		const struct lstk *st = &v->stks[i];
		const struct lrow *r = &v->rows[st->row];
		struct ap_prof_sample smp = {
			.view = idx, .pid = r->pid,
			.tid = st->tid ? st->tid : r->tid,
			.comm = st->comm, .as = st->as,
			.stack_id = st->stack_id,
		};

		if (st->wait < 1)
			continue;
		lock_label(r, lbl, sizeof(lbl));
		snprintf(leaf, sizeof(leaf), "%s:%s",
			 ap_lock__kind_name(r->kind), lbl);
		smp.leaf = ap_strtab__intern(v->strs, leaf, -1);
		if (!smp.leaf)
			return -ENOMEM;
		smp.v[0] = ap_weight(st->wait);
		smp.v[1] = ap_weight(st->count);
		err = ap_profile__add(pr, &smp);
		if (err)
			return err;
	}
	return 0;
}

const struct ap_view_ops ap_view_lock = {
	.name = "lock",
	.tag = AP_TAG_LOCK,
	.new = lock_new,
	.event = lock_event,
	.print = lock_print,
	.decay = lock_decay,
	.free = lock_free,
	.profile = lock_profile,
};
