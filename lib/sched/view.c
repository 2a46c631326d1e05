// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling view: per process and thread, on-CPU and off-CPU time
 * (blocked / runnable), switches, wakeup latency and CPUs, from the
 * threads' cumulative totals; and off-CPU time by stack from the
 * intervals, for tables, JSON and off-CPU (or, with the CPU view,
 * wall-clock) flame graphs.
 *
 * Thread totals are cumulative snapshots: the newest one of a thread
 * counts, and the final totals of a thread that exited are added up, so
 * that a tid reused by a new thread is not lost.  Intervals are summed
 * per (thread context, stack, state) as they arrive; stacks are
 * symbolized once each at print time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "report/ctxtab.h"
#include "sched/codec.h"
#include "util/hmap.h"
#include "export/profile.h"
#include "report/session.h"
#include "report/stackres.h"
#include "util/num.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "util/vec.h"
#include "report/view.h"

#define DEFAULT_STACK_ROWS	20
#define SHOW_FRAMES		5	/* frames per stack in the table */

struct thr {
	uint32_t pid, tid;
	uint64_t start_ticks;		/* with pid: the process's identity */
	const char *comm;		/* interned, latest */
	const char *pcomm;		/* the process's name */
	struct ap_sched_thr done;	/* summed final totals (exited) */
	struct ap_sched_thr live;	/* newest snapshot */
	int has_live, has_done;
	uint64_t exit_ts;
	uint64_t iv_nr, iv_ns;		/* intervals >= min-block */
};

struct agg {
	uint32_t ctx;
	uint32_t stack_id;
	uint32_t state;
	double ns;
	double count;
};

struct view_sched {
	const struct ap_report_opts *o;
	struct ap_session *s;
	struct ap_strtab *strs;
	struct thr *thrs;
	size_t nr_thrs, cap_thrs;
	struct ap_hmap thr_by_key;
	struct ap_ctxtab ctxs;
	struct agg *aggs;
	size_t nr_aggs, cap_aggs;
	struct ap_hmap agg_by_key;
	uint64_t iv_nr, iv_open;
	double iv_ns;
	struct ap_stackres res;		/* print-time scratch */
	struct ap_prof_times times;	/* speedscope: each interval's */
};

static void *sched_new(const struct ap_report_opts *o, struct ap_session *s)
{
	struct view_sched *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->o = o;
	v->s = s;
	ap_hmap__init(&v->thr_by_key);
	ap_hmap__init(&v->agg_by_key);
	if (ap_view__names_init(o, &v->strs, &v->ctxs, &v->res)) {
		free(v);
		return NULL;
	}
	return v;
}

static void sched_free(void *p)
{
	struct view_sched *v = p;

	if (!v)
		return;
	ap_view__names_free(v->strs, &v->ctxs, &v->res);
	ap_hmap__free(&v->thr_by_key);
	ap_hmap__free(&v->agg_by_key);
	free(v->thrs);
	free(v->aggs);
	ap_prof_times__free(&v->times);
	free(v);
}

/* start: the process's start time when the frame says it, else 0 (the
 * process that pid names when the frame is read) */
static struct thr *thr_get(struct view_sched *v, uint32_t pid, uint32_t tid,
			   uint64_t start)
{
	const struct ap_proc_info *p;
	char key[64];
	const char *k;
	uint64_t *slot;
	struct thr *t;
	int fresh;

	if (start) {
		p = ap_session__proc_id(v->s, pid, start);
	} else {
		p = ap_session__proc(v->s, pid);
		start = p ? p->start_ticks : 0;
	}
	snprintf(key, sizeof(key), "%u/%" PRIu64 "/%u", pid, start, tid);
	k = ap_strtab__intern(v->strs, key, -1);
	slot = k ? ap_hmap__upsert(&v->thr_by_key, (uintptr_t)k, &fresh) : NULL;
	if (!slot)
		return NULL;
	if (fresh) {
		if (ap_grow((void **)&v->thrs, &v->cap_thrs, v->nr_thrs,
			    sizeof(*v->thrs), 64)) {
			ap_hmap__remove(&v->thr_by_key, (uintptr_t)k);
			return NULL;
		}
		t = &v->thrs[v->nr_thrs];
		memset(t, 0, sizeof(*t));
		t->pid = pid;
		t->tid = tid;
		t->start_ticks = start;
		*slot = v->nr_thrs++;
	}
	t = &v->thrs[*slot];
	/* the names of the process pid names now, for an older one's
	 * frame when no other is known */
	if (!p || p == ap_session__proc(v->s, pid) || !t->comm)
		t->comm = ap_session__comm(v->s, pid, tid);
	t->pcomm = p && p->comm ? p->comm : ap_session__comm(v->s, pid, pid);
	return t;
}

