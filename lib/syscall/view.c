// SPDX-License-Identifier: GPL-2.0
/*
 * The syscall view: per syscall (or per thread and syscall with
 * --per-thread) the calls, errors, total, average, p50/p95/p99 and
 * maximum latency, sorted by total time; --errors adds the errno
 * breakdown, --hist a log2 latency histogram; folded output weights the
 * user stacks at entry by the time spent in the call (ns).
 *
 * Percentiles are exact from per-call records: every duration is kept (8
 * bytes per call) and sorted once at print time; from summaries they are
 * estimated from the histogram, and marked so.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "event/event.h"
#include "report/ctxtab.h"
#include "syscall/codec.h"
#include "util/hmap.h"
#include "export/profile.h"
#include "report/session.h"
#include "report/stackres.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "syscall/syscalls.h"
#include "util/vec.h"
#include "report/view.h"

struct srow {
	uint32_t id;
	uint32_t pid, tid;		/* --per-thread rows */
	uint64_t start;			/* with pid: the process's identity */
	uint32_t thr;			/* index in view_sc.thrs */
	const char *comm;		/* --per-thread: the thread's name */
	double calls;			/* finished calls, exit included */
	double errors;
	double noreturn;		/* exit, exit_group: no duration */
	double total_ns;
	double inflight;		/* running when recording stopped */
	uint64_t max_ns;
	uint64_t *d;			/* durations of the timed calls */
	size_t n, cap;
	int sorted;
	/* every timed call, per-call records and summaries alike */
	double timed;
	double hist[AP_HIST_BUCKETS];	/* ap_hist__bucket */
	int summed;			/* has summaries: no durations for
					 * all its calls, percentiles from hist */
	struct ap_hmap stacks;		/* folded: ctx << 32 | stack -> ns
					 * (a double's bits: ns_add) */
	struct ap_hmap thr_ns;		/* tid -> ns, the same: sc_clamp */
	struct ap_hmap stack_calls;	/* exports: the same -> calls */
};

/* view_sc.group: rows per syscall, per process and syscall (--sort pid,
 * as syscount -P), per thread and syscall (--per-thread, --sort tid) */
#define SC_BY_CALL	0
#define SC_BY_PROC	1
#define SC_BY_THREAD	2

struct view_sc {
	const struct ap_report_opts *o;
	struct ap_session *s;
	int group;			/* SC_BY_* */
	struct srow *rows;
	size_t nr, cap;
	struct ap_hmap by_key;		/* row key -> index */
	/* --per-thread: threads by (pid, start time, tid), not by tid:
	 * two processes under one pid are two */
	struct thr_id {
		uint32_t pid, tid;
		uint64_t start;
	} *thrs;
	size_t nr_thrs, cap_thrs;
	struct ap_hmap thr_idx;		/* hash of a thr_id -> index */
	struct ap_hmap errs;		/* row << 16 | errno -> count */
	struct ap_ctxtab ctxs;		/* who made a call, for stacks */
	double calls, errors, inflight;
	uint64_t no_stack;		/* folded: calls without a stack */
	struct ap_strtab *strs;		/* ctx keys, print-time strings */
	struct ap_stackres res;		/* print-time scratch */
};

static void *sc_new(const struct ap_report_opts *o, struct ap_session *s)
{
	struct view_sc *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->o = o;
	v->s = s;
	if (o->per_thread || (o->sort_given &&
			      ap_report_opts__has_key(o, AP_KEY_TID)))
		v->group = SC_BY_THREAD;
	else if (o->sort_given && ap_report_opts__has_key(o, AP_KEY_PID))
		v->group = SC_BY_PROC;
	ap_hmap__init(&v->by_key);
	ap_hmap__init(&v->thr_idx);
	ap_hmap__init(&v->errs);
	if (ap_view__names_init(o, &v->strs, &v->ctxs, &v->res)) {
		free(v);
		return NULL;
	}
	return v;
}

static void sc_free(void *p)
{
	struct view_sc *v = p;
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->nr; i++) {
		free(v->rows[i].d);
		ap_hmap__free(&v->rows[i].stacks);
		ap_hmap__free(&v->rows[i].stack_calls);
		ap_hmap__free(&v->rows[i].thr_ns);
	}
	free(v->rows);
	ap_hmap__free(&v->by_key);
	ap_hmap__free(&v->thr_idx);
	free(v->thrs);
	ap_hmap__free(&v->errs);
	ap_view__names_free(v->strs, &v->ctxs, &v->res);
	free(v);
}

/* the index of thread (pid as the session knows it now, tid) */
static long thr_index(struct view_sc *v, uint32_t pid, uint32_t tid,
		      uint64_t *start)
{
	const struct ap_proc_info *p = ap_session__proc(v->s, pid);
	struct thr_id id = { pid, tid, p ? p->start_ticks : 0 };
	uint64_t h = ap_hash_bytes(&id, sizeof(id), 11), *slot;
	int fresh;

	*start = id.start;
	for (;; h = ap_hash64(h)) {
		if (h == AP_HMAP_EMPTY)
			continue;
		slot = ap_hmap__upsert(&v->thr_idx, h, &fresh);
		if (!slot)
			return -ENOMEM;
		if (fresh)
			break;
		if (!memcmp(&v->thrs[*slot], &id, sizeof(id)))
			return (long)*slot;
	}
	if (ap_grow((void **)&v->thrs, &v->cap_thrs, v->nr_thrs,
		    sizeof(*v->thrs), 64)) {
		ap_hmap__remove(&v->thr_idx, h);
		return -ENOMEM;
	}
	v->thrs[v->nr_thrs] = id;
	*slot = v->nr_thrs;
	return (long)v->nr_thrs++;
}