/* saturating: a hostile file's totals must not wrap round */
static void thr_add(struct ap_sched_thr *d, const struct ap_sched_thr *s)
{
	int i;

	d->on_ns = ap_add_sat(d->on_ns, s->on_ns);
	d->blocked_ns = ap_add_sat(d->blocked_ns, s->blocked_ns);
	d->runnable_ns = ap_add_sat(d->runnable_ns, s->runnable_ns);
	d->vol = ap_add_sat(d->vol, s->vol);
	d->invol = ap_add_sat(d->invol, s->invol);
	d->wakeups = ap_add_sat(d->wakeups, s->wakeups);
	d->wakeup_total_ns = ap_add_sat(d->wakeup_total_ns,
					s->wakeup_total_ns);
	if (s->wakeup_max_ns > d->wakeup_max_ns)
		d->wakeup_max_ns = s->wakeup_max_ns;
	d->migrations = ap_add_sat(d->migrations, s->migrations);
	d->short_nr = ap_add_sat(d->short_nr, s->short_nr);
	d->short_ns = ap_add_sat(d->short_ns, s->short_ns);
	d->flags |= s->flags;
	for (i = 0; i < AP_SCHED_MASK_WORDS; i++)
		d->cpus[i] |= s->cpus[i];
}

static uint64_t clamp_ns(const struct view_sched *v, uint64_t ns,
			 int all_cpus)
{
	return (uint64_t)ap_session__clamp_ns(v->s, (double)ns, all_cpus);
}

/* the durations of one thread within what the recording holds, as
 * every output shows them (a process's: the sums of its threads', its
 * on-CPU time no more than the recording on all its CPUs) */
static void thr_clamp(const struct view_sched *v, struct ap_sched_thr *t)
{
	t->on_ns = clamp_ns(v, t->on_ns, 0);
	t->blocked_ns = clamp_ns(v, t->blocked_ns, 0);
	t->runnable_ns = clamp_ns(v, t->runnable_ns, 0);
	t->wakeup_total_ns = clamp_ns(v, t->wakeup_total_ns, 0);
	t->wakeup_max_ns = clamp_ns(v, t->wakeup_max_ns, 0);
	t->short_ns = clamp_ns(v, t->short_ns, 0);
}

/* a thread's totals: every finished instance plus the live one */
static void thr_total(const struct view_sched *v, const struct thr *t,
		      struct ap_sched_thr *out)
{
	memset(out, 0, sizeof(*out));
	if (t->has_done)
		thr_add(out, &t->done);
	if (t->has_live)
		thr_add(out, &t->live);
	thr_clamp(v, out);
}

static int on_thr(struct view_sched *v, const struct ap_sched_thr *e)
{
	struct thr *t = thr_get(v, e->pid, e->tid, e->start_ticks);

	if (!t)
		return -ENOMEM;
	if (e->flags & AP_SCHED_THR_EXITED) {
		thr_add(&t->done, e);
		t->has_done = 1;
		if (e->ts > t->exit_ts)
			t->exit_ts = e->ts;
		/* the live snapshot was of this same instance */
		if (t->has_live && t->live.ts <= e->ts)
			t->has_live = 0;
		return 0;
	}
	if (t->has_done && e->ts <= t->exit_ts)
		return 0;	/* taken before the exit, written after it */
	if (!t->has_live || e->ts >= t->live.ts) {
		t->live = *e;
		t->has_live = 1;
	}
	return 0;
}

static int on_iv(struct view_sched *v, const struct ap_sched_iv *e)
{
	struct thr *t = thr_get(v, e->pid, e->tid, e->start_ticks);
	uint64_t key, *slot;
	long c;
	int fresh;

	if (!t)
		return -ENOMEM;
	t->iv_nr++;
	t->iv_ns = ap_add_sat(t->iv_ns, e->off_ns);
	v->iv_nr++;
	v->iv_ns += e->off_ns;
	if (e->flags & AP_SCHED_IV_OPEN)
		v->iv_open++;
	c = ap_ctxtab__index(&v->ctxs, v->s, e->pid, e->tid);
	if (c < 0)
		return (int)c;
	/* ctx (31 bits) | state (1 bit) | stack id (32 bits) */
	key = (uint64_t)c << 33 | (uint64_t)(e->state & 1) << 32 | e->stack_id;
	slot = ap_hmap__upsert(&v->agg_by_key, key, &fresh);
	if (!slot)
		return -ENOMEM;
	if (fresh) {
		if (ap_grow((void **)&v->aggs, &v->cap_aggs, v->nr_aggs,
			    sizeof(*v->aggs), 64)) {
			ap_hmap__remove(&v->agg_by_key, key);
			return -ENOMEM;
		}
		v->aggs[v->nr_aggs] = (struct agg){ (uint32_t)c, e->stack_id,
						    e->state & 1, 0, 0 };
		*slot = v->nr_aggs++;
	}
	v->aggs[*slot].ns += e->off_ns;
	v->aggs[*slot].count += 1;
	if (ap_format__is_timed(v->o->format) &&
	    ap_prof_times__add(&v->times, e->ts, e->off_ns, (uint32_t)*slot))
		return -ENOMEM;
	return 0;
}

static int sched_event(void *p, const struct ap_frame *f)
{
	struct view_sched *v = p;
	struct ap_sched_ev e;
	int err = ap_sched__decode(f->payload, f->len, &e);

	if (err == -ENOMSG)
		return 0;	/* a newer kind: skipped */
	if (err)
		return -EBADMSG;
	if (e.kind == AP_SCHED_THR) {
		if (!ap_report_opts__match(v->o, v->s, e.thr.pid, e.thr.tid))
			return 0;
		return on_thr(v, &e.thr);
	}
	if (!ap_report_opts__match(v->o, v->s, e.iv.pid, e.iv.tid))
		return 0;
	return on_iv(v, &e.iv);
}

/* top: stacks fade; thread totals are cumulative and stay */
static void sched_decay(void *p, unsigned num, unsigned den)
{
	struct view_sched *v = p;
	size_t i;

	v->iv_ns = 0;
	for (i = 0; i < v->nr_aggs; i++) {
		struct agg *a = &v->aggs[i];

		a->ns = den ? a->ns * num / den : 0;
		a->count = den ? a->count * num / den : 0;
		if (a->ns < 1)
			a->ns = a->count = 0;
		v->iv_ns += a->ns;
	}
}

/*
 * Off-CPU time by stack within what the recording holds: a thread is
 * off-CPU in one interval at a time, so all of its intervals together
 * are no longer than the recording (a hostile file claims years; threads
 * wait at once, so their sum has no bound but the outputs').  A thread
 * past it has each of its intervals cut by the same share, its rows and
 * the intervals a timed export places with them, as the timeline cuts
 * its slices (lib/export/trace.c), so that the table, folded, JSON and
 * every export agree; honest threads are left as they are.  Before any
 * output; again changes nothing.
 */