static long row_index(struct view_sc *v, const struct ap_syscall *e)
{
	uint32_t tid = v->group == SC_BY_PROC ? 0 : e->tid;
	uint64_t key = e->id, *slot, start = 0;
	struct srow *r;
	long thr = 0;
	int fresh;

	if (v->group) {
		thr = thr_index(v, e->pid, tid, &start);
		if (thr < 0)
			return thr;
		key |= (uint64_t)thr << 32;
	}

	slot = ap_hmap__upsert(&v->by_key, key, &fresh);
	if (!slot)
		return -ENOMEM;
	if (!fresh)
		return (long)*slot;
	if (ap_grow((void **)&v->rows, &v->cap, v->nr, sizeof(*v->rows), 64)) {
		ap_hmap__remove(&v->by_key, key);
		return -ENOMEM;
	}
	r = &v->rows[v->nr];
	memset(r, 0, sizeof(*r));
	r->id = e->id;
	r->pid = e->pid;
	r->tid = tid;
	r->start = start;
	r->thr = (uint32_t)thr;
	r->comm = ap_session__comm(v->s, e->pid, tid ? tid : e->pid);
	ap_hmap__init(&r->stacks);
	ap_hmap__init(&r->stack_calls);
	ap_hmap__init(&r->thr_ns);
	*slot = v->nr;
	return (long)v->nr++;
}

/*
 * Durations summed in a hash map's slot hold a double's bits: a hostile
 * file's 2^64-1 ns would wrap a uint64_t, and sc_clamp scales the slots
 * of a thread by its share of the recording.
 */
static double ns_of(uint64_t slot)
{
	double ns;

	memcpy(&ns, &slot, sizeof(ns));
	return ns;
}

static void ns_set(uint64_t *slot, double ns)
{
	memcpy(slot, &ns, sizeof(ns));
}

/* adds ns to the slot of key in m (0 when new: 0.0's bits) */
static int ns_add_d(struct ap_hmap *m, uint64_t key, double ns)
{
	uint64_t *slot = ap_hmap__upsert(m, key, NULL);

	if (!slot)
		return -ENOMEM;
	ns_set(slot, ns_of(*slot) + ns);
	return 0;
}

static int ns_add(struct ap_hmap *m, uint64_t key, uint64_t ns)
{
	return ns_add_d(m, key, (double)ns);
}

static int add_duration(struct srow *r, uint64_t d)
{
	if (ap_grow((void **)&r->d, &r->cap, r->n, sizeof(*r->d), 64))
		return -ENOMEM;
	r->d[r->n++] = d;
	r->sorted = 0;
	return 0;
}

/* the in-kernel totals of a thread's calls since the last summary */
static int add_summary(struct view_sc *v, struct srow *r, long idx,
		       const struct ap_syscall *e)
{
	uint64_t *slot, timed = 0;
	uint32_t i;

	r->summed = 1;
	r->calls += e->calls;
	v->calls += e->calls;
	r->noreturn += e->noreturn;
	r->total_ns += e->duration_ns;
	if (ns_add(&r->thr_ns, e->tid, e->duration_ns))
		return -ENOMEM;
	if (e->max_ns > r->max_ns)
		r->max_ns = e->max_ns;
	for (i = 0; i < AP_HIST_BUCKETS; i++) {
		r->hist[i] += e->hist[i];
		timed += e->hist[i];
	}
	r->timed += timed;
	for (i = 0; i < e->nr_errs; i++) {
		r->errors += e->errs[i].count;
		v->errors += e->errs[i].count;
		slot = ap_hmap__upsert(&v->errs,
				       (uint64_t)idx << 16 | e->errs[i].err,
				       NULL);
		if (!slot)
			return -ENOMEM;
		*slot += e->errs[i].count;
	}
	/* summed calls carry no stack: the thread's line in folded output
	 * (where they took time) and in the exports (their calls too) */
	if ((v->o->format == AP_FMT_FOLDED && e->duration_ns) ||
	    (v->o->format != AP_FMT_FOLDED && v->o->format != AP_FMT_TABLE &&
	     v->o->format != AP_FMT_JSON)) {
		long c = ap_ctxtab__index(&v->ctxs, v->s, e->pid, e->tid);

		if (c < 0)
			return (int)c;
		v->no_stack += timed;
		if (ns_add(&r->stacks, (uint64_t)c << 32, e->duration_ns))
			return -ENOMEM;
		slot = ap_hmap__upsert(&r->stack_calls, (uint64_t)c << 32,
				       NULL);
		if (!slot)
			return -ENOMEM;
		*slot += e->calls;
	}
	return 0;
}