static int sched_clamp(struct view_sched *v)
{
	double max = ap_session__max_ns(v->s, 0);
	struct ap_hmap idx;
	double *share;
	size_t i, n = 0;
	uint32_t *thr;
	int err = 0;

	share = calloc(v->nr_aggs ? v->nr_aggs : 1, sizeof(*share));
	thr = calloc(v->nr_aggs ? v->nr_aggs : 1, sizeof(*thr));
	ap_hmap__init(&idx);
	/* each row's thread, and each thread's sum */
	for (i = 0; share && thr && i < v->nr_aggs; i++) {
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs,
							v->aggs[i].ctx);
		uint64_t *slot;
		int fresh;

		slot = ap_hmap__upsert(&idx, (uint64_t)c->pid << 32 | c->tid,
				       &fresh);
		if (!slot)
			break;
		if (fresh)
			*slot = n++;
		thr[i] = (uint32_t)*slot;
		share[*slot] += v->aggs[i].ns;
	}
	ap_hmap__free(&idx);
	if (!share || !thr || i < v->nr_aggs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		share[i] = share[i] > max ? max / share[i] : 1;
	for (i = 0; i < v->times.nr; i++) {
		struct ap_prof_time *t = &v->times.t[i];
		double k = share[thr[t->ref]];

		if (k < 1)
			t->ns = (uint64_t)((double)t->ns * k);
	}
	v->iv_ns = 0;
	for (i = 0; i < v->nr_aggs; i++) {
		v->aggs[i].ns = ap_session__clamp_ns(v->s, v->aggs[i].ns *
						     share[thr[i]], 0);
		v->iv_ns += v->aggs[i].ns;
	}
	v->iv_ns = v->iv_ns < AP_WEIGHT_MAX ? v->iv_ns : AP_WEIGHT_MAX;
out:
	free(share);
	free(thr);
	return err;
}

/* the frames of a stack, leaf first, into v->res; returns the count */
static long resolve(struct view_sched *v, const struct ap_ctx *c, uint32_t id)
{
	return ap_stackres__resolve(&v->res, v->s, c->as, id,
				    AP_STACKRES_UNKNOWN | AP_STACKRES_KERNEL |
				    (v->o->user_only ?
				     AP_STACKRES_USER_ONLY : 0));
}

static const char *state_name(uint32_t state)
{
	return state == AP_SCHED_ST_PREEMPTED ? "runnable" : "blocked";
}

/* the root frame that marks off-CPU time in folded output */
static const char *state_root(uint32_t state)
{
	return state == AP_SCHED_ST_PREEMPTED ? "[runnable]" : "[off-cpu]";
}

/* processes: the threads of one (pid, start) summed; index of the first
 * thread of each, threads sorted by process then tid */
static int cmp_thr(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start_ticks != y->start_ticks)
		return x->start_ticks < y->start_ticks ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_agg(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static uint64_t lost_table(struct view_sched *v)
{
	return ap_session__lost_tag(v->s, AP_LOST_TABLE, AP_TAG_SCHED);
}

/* threads whose on-CPU time misses run time not measured */
static size_t on_partial(struct view_sched *v)
{
	struct ap_sched_thr one;
	size_t i, n = 0;

	for (i = 0; i < v->nr_thrs; i++) {
		thr_total(v, &v->thrs[i], &one);
		n += !!(one.flags & AP_SCHED_THR_ON_PARTIAL);
	}
	return n;
}

static int same_proc(const struct thr *a, const struct thr *b)
{
	return a->pid == b->pid && a->start_ticks == b->start_ticks;
}

/* the totals of the process whose threads, sorted by cmp_thr, start at
 * ts[i]; returns the index past its last thread */
static size_t proc_total(const struct view_sched *v, const struct thr *ts,
			 size_t nr, size_t i, struct ap_sched_thr *sum)
{
	struct ap_sched_thr one;
	size_t j;

	memset(sum, 0, sizeof(*sum));
	for (j = i; j < nr && same_proc(&ts[j], &ts[i]); j++) {
		thr_total(v, &ts[j], &one);
		thr_add(sum, &one);
	}
	sum->on_ns = clamp_ns(v, sum->on_ns, 1);
	return j;
}

/* the hmaps index the arrays: sort copies, never the originals */
static struct thr *sorted_thrs(struct view_sched *v)
{
	return ap_sorted_copy(v->thrs, v->nr_thrs, sizeof(*v->thrs), cmp_thr);
}

static struct agg *sorted_aggs(struct view_sched *v)
{
	return ap_sorted_copy(v->aggs, v->nr_aggs, sizeof(*v->aggs), cmp_agg);
}

static void print_row(FILE *out, const char *pid, const char *tid,
		      const char *comm, const struct ap_sched_thr *s)
{
	char on[16], off[16], bl[16], rn[16], wa[16], wm[16], cpus[64];

	ap_fmt_ns(on, sizeof(on), s->on_ns);
	/* at least this much */
	if (s->flags & AP_SCHED_THR_ON_PARTIAL)
		strncat(on, "+", sizeof(on) - strlen(on) - 1);
	ap_fmt_ns(off, sizeof(off), s->blocked_ns + s->runnable_ns);
	ap_fmt_ns(bl, sizeof(bl), s->blocked_ns);
	ap_fmt_ns(rn, sizeof(rn), s->runnable_ns);
	ap_fmt_ns(wa, sizeof(wa),
		  s->wakeups ? (double)s->wakeup_total_ns / s->wakeups : 0);
	ap_fmt_ns(wm, sizeof(wm), s->wakeup_max_ns);
	ap_sched_cpus__format(s->cpus, s->flags & AP_SCHED_THR_CPU_OVER, cpus,
			      sizeof(cpus));
	fprintf(out, "  %7s %7s  %-16s %10s %10s %10s %10s %7" PRIu64
		" %7" PRIu64 " %6" PRIu64 " %10s %10s  %s\n",
		pid, tid, comm, on, off, bl, rn, s->vol, s->invol,
		s->migrations, wa, wm, cpus);
}

/* the stack as the table prints it, appended to b */
static int stack_text(struct view_sched *v, const struct ap_ctx *c,
		      uint32_t id, struct ap_fbuf *b)
{
	long n = resolve(v, c, id), j, first_user = -1, shown = 0;
	int err = 0;

	if (n < 0)
		return (int)n;
	for (j = 0; j < n; j++)
		if (!v->res.frames[j].kernel) {
			first_user = j;
			break;
		}
	/* where the thread waited in its own code, leaf first; the kernel
	 * path when it has no user frames */
	for (j = first_user >= 0 ? first_user : 0;
	     j < n && shown < SHOW_FRAMES && !err; j++, shown++)
		err = ap_fbuf__add(b, shown ? " <- " : "",
				   v->res.frames[j].sym,
				   v->res.frames[j].kernel ? "_[k]" : "");
	if (!err && j < n)
		err = ap_fbuf__add(b, "", " <- ...", "");
	return err;
}

/* a row of the stack table: stacks that print the same are one row */
struct srow {
	const char *key;		/* interned "state\tcomm\tstack" */
	const char *comm;
	const char *text;		/* inside key */
	uint32_t state;
	double ns, count;
};

static int cmp_srow(const void *a, const void *b)
{
	const struct srow *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* the aggregates merged by what the table prints; *nr rows */
static struct srow *stack_rows(struct view_sched *v, size_t *nr, int *err)
{
	struct srow *rows = calloc(v->nr_aggs ? v->nr_aggs : 1, sizeof(*rows));
	struct ap_fbuf b = { 0 };
	struct ap_hmap by_key;
	size_t i;

	*nr = 0;
	*err = rows ? 0 : -ENOMEM;
	ap_hmap__init(&by_key);
	for (i = 0; i < v->nr_aggs && !*err; i++) {
		const struct agg *a = &v->aggs[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, a->ctx);
		const char *key;
		uint64_t *slot;
		size_t pre;
		int fresh;

		b.len = 0;
		*err = ap_fbuf__add(&b, state_name(a->state), "\t", c->comm);
		if (!*err)
			*err = ap_fbuf__add(&b, "", "\t", "");
		pre = b.len;
		if (!*err)
			*err = stack_text(v, c, a->stack_id, &b);
		key = *err ? NULL : ap_fbuf__intern(&b, v->strs);
		slot = key ? ap_hmap__upsert(&by_key, (uintptr_t)key, &fresh) :
			     NULL;
		if (!slot) {
			*err = -ENOMEM;
			break;
		}
		if (fresh) {
			rows[*nr] = (struct srow){ key, c->comm, key + pre,
						   a->state, 0, 0 };
			*slot = (*nr)++;
		}
		rows[*slot].ns += a->ns;
		rows[*slot].count += a->count;
	}
	ap_hmap__free(&by_key);
	free(b.p);
	if (*err) {
		free(rows);
		return NULL;
	}
	qsort(rows, *nr, sizeof(*rows), cmp_srow);
	return rows;
}

static int print_table(struct view_sched *v, FILE *out)
{
	const struct ap_report_opts *o = v->o;
	struct thr *ts = sorted_thrs(v);
	struct srow *srows = NULL;
	size_t i, j, nproc = 0, rows, nr_srows = 0;
	char buf[32], pidbuf[16], tidbuf[16];
	int err = 0;

	if (!ts) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < v->nr_thrs; i++)
		if (!i || !same_proc(&ts[i], &ts[i - 1]))
			nproc++;
	ap_fmt_ns(buf, sizeof(buf), v->iv_ns);
	fprintf(out, "# Scheduling: %zu processes, %zu threads; %" PRIu64
		" off-CPU intervals >= min-block (%s",
		nproc, v->nr_thrs, v->iv_nr, buf);
	if (v->iv_open)
		fprintf(out, ", %" PRIu64 " still open at the end", v->iv_open);
	fputs(")\n", out);
	if (lost_table(v))
		fprintf(out, "# lost: %" PRIu64
			" switches or threads not accounted (sched table full)\n",
			lost_table(v));
	if (on_partial(v))
		fprintf(out, "# on-CPU: %zu threads ran for a time not measured (first seen leaving a CPU, or run time unreadable at the end): their On-CPU, marked +, is a lower bound\n",
			on_partial(v));
	fprintf(out, "#\n#  %7s %7s  %-16s %10s %10s %10s %10s %7s %7s %6s %10s %10s  %s\n",
		"Pid", "Tid", "Command", "On-CPU", "Off-CPU", "Blocked",
		"Runnable", "Vol", "Invol", "Migr", "Wake avg", "Wake max",
		"CPUs");
	for (i = 0; i < v->nr_thrs; i = j) {
		struct ap_sched_thr sum, one;

		j = proc_total(v, ts, v->nr_thrs, i, &sum);
		snprintf(pidbuf, sizeof(pidbuf), "%u", ts[i].pid);
		print_row(out, pidbuf, "-", ts[i].pcomm, &sum);
		for (; i < j; i++) {
			thr_total(v, &ts[i], &one);
			snprintf(tidbuf, sizeof(tidbuf), "%u", ts[i].tid);
			print_row(out, "", tidbuf, ts[i].comm, &one);
		}
	}
	if (!v->nr_thrs)
		fprintf(out, "# no scheduling events%s\n",
			o->nr_pids || o->nr_tids || o->comm ?
			" match the filters" : "");

	srows = stack_rows(v, &nr_srows, &err);
	if (err)
		goto out;
	rows = o->limit > 0 ? (size_t)o->limit : DEFAULT_STACK_ROWS;
	if (rows > nr_srows)
		rows = nr_srows;
	if (!rows)
		goto out;
	fprintf(out, "\n# Off-CPU time by stack (top %zu of %zu; --format folded for all)\n#\n",
		rows, nr_srows);
	fprintf(out, "# %10s %8s %8s  %-8s  %-16s  %s\n", "Time", "Share",
		"Count", "State", "Command", "Stack (leaf first)");
	for (i = 0; i < rows; i++) {
		const struct srow *r = &srows[i];
		char pct[16];

		ap_fmt_ns(buf, sizeof(buf), r->ns);
		ap_pct(pct, sizeof(pct), r->ns, v->iv_ns);
		fprintf(out, "  %10s %8s %8.0f  %-8s  %-16s  %s\n", buf, pct,
			r->count, state_name(r->state), r->comm, r->text);
	}
out:
	free(ts);
	free(srows);
	return err;
}

static void json_thr(FILE *out, const struct ap_sched_thr *s)
{
	int cpu, first = 1;

	fprintf(out, "\"on_cpu_ns\": %" PRIu64 ", \"off_cpu_ns\": %" PRIu64
		", \"blocked_ns\": %" PRIu64 ", \"runnable_ns\": %" PRIu64
		", \"voluntary\": %" PRIu64 ", \"involuntary\": %" PRIu64
		", \"migrations\": %" PRIu64 ", \"wakeups\": %" PRIu64
		", \"wakeup_avg_ns\": %.0f, \"wakeup_max_ns\": %" PRIu64
		", \"short_intervals\": %" PRIu64 ", \"short_ns\": %" PRIu64
		", \"cpus\": [",
		s->on_ns, s->blocked_ns + s->runnable_ns, s->blocked_ns,
		s->runnable_ns, s->vol, s->invol, s->migrations, s->wakeups,
		s->wakeups ? (double)s->wakeup_total_ns / s->wakeups : 0.0,
		s->wakeup_max_ns, s->short_nr, s->short_ns);
	for (cpu = 0; cpu < AP_SCHED_MASK_WORDS * 64; cpu++) {
		if (!(s->cpus[cpu / 64] >> (cpu % 64) & 1))
			continue;
		fprintf(out, "%s%d", first ? "" : ", ", cpu);
		first = 0;
	}
	fprintf(out, "], \"more_cpus\": %s, \"on_cpu_partial\": %s",
		s->flags & AP_SCHED_THR_CPU_OVER ? "true" : "false",
		s->flags & AP_SCHED_THR_ON_PARTIAL ? "true" : "false");
}

static int print_json(struct view_sched *v, FILE *out)
{
	struct thr *ts = sorted_thrs(v);
	struct agg *as = sorted_aggs(v);
	size_t i, j, rows;
	long n, k;
	int err = 0;

	if (!ts || !as) {
		err = -ENOMEM;
		goto out;
	}
	fprintf(out, "{\"unit\": \"ns\", \"intervals\": %" PRIu64
		", \"interval_ns\": %.0f, \"open_intervals\": %" PRIu64
		", \"lost\": %" PRIu64 ", \"on_cpu_partial_threads\": %zu"
		", \"processes\": [",
		v->iv_nr, v->iv_ns, v->iv_open, lost_table(v), on_partial(v));
	for (i = 0; i < v->nr_thrs; i = j) {
		struct ap_sched_thr sum, one;

		j = proc_total(v, ts, v->nr_thrs, i, &sum);
		fprintf(out, "%s\n    {\"pid\": %u, \"comm\": ", i ? "," : "",
			ts[i].pid);
		ap_json_str(out, ts[i].pcomm);
		fputs(", ", out);
		json_thr(out, &sum);
		fputs(", \"threads\": [", out);
		for (k = 0; i < j; i++, k++) {
			thr_total(v, &ts[i], &one);
			fprintf(out, "%s\n      {\"tid\": %u, \"comm\": ",
				k ? "," : "", ts[i].tid);
			ap_json_str(out, ts[i].comm);
			fprintf(out, ", \"exited\": %s, \"intervals\": %" PRIu64
				", \"interval_ns\": %" PRIu64 ", ",
				ts[i].has_done && !ts[i].has_live ? "true" :
								   "false",
				ts[i].iv_nr, clamp_ns(v, ts[i].iv_ns, 0));
			json_thr(out, &one);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputs("],\n  \"stacks\": [", out);
	rows = v->o->limit > 0 && (size_t)v->o->limit < v->nr_aggs ?
	       (size_t)v->o->limit : v->nr_aggs;
	for (i = 0; i < rows; i++) {
		const struct agg *a = &as[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, a->ctx);

		n = resolve(v, c, a->stack_id);
		if (n < 0) {
			err = (int)n;
			goto out;
		}
		fprintf(out, "%s\n    {\"pid\": %u, \"tid\": %u, \"comm\": ",
			i ? "," : "", c->pid, c->tid);
		ap_json_str(out, c->comm);
		fprintf(out, ", \"state\": \"%s\", \"off_ns\": %.0f, \"count\": %.0f, \"frames\": [",
			state_name(a->state), a->ns, a->count);
		for (k = 0; k < n; k++) {
			fprintf(out, "%s{\"sym\": ", k ? ", " : "");
			ap_json_str(out, v->res.frames[k].sym);
			fputs(", \"dso\": ", out);
			ap_json_str(out, v->res.frames[k].dso);
			fprintf(out, ", \"kernel\": %s",
				v->res.frames[k].kernel ? "true" : "false");
			if (v->res.frames[k].file) {
				fputs(", \"file\": ", out);
				ap_json_str(out, v->res.frames[k].file);
				fprintf(out, ", \"line\": %d",
					v->res.frames[k].line);
			}
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fprintf(out, "%s]}", rows ? "\n  " : "");
out:
	free(ts);
	free(as);
	return err;
}

/* comm;[off-cpu];root;...;leaf MICROSECONDS, kernel frames suffixed _[k];
 * preempted time under [runnable] instead of [off-cpu] */
static int print_folded(struct view_sched *v, FILE *out)
{
	struct ap_fbuf b = { .srcline = v->o->folded_srcline };
	struct ap_folded fo;
	size_t i;
	int err = 0;

	ap_folded__init(&fo);
	for (i = 0; i < v->nr_aggs; i++) {
		const struct agg *a = &v->aggs[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, a->ctx);
		long n;

		if (a->ns <= 0)
			continue;
		n = resolve(v, c, a->stack_id);
		if (n < 0) {
			err = (int)n;
			goto out;
		}
		err = ap_fbuf__stack(&b, c->comm, state_root(a->state),
				     v->res.frames, n);
		if (!err)
			err = ap_folded__add(&fo, ap_fbuf__intern(&b, v->strs),
					     a->ns);
		if (err)
			goto out;
	}
	ap_folded__print(&fo, out, 1000, AP_TAG_SCHED, v->o);
out:
	ap_folded__free(&fo);
	free(b.p);
	return err;
}

static int sched_print(void *p, FILE *out)
{
	struct view_sched *v = p;
	int err = sched_clamp(v);

	if (err)
		return err;
	switch (v->o->format) {
	case AP_FMT_FOLDED:
		return print_folded(v, out);
	case AP_FMT_JSON:
		return print_json(v, out);
	default:
		return print_table(v, out);
	}
}

/* off-CPU time and switches per stack, under [off-cpu] or [runnable] */
static int sched_profile(void *p, struct ap_profile *pr)
{
	struct view_sched *v = p;
	size_t i;
	int idx, err;

	idx = ap_profile__add_kind(pr, AP_TAG_SCHED, 0);
	if (idx < 0)
		return idx;
	err = sched_clamp(v);
	if (err)
		return err;
	for (i = 0; i < v->nr_aggs; i++) {
		const struct agg *a = &v->aggs[i];
		const struct ap_ctx *c = ap_ctxtab__get(&v->ctxs, a->ctx);
		struct ap_prof_sample smp = {
			.view = idx, .pid = c->pid, .tid = c->tid,
			.comm = c->comm, .as = c->as, .stack_id = a->stack_id,
			.root = state_root(a->state), .ref = (uint32_t)i,
		};

		if (a->ns <= 0)
			continue;
		smp.v[0] = ap_weight(a->ns);
		smp.v[1] = ap_weight(a->count);
		err = ap_profile__add(pr, &smp);
		if (err)
			return err;
	}
	return ap_profile__take_times(pr, idx, &v->times);
}

const struct ap_view_ops ap_view_sched = {
	.name = "sched",
	.tag = AP_TAG_SCHED,
	.new = sched_new,
	.event = sched_event,
	.print = sched_print,
	.decay = sched_decay,
	.free = sched_free,
	.profile = sched_profile,
};