/* a call that returned: its duration and errno */
static int timed_call(struct view_sc *v, struct srow *r, long idx,
		      const struct ap_syscall *e)
{
	uint64_t *slot;
	int err;

	err = add_duration(r, e->duration_ns);
	if (err)
		return err;
	r->total_ns += e->duration_ns;
	if (ns_add(&r->thr_ns, e->tid, e->duration_ns))
		return -ENOMEM;
	if (e->duration_ns > r->max_ns)
		r->max_ns = e->duration_ns;
	r->timed++;
	r->hist[ap_hist__bucket(e->duration_ns)]++;
	err = ap_syscall__errno(e->ret);
	if (err) {
		r->errors++;
		v->errors++;
		slot = ap_hmap__upsert(&v->errs, (uint64_t)idx << 16 | err,
				       NULL);
		if (!slot)
			return -ENOMEM;
		(*slot)++;
	}
	return 0;
}

static int sc_event(void *p, const struct ap_frame *f)
{
	struct view_sc *v = p;
	struct ap_syscall e;
	struct srow *r;
	uint64_t *slot;
	long idx, c;
	int err;

	if (ap_syscall__decode(f->payload, f->len, &e))
		return -EBADMSG;
	if (!ap_report_opts__match(v->o, v->s, e.pid, e.tid))
		return 0;
	idx = row_index(v, &e);
	if (idx < 0)
		return (int)idx;
	r = &v->rows[idx];
	if (e.flags & AP_SYSCALL_SUMMARY)
		return add_summary(v, r, idx, &e);
	if (e.flags & AP_SYSCALL_INFLIGHT) {
		r->inflight++;
		v->inflight++;
		return 0;
	}
	r->calls++;
	v->calls++;
	if (e.flags & AP_SYSCALL_NORETURN) {
		/* no duration; a call all the same, which the exports count */
		r->noreturn++;
		if (v->o->format == AP_FMT_FOLDED)
			return 0;
		e.duration_ns = 0;
	} else {
		err = timed_call(v, r, idx, &e);
		if (err)
			return err;
	}
	/* stacks: for folded output and the exports */
	if (v->o->format == AP_FMT_TABLE || v->o->format == AP_FMT_JSON)
		return 0;
	c = ap_ctxtab__index(&v->ctxs, v->s, e.pid, e.tid);
	if (c < 0)
		return (int)c;
	if (!e.stack_id)
		v->no_stack++;
	if (ns_add(&r->stacks, (uint64_t)c << 32 | e.stack_id,
		   e.duration_ns))
		return -ENOMEM;
	slot = ap_hmap__upsert(&r->stack_calls,
			       (uint64_t)c << 32 | e.stack_id, NULL);
	if (!slot)
		return -ENOMEM;
	*slot += 1;
	return 0;
}

/*
 * top: the newest num/den of each row's durations are kept (they were
 * appended in time order) and the counts scaled alike, so the statistics
 * describe a window that slides with the display.
 */
static void sc_decay(void *p, unsigned num, unsigned den)
{
	struct view_sc *v = p;
	uint64_t k, val;
	size_t i, j, it;

	v->calls = v->errors = v->inflight = 0;
	for (i = 0; i < v->nr; i++) {
		struct srow *r = &v->rows[i];
		size_t keep = den && num < den ? r->n * num / den : r->n;

		if (!den || !num)
			keep = 0;
		if (keep < r->n) {
			memmove(r->d, r->d + (r->n - keep),
				keep * sizeof(*r->d));
			r->n = keep;
			r->sorted = 0;
		}
		if (r->summed) {
			/* no durations: scale the totals */
			r->total_ns = den ? r->total_ns * num / den : 0;
		} else {
			r->max_ns = 0;
			r->total_ns = 0;
			for (j = 0; j < r->n; j++) {
				r->total_ns += r->d[j];
				if (r->d[j] > r->max_ns)
					r->max_ns = r->d[j];
			}
		}
		r->timed = den ? r->timed * num / den : 0;
		for (j = 0; j < AP_HIST_BUCKETS; j++)
			r->hist[j] = den ? r->hist[j] * num / den : 0;
		if (!den || !num) {
			r->calls = r->errors = r->noreturn = r->inflight = 0;
			ap_hmap__free(&r->stacks);
			ap_hmap__init(&r->stacks);
			ap_hmap__free(&r->stack_calls);
			ap_hmap__init(&r->stack_calls);
			ap_hmap__free(&r->thr_ns);
			ap_hmap__init(&r->thr_ns);
		} else {
			r->calls = r->calls * num / den;
			r->errors = r->errors * num / den;
			r->noreturn = r->noreturn * num / den;
			r->inflight = 0;
			for (it = 0; ap_hmap__next(&r->stacks, &it, &k, &val);)
				ns_set(ap_hmap__find(&r->stacks, k),
				       ns_of(val) * num / den);
			for (it = 0; ap_hmap__next(&r->thr_ns, &it, &k, &val);)
				ns_set(ap_hmap__find(&r->thr_ns, k),
				       ns_of(val) * num / den);
			for (it = 0;
			     ap_hmap__next(&r->stack_calls, &it, &k, &val);)
				*ap_hmap__find(&r->stack_calls, k) =
					val * num / den;
		}
		v->calls += r->calls;
		v->errors += r->errors;
	}
	for (it = 0; ap_hmap__next(&v->errs, &it, &k, &val);)
		*ap_hmap__find(&v->errs, k) = den ? val * num / den : 0;
}

static const char *row_name(const struct srow *r, char *buf, size_t len)
{
	return ap_syscall__name(r->id, buf, len);
}

static void sort_durations(struct srow *r)
{
	if (!r->sorted) {
		ap_sort_u64(r->d, r->n);
		r->sorted = 1;
	}
}

/* print order: by total time, then calls, then name */
static int by_total(const void *a, const void *b)
{
	const struct srow *x = *(const struct srow *const *)a;
	const struct srow *y = *(const struct srow *const *)b;
	char bx[32], by[32];

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return strcmp(row_name(x, bx, sizeof(bx)), row_name(y, by, sizeof(by)));
}

/* threads of --per-thread, ordered by their total time */
struct thread {
	uint32_t pid, tid;
	const char *comm;
	double total_ns, calls;
	struct srow **rows;		/* a slice of the sorted row array */
	size_t nr;
};

static int by_thread_total(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int by_tid_then_total(const void *a, const void *b)
{
	const struct srow *x = *(const struct srow *const *)a;
	const struct srow *y = *(const struct srow *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return by_total(a, b);
}

/* the rows to print: sorted pointers, and with --per-thread the threads */
struct order {
	struct srow **rows;
	size_t nr;
	struct thread *threads;
	size_t nr_threads;
};

static void order_free(struct order *ord)
{
	free(ord->rows);
	free(ord->threads);
}

static int build_order(struct view_sc *v, struct order *ord)
{
	size_t i;

	memset(ord, 0, sizeof(*ord));
	ord->rows = malloc((v->nr ? v->nr : 1) * sizeof(*ord->rows));
	if (!ord->rows)
		return -ENOMEM;
	for (i = 0; i < v->nr; i++)
		ord->rows[i] = &v->rows[i];
	ord->nr = v->nr;
	if (!v->group) {
		ap_sort(ord->rows, ord->nr, sizeof(*ord->rows), by_total);
		return 0;
	}
	ap_sort(ord->rows, ord->nr, sizeof(*ord->rows), by_tid_then_total);
	ord->threads = calloc(v->nr ? v->nr : 1, sizeof(*ord->threads));
	if (!ord->threads)
		return -ENOMEM;
	for (i = 0; i < ord->nr; i++) {
		struct srow *r = ord->rows[i];
		struct thread *t = ord->nr_threads ?
				   &ord->threads[ord->nr_threads - 1] : NULL;

		if (!t || ord->rows[i - 1]->thr != r->thr) {
			t = &ord->threads[ord->nr_threads++];
			t->pid = r->pid;
			t->tid = r->tid;
			t->comm = r->comm;
			t->rows = &ord->rows[i];
		}
		t->nr++;
		t->total_ns += r->total_ns;
		t->calls += r->calls;
	}
	ap_sort(ord->threads, ord->nr_threads, sizeof(*ord->threads),
	      by_thread_total);
	return 0;
}

/*
 * The p-th percentile of a row's durations: exact from the durations of
 * per-call records; mostly estimated from the histogram when summaries
 * hold calls (*exact cleared).
 */
static uint64_t row_pct(struct srow *r, double p, int *exact)
{
	if (!r->summed) {
		*exact = 1;
		sort_durations(r);
		return ap_percentile(r->d, r->n, p);
	}
	return ap_hist__percentile(r->hist, r->timed, r->total_ns, r->max_ns,
				   p, exact);
}

/* an estimate reads as one: "~1.23 us" */
static void fmt_stat(char *buf, size_t len, struct srow *r, double p)
{
	uint64_t ns;
	int exact;

	if (r->timed <= 0) {
		snprintf(buf, len, "-");
		return;
	}
	ns = row_pct(r, p, &exact);
	buf[0] = '~';
	ap_fmt_ns(buf + !exact, len - !exact, (double)ns);
}

/* are any of a row's p50, p95, p99 estimates? */
static int row_estimated(struct srow *r)
{
	static const double ps[] = { 50, 95, 99 };
	int exact, i, est = 0;

	for (i = 0; i < 3; i++) {
		row_pct(r, ps[i], &exact);
		est |= !exact;
	}
	return est;
}

static void print_rows(struct view_sc *v, struct srow **rows, size_t nr,
		       FILE *out)
{
	char name[32], total[24], avg[24], p50[24], p95[24], p99[24], max[24];
	size_t i, shown = 0;

	fprintf(out, "# %-22s %10s %8s %11s %10s %10s %10s %10s %10s\n",
		"Syscall", "Calls", "Errors", "Total", "Average", "p50", "p95",
		"p99", "Max");
	for (i = 0; i < nr; i++) {
		struct srow *r = rows[i];

		if (!r->calls)
			continue;	/* only in flight: in the footer */
		if (v->o->limit > 0 && shown == (size_t)v->o->limit)
			break;
		shown++;
		sort_durations(r);
		ap_fmt_ns(total, sizeof(total), r->total_ns);
		if (r->timed > 0)
			ap_fmt_ns(avg, sizeof(avg), r->total_ns / r->timed);
		else
			snprintf(avg, sizeof(avg), "-");
		fmt_stat(p50, sizeof(p50), r, 50);
		fmt_stat(p95, sizeof(p95), r, 95);
		fmt_stat(p99, sizeof(p99), r, 99);
		fmt_stat(max, sizeof(max), r, 100);
		fprintf(out, "  %-22s %10.0f %8.0f %11s %10s %10s %10s %10s %10s\n",
			row_name(r, name, sizeof(name)), r->calls, r->errors,
			total, avg, p50, p95, p99, max);
	}
	if (!shown)
		fprintf(out, "# no finished calls%s\n",
			v->o->nr_pids || v->o->nr_tids || v->o->comm ?
			" match the filters" : "");
}

struct errrow {
	size_t order;			/* position of the row in print order */
	struct srow *r;
	int err;
	uint64_t count;
};

static int by_errrow(const void *a, const void *b)
{
	const struct errrow *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->err - y->err;
}

/* the errno rows of the given rows, in their order; *nr set */
static struct errrow *collect_errors(struct view_sc *v, struct srow **rows,
				     size_t nr_rows, size_t *nr)
{
	struct errrow *e = malloc((v->errs.nr ? v->errs.nr : 1) * sizeof(*e));
	struct ap_hmap pos;
	uint64_t k, val, *at;
	size_t i, it;

	*nr = 0;
	if (!e)
		return NULL;
	ap_hmap__init(&pos);
	for (i = 0; i < nr_rows; i++) {
		at = ap_hmap__upsert(&pos, (uint64_t)(rows[i] - v->rows), NULL);
		if (!at) {
			free(e);
			ap_hmap__free(&pos);
			return NULL;
		}
		*at = i;
	}
	for (it = 0; ap_hmap__next(&v->errs, &it, &k, &val);) {
		at = ap_hmap__find(&pos, k >> 16);
		if (!at || !val)
			continue;
		e[*nr] = (struct errrow){ *at, &v->rows[k >> 16],
					  (int)(k & 0xffff), val };
		(*nr)++;
	}
	ap_hmap__free(&pos);
	ap_sort(e, *nr, sizeof(*e), by_errrow);
	return e;
}

static int print_errors(struct view_sc *v, struct srow **rows, size_t nr,
			FILE *out)
{
	char name[32], ebuf[16];
	struct errrow *e;
	size_t n, i;

	e = collect_errors(v, rows, nr, &n);
	if (!e)
		return -ENOMEM;
	fprintf(out, "#\n# Errors\n# %-22s %-22s %10s\n", "Syscall", "Errno",
		"Count");
	for (i = 0; i < n; i++)
		fprintf(out, "  %-22s %-22s %10" PRIu64 "\n",
			row_name(e[i].r, name, sizeof(name)),
			ap_errno__name(e[i].err, ebuf, sizeof(ebuf)),
			e[i].count);
	if (!n)
		fprintf(out, "# no errors\n");
	free(e);
	return 0;
}

static void hist_of(struct srow *r, uint64_t *h, unsigned *lo, unsigned *hi)
{
	size_t i;

	*lo = AP_HIST_BUCKETS;
	*hi = 0;
	for (i = 0; i < AP_HIST_BUCKETS; i++) {
		h[i] = (uint64_t)ap_weight(r->hist[i]);
		if (!h[i])
			continue;
		if (i < *lo)
			*lo = i;
		if (i > *hi)
			*hi = i;
	}
}

/* bpftrace's hist() layout: [lo, hi)  count |@@@@   | */
static void print_hist(struct view_sc *v, struct srow **rows, size_t nr,
		       FILE *out)
{
	uint64_t h[AP_HIST_BUCKETS], max, lo_ns, hi_ns;
	char name[32], l1[24], l2[24], range[56];
	unsigned lo, hi, k;
	size_t i, shown = 0;

	for (i = 0; i < nr; i++) {
		struct srow *r = rows[i];

		if (r->timed <= 0)
			continue;
		if (v->o->limit > 0 && shown == (size_t)v->o->limit)
			break;
		shown++;
		hist_of(r, h, &lo, &hi);
		if (lo > hi)
			continue;
		for (max = 0, k = lo; k <= hi; k++)
			if (h[k] > max)
				max = h[k];
		fprintf(out, "#\n# Latency of %s: %.0f calls\n",
			row_name(r, name, sizeof(name)), r->timed);
		for (k = lo; k <= hi; k++) {
			int bar = max ? (int)(h[k] * 52 / max) : 0;

			ap_hist__range(k, &lo_ns, &hi_ns);
			snprintf(range, sizeof(range), "[%s, %s)",
				 ap_hist__label(lo_ns, l1, sizeof(l1)),
				 ap_hist__label(hi_ns, l2, sizeof(l2)));
			fprintf(out, "%-20s %10" PRIu64 " |%.*s%*s|\n", range,
				h[k], bar,
				"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
				52 - bar, "");
		}
	}
}

static int print_block(struct view_sc *v, struct srow **rows, size_t nr,
		       FILE *out)
{
	int err = 0;

	print_rows(v, rows, nr, out);
	if (v->o->errors)
		err = print_errors(v, rows, nr, out);
	if (v->o->hist)
		print_hist(v, rows, nr, out);
	return err;
}

static void print_inflight(struct view_sc *v, struct order *ord, FILE *out)
{
	char name[32];
	size_t i, n = 0;

	if (!v->inflight)
		return;
	fprintf(out, "#\n# In flight when recording stopped (not in the statistics):");
	for (i = 0; i < ord->nr; i++) {
		const struct srow *r = ord->rows[i];

		if (!r->inflight)
			continue;
		fprintf(out, "%s %s %.0f", n++ ? "," : "",
			row_name(r, name, sizeof(name)), r->inflight);
		if (v->group)
			fprintf(out, " (%s %u)", r->tid ? "tid" : "pid",
				r->tid ? r->tid : r->pid);
	}
	fputc('\n', out);
}

static int print_table(struct view_sc *v, struct order *ord, FILE *out)
{
	uint64_t table = ap_session__lost_tag(v->s, AP_LOST_TABLE,
					      AP_TAG_SYSCALL);
	uint64_t rb = ap_session__lost(v->s, AP_LOST_RINGBUF);
	char total[24];
	size_t i;
	int err = 0;

	fprintf(out, "# Syscalls: %.0f calls, %.0f errors, %.0f in flight at the end\n",
		v->calls, v->errors, v->inflight);
	fprintf(out, "# Lost: %" PRIu64 " calls (in-flight table full), %" PRIu64
		" ring buffer records (all events)\n#\n", table, rb);
	if (!v->group) {
		err = print_block(v, ord->rows, ord->nr, out);
	} else {
		for (i = 0; i < ord->nr_threads && !err; i++) {
			struct thread *t = &ord->threads[i];

			ap_fmt_ns(total, sizeof(total), t->total_ns);
			fputs(i ? "\n" : "", out);
			if (t->tid)
				fprintf(out, "# Thread %u (%s, pid %u)", t->tid,
					t->comm, t->pid);
			else
				fprintf(out, "# Process %u (%s)", t->pid,
					t->comm);
			fprintf(out, ": %.0f calls, %s\n", t->calls, total);
			err = print_block(v, t->rows, t->nr, out);
		}
		if (!ord->nr_threads)
			fprintf(out, "# no finished calls\n");
	}
	print_inflight(v, ord, out);
	return err;
}

static void json_row(struct view_sc *v, struct srow *r, FILE *out,
		     struct errrow *errs, size_t nr_errs)
{
	char name[32], ebuf[16];
	uint64_t h[AP_HIST_BUCKETS], lo_ns, hi_ns;
	unsigned lo, hi, k;
	size_t i, n = 0;
	int exact;

	sort_durations(r);
	fputs("{\"syscall\": ", out);
	ap_json_str(out, row_name(r, name, sizeof(name)));
	fprintf(out, ", \"id\": %u", r->id);
	if (v->group) {
		fprintf(out, ", \"pid\": %u", r->pid);
		if (v->group == SC_BY_THREAD)
			fprintf(out, ", \"tid\": %u", r->tid);
		fputs(", \"comm\": ", out);
		ap_json_str(out, r->comm);
	}
	fprintf(out, ", \"calls\": %.0f, \"errors\": %.0f, \"noreturn\": %.0f"
		", \"in_flight\": %.0f, \"total_ns\": %.0f, \"avg_ns\": %.0f"
		", \"p50_ns\": %" PRIu64 ", \"p95_ns\": %" PRIu64
		", \"p99_ns\": %" PRIu64 ", \"estimated\": %s"
		", \"max_ns\": %" PRIu64,
		r->calls, r->errors, r->noreturn, r->inflight, r->total_ns,
		r->timed > 0 ? r->total_ns / r->timed : 0.0,
		row_pct(r, 50, &exact), row_pct(r, 95, &exact),
		row_pct(r, 99, &exact), row_estimated(r) ? "true" : "false",
		r->max_ns);
	fputs(", \"errnos\": [", out);
	for (i = 0; i < nr_errs; i++) {
		if (errs[i].r != r)
			continue;
		fprintf(out, "%s{\"errno\": ", n++ ? ", " : "");
		ap_json_str(out, ap_errno__name(errs[i].err, ebuf,
						sizeof(ebuf)));
		fprintf(out, ", \"code\": %d, \"count\": %" PRIu64 "}",
			errs[i].err, errs[i].count);
	}
	fputc(']', out);
	if (v->o->hist) {
		fputs(", \"hist\": [", out);
		if (r->timed > 0) {
			hist_of(r, h, &lo, &hi);
			for (k = lo; k <= hi; k++) {
				ap_hist__range(k, &lo_ns, &hi_ns);
				fprintf(out, "%s{\"lo_ns\": %" PRIu64
					", \"hi_ns\": %" PRIu64
					", \"count\": %" PRIu64 "}",
					k > lo ? ", " : "", lo_ns, hi_ns, h[k]);
			}
		}
		fputc(']', out);
	}
	fputc('}', out);
}

static int print_json(struct view_sc *v, struct order *ord, FILE *out)
{
	struct errrow *errs;
	size_t nr_errs, i, shown = 0;

	errs = collect_errors(v, ord->rows, ord->nr, &nr_errs);
	if (!errs)
		return -ENOMEM;
	fprintf(out, "{\"calls\": %.0f, \"errors\": %.0f, \"in_flight\": %.0f"
		", \"lost_table\": %" PRIu64 ", \"lost_ringbuf\": %" PRIu64
		", \"per_thread\": %s, \"per_process\": %s, \"rows\": [",
		v->calls, v->errors, v->inflight,
		ap_session__lost_tag(v->s, AP_LOST_TABLE, AP_TAG_SYSCALL),
		ap_session__lost(v->s, AP_LOST_RINGBUF),
		v->group == SC_BY_THREAD ? "true" : "false",
		v->group == SC_BY_PROC ? "true" : "false");
	/* in print order: by thread or process, then by total time */
	if (v->group) {
		size_t t, j;

		for (t = 0; t < ord->nr_threads; t++) {
			for (j = 0; j < ord->threads[t].nr; j++) {
				if (v->o->limit > 0 &&
				    shown == (size_t)v->o->limit)
					break;
				fprintf(out, "%s\n    ", shown++ ? "," : "");
				json_row(v, ord->threads[t].rows[j], out, errs,
					 nr_errs);
			}
		}
	} else {
		for (i = 0; i < ord->nr; i++) {
			if (v->o->limit > 0 && shown == (size_t)v->o->limit)
				break;
			fprintf(out, "%s\n    ", shown++ ? "," : "");
			json_row(v, ord->rows[i], out, errs, nr_errs);
		}
	}
	fprintf(out, "%s]}", shown ? "\n  " : "");
	free(errs);
	return 0;
}

/* folded: comm;root;...;caller;sys_NAME_[k] NS */
struct line {
	const char *s;
	double ns;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->s, ((const struct line *)b)->s);
}

/* the user frames of a stack, root first, appended to b */
static int add_stack(struct view_sc *v, struct ap_fbuf *b,
		     const struct ap_ctx *c, uint32_t id)
{
	long n = ap_stackres__resolve(&v->res, v->s, c->as, id,
				      AP_STACKRES_USER_ONLY);

	return n < 0 ? (int)n : ap_fbuf__frames(b, v->res.frames, n);
}

static int print_folded(struct view_sc *v, FILE *out)
{
	struct ap_fbuf b = { .srcline = v->o->folded_srcline };
	struct ap_hmap by_line;
	struct line *lines = NULL;
	size_t nr = 0, cap = 0, i, it;
	char name[32], leaf[48];
	uint64_t k, ns, *slot;
	int err = 0, fresh;

	ap_hmap__init(&by_line);
	for (i = 0; i < v->nr; i++) {
		struct srow *r = &v->rows[i];

		snprintf(leaf, sizeof(leaf), "sys_%s",
			 row_name(r, name, sizeof(name)));
		for (it = 0; ap_hmap__next(&r->stacks, &it, &k, &ns);) {
			const struct ap_ctx *c =
				ap_ctxtab__get(&v->ctxs, k >> 32);
			const char *s;

			if (!ns)
				continue;
			b.len = 0;
			err = ap_fbuf__add(&b, "", c->comm, "");
			if (!err)
				err = add_stack(v, &b, c, (uint32_t)k);
			if (!err)
				err = ap_fbuf__add(&b, ";", leaf, "_[k]");
			if (err)
				goto out;
			s = ap_fbuf__intern(&b, v->strs);
			slot = s ? ap_hmap__upsert(&by_line, (uintptr_t)s,
						   &fresh) : NULL;
			if (!slot) {
				err = -ENOMEM;
				goto out;
			}
			if (fresh) {
				err = ap_grow((void **)&lines, &cap, nr,
					      sizeof(*lines), 256);
				if (err)
					goto out;
				lines[nr] = (struct line){ s, 0 };
				*slot = nr++;
			}
			lines[*slot].ns += ns_of(ns);
		}
	}
	if (nr)
		ap_sort(lines, nr, sizeof(*lines), cmp_line);
	for (i = 0; i < nr; i++)
		fprintf(out, "%s %.0f\n", lines[i].s,
			ap_event_kind__folded_weight(AP_TAG_SYSCALL, v->o,
						     (double)lines[i].ns));
out:
	ap_hmap__free(&by_line);
	free(lines);
	free(b.p);
	return err;
}

/* a thread's calls in one row cut to its share f of the recording: each
 * call, its stacks' slots and its total there */
static void thr_cut(struct view_sc *v, struct srow *r, const struct ap_hmap *f)
{
	uint64_t k, val, *t;
	size_t it;

	r->total_ns = 0;
	for (it = 0; ap_hmap__next(&r->stacks, &it, &k, &val);) {
		t = ap_hmap__find(f, ap_ctxtab__get(&v->ctxs, k >> 32)->tid);
		if (t)
			ns_set(ap_hmap__find(&r->stacks, k),
			       ns_of(val) * ns_of(*t));
	}
	for (it = 0; ap_hmap__next(&r->thr_ns, &it, &k, &val);) {
		t = ap_hmap__find(f, k);
		if (t)
			ns_set(ap_hmap__find(&r->thr_ns, k),
			       ns_of(val) * ns_of(*t));
		r->total_ns += ns_of(*ap_hmap__find(&r->thr_ns, k));
	}
}

/*
 * Calls within what the recording holds: a hostile file claims years.
 * A thread's calls run one after another, so all of them together are
 * no longer than the recording; threads call at once, so a row's total
 * is no more than its threads'.  A thread past it has its calls cut in
 * every row by the same share, each call no longer than the recording,
 * its stacks with it, so that the table, folded, JSON and every export
 * agree; honest threads are left as they are.  Before any output;
 * again changes nothing.
 */
static int sc_clamp(struct view_sc *v)
{
	double max = ap_session__max_ns(v->s, 0), was, cut;
	struct ap_hmap all, f;
	uint64_t k, val;
	size_t i, j, it;
	int err = 0;

	ap_hmap__init(&all);
	ap_hmap__init(&f);
	for (i = 0; i < v->nr && !err; i++)
		for (it = 0; ap_hmap__next(&v->rows[i].thr_ns, &it, &k, &val);)
			if ((err = ns_add_d(&all, k, ns_of(val))))
				break;
	for (it = 0; !err && ap_hmap__next(&all, &it, &k, &val);)
		if (ns_of(val) > max)
			err = ns_add_d(&f, k, max / ns_of(val));
	for (i = 0; i < v->nr && !err; i++) {
		struct srow *r = &v->rows[i];

		if ((double)r->max_ns > max)
			r->max_ns = (uint64_t)max;
		if (!f.nr)
			continue;
		was = r->total_ns;
		thr_cut(v, r, &f);
		/* the calls with their row: its percentiles and longest
		 * within its total */
		cut = was > r->total_ns ? r->total_ns / was : 1;
		for (j = 0; j < r->n; j++) {
			r->d[j] = (uint64_t)((double)r->d[j] * cut);
			if (!r->summed && (j == 0 || r->d[j] > r->max_ns))
				r->max_ns = r->d[j];
		}
		r->sorted = 0;
		if ((double)r->max_ns > r->total_ns)
			r->max_ns = (uint64_t)r->total_ns;
	}
	ap_hmap__free(&all);
	ap_hmap__free(&f);
	return err;
}

static int sc_print(void *p, FILE *out)
{
	struct view_sc *v = p;
	struct order ord;
	int err;

	err = sc_clamp(v);
	if (err)
		return err;
	if (v->o->format == AP_FMT_FOLDED)
		return print_folded(v, out);
	err = build_order(v, &ord);
	if (!err) {
		if (v->o->format == AP_FMT_JSON)
			err = print_json(v, &ord, out);
		else
			err = print_table(v, &ord, out);
	}
	order_free(&ord);
	return err;
}

/* time in the call and calls per user stack at entry, under the syscall
 * as the leaf (sys_NAME) */
static int sc_profile(void *p, struct ap_profile *pr)
{
	struct view_sc *v = p;
	char name[32], leaf[48];
	uint64_t k, ns, *calls;
	size_t i, it;
	int idx, err;

	idx = ap_profile__add_kind(pr, AP_TAG_SYSCALL, 0);
	if (idx < 0)
		return idx;
	err = sc_clamp(v);
	if (err)
		return err;
	for (i = 0; i < v->nr; i++) {
		struct srow *r = &v->rows[i];
		const char *lf;

		snprintf(leaf, sizeof(leaf), "sys_%s",
			 row_name(r, name, sizeof(name)));
		lf = ap_strtab__intern(v->strs, leaf, -1);
		if (!lf)
			return -ENOMEM;
		for (it = 0; ap_hmap__next(&r->stacks, &it, &k, &ns);) {
			const struct ap_ctx *c =
				ap_ctxtab__get(&v->ctxs, k >> 32);
			struct ap_prof_sample smp = {
				.view = idx, .pid = c->pid, .tid = c->tid,
				.comm = c->comm, .as = c->as,
				.stack_id = (uint32_t)k, .leaf = lf,
			};

			calls = ap_hmap__find(&r->stack_calls, k);
			smp.v[0] = ap_weight(ns_of(ns));
			smp.v[1] = calls ? (int64_t)*calls : 0;
			if (!smp.v[0] && !smp.v[1])
				continue;
			err = ap_profile__add(pr, &smp);
			if (err)
				return err;
		}
	}
	return 0;
}

const struct ap_view_ops ap_view_syscall = {
	.name = "syscall",
	.tag = AP_TAG_SYSCALL,
	.new = sc_new,
	.event = sc_event,
	.print = sc_print,
	.decay = sc_decay,
	.free = sc_free,
	.sort_keys = 1u << AP_KEY_PID | 1u << AP_KEY_TID,
	.profile = sc_profile,
};
