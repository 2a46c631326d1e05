// SPDX-License-Identifier: GPL-2.0
/*
 * speedscope export: its published file format
 * (https://www.speedscope.app/file-format-schema.json), one sampled
 * profile per view and thread, frames shared by every profile.  A view
 * with times (cpu, sched) is written in time order, each event where it
 * happened and gaps where the thread had none, in nanoseconds over the
 * whole recording (as speedscope's own import of perf script places
 * samples by their times); others by stack, in the view's main unit.
 */
#include "export/export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbolizer.h"
#include "util/hmap.h"
#include "util/num.h"
#include "export/profile.h"
#include "report/stackres.h"
#include "util/strtab.h"
#include "util/vec.h"
#include "report/view.h"

struct ss {
	const struct ap_profile *p;
	struct ap_strtab *strs;
	struct ap_stackres res;
	const struct ap_rframe **frames;	/* shared.frames */
	size_t nr_frames, cap_frames;
	struct ap_hmap frame_idx;		/* interned key -> index */
	char **stacks;			/* per sample: stack_json's */
};

/* speedscope's units: none, nanoseconds, bytes and a few more */
static const char *ss_unit(const char *unit)
{
	if (!strcmp(unit, "nanoseconds") || !strcmp(unit, "bytes"))
		return unit;
	return "none";
}

static long frame_idx(struct ss *x, const struct ap_rframe *f)
{
	char key[2048];
	const char *k;
	uint64_t *slot;
	int fresh;

	/* a Python frame is one per line, as py-spy's */
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%d\x1f%d", f->sym, f->dso,
		 f->kernel, f->python ? f->line : 0);
	k = ap_strtab__intern(x->strs, key, -1);
	slot = k ? ap_hmap__upsert(&x->frame_idx, (uintptr_t)k, &fresh) : NULL;
	if (!slot)
		return -ENOMEM;
	if (fresh) {
		struct ap_rframe *copy = malloc(sizeof(*copy));

		if (!copy || ap_grow((void **)&x->frames, &x->cap_frames,
				     x->nr_frames, sizeof(*x->frames), 256)) {
			free(copy);
			ap_hmap__remove(&x->frame_idx, (uintptr_t)k);
			return -ENOMEM;
		}
		*copy = *f;		/* names interned in x->strs */
		x->frames[x->nr_frames] = copy;
		*slot = x->nr_frames++;
	}
	return (long)*slot;
}

/* what a profile is written from: a sample (by stack), or one event of
 * a sample in time (t: its index in p->times) */
struct item {
	size_t smp;
	size_t t;			/* NO_TIME: by stack */
};

#define NO_TIME		SIZE_MAX

/* the process: a view that merges a process's threads into one row (lock)
 * leaves pid 0, which the address space still knows */
static uint32_t sample_pid(const struct ap_prof_sample *s)
{
	return s->pid ? s->pid : ap_addrspace__pid(s->as);
}

static uint64_t item_start(const struct ap_profile *p, const struct item *it)
{
	const struct ap_prof_time *t = &p->times[it->t];

	return t->end_ns > t->ns ? t->end_ns - t->ns : 0;
}

/* a weight within what the outputs hold (AP_WEIGHT_MAX), and sums of
 * them that stop at INT64_MAX: a hostile file's times never wrap */
static int64_t ss_weight(uint64_t w)
{
	return w < (uint64_t)AP_WEIGHT_MAX ? (int64_t)w :
					     (int64_t)AP_WEIGHT_MAX;
}

static int64_t ss_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* items grouped by view, then pid, tid and comm; in time, or by sample */
static int cmp_item(const void *a, const void *b, void *arg)
{
	const struct ap_profile *p = arg;
	const struct item *ia = a, *ib = b;
	const struct ap_prof_sample *x = &p->samples[ia->smp];
	const struct ap_prof_sample *y = &p->samples[ib->smp];
	uint32_t px = sample_pid(x), py = sample_pid(y);

	if (x->view != y->view)
		return x->view < y->view ? -1 : 1;
	if (px != py)
		return px < py ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	/* an exec renames the thread: a profile per program it ran */
	if (x->comm != y->comm && strcmp(x->comm, y->comm))
		return strcmp(x->comm, y->comm);
	if (ia->t != NO_TIME && ib->t != NO_TIME &&
	    item_start(p, ia) != item_start(p, ib))
		return item_start(p, ia) < item_start(p, ib) ? -1 : 1;
	if (ia->t != ib->t)
		return ia->t < ib->t ? -1 : 1;
	return ia->smp < ib->smp ? -1 : ia->smp > ib->smp;
}

static int same_group(const struct ap_prof_sample *x,
		      const struct ap_prof_sample *y)
{
	return x->view == y->view && sample_pid(x) == sample_pid(y) &&
	       x->tid == y->tid && !strcmp(x->comm, y->comm);
}

/* the frames of sample i, root first: "[3, 1, 2]", cached per sample */
static const char *stack_json(struct ss *x, size_t i)
{
	const struct ap_profile *p = x->p;
	struct ap_fbuf b = { 0 };
	char num[32];
	long n, j, idx;
	int err = 0;

	if (x->stacks[i])
		return x->stacks[i];
	n = ap_profile__frames(p, &p->samples[i], &x->res);
	if (n < 0)
		return NULL;
	err = ap_fbuf__add(&b, "", "[", "");
	for (j = n - 1; j >= 0 && !err; j--) {
		idx = frame_idx(x, &x->res.frames[j]);
		if (idx < 0) {
			err = (int)idx;
			break;
		}
		snprintf(num, sizeof(num), "%ld", idx);
		err = ap_fbuf__add(&b, j < n - 1 ? ", " : "", num, "");
	}
	if (!err)
		err = ap_fbuf__add(&b, "", "]", "");
	if (err) {
		free(b.p);
		return NULL;
	}
	x->stacks[i] = b.p;
	return b.p;
}

/* the sequence of a profile: stacks (NULL: nothing ran, a gap) and
 * their weights */
struct seq {
	const char **stk;
	int64_t *w;
	size_t nr, cap;
	size_t cap_w;
};

static int seq_add(struct seq *q, const char *stk, int64_t w)
{
	if (w <= 0)
		return 0;
	/* back to back on one stack: one sample, as speedscope joins them */
	if (q->nr && q->stk[q->nr - 1] == stk) {
		q->w[q->nr - 1] = ss_add(q->w[q->nr - 1], w);
		return 0;
	}
	if (ap_grow((void **)&q->stk, &q->cap, q->nr, sizeof(*q->stk), 256) ||
	    ap_grow((void **)&q->w, &q->cap_w, q->nr, sizeof(*q->w), 256))
		return -ENOMEM;
	q->stk[q->nr] = stk;
	q->w[q->nr++] = w;
	return 0;
}

/* items [from, to) of a timed view in time: each event from its start,
 * gaps (an empty stack) where the thread had none, from the recording's
 * start to its end; weights in nanoseconds.  An event that starts before
 * the last one ended (clock skew between CPUs) starts when it ended */
static int timed_seq(struct ss *x, const struct item *it, size_t from,
		     size_t to, struct seq *q, int64_t *total)
{
	const struct ap_profile *p = x->p;
	uint64_t cur = 0, start;
	size_t i;
	int err;

	for (i = from; i < to; i++) {
		const struct ap_prof_time *t = &p->times[it[i].t];
		const char *stk = stack_json(x, it[i].smp);

		if (!stk)
			return -ENOMEM;
		start = item_start(p, &it[i]);
		start = start > p->start_ns ? start - p->start_ns : 0;
		if (start > cur) {
			err = seq_add(q, NULL, ss_weight(start - cur));
			if (err)
				return err;
			cur = start;
		}
		err = seq_add(q, stk, ss_weight(t->ns));
		if (err)
			return err;
		cur = ap_add_sat(cur, t->ns);
		*total = ss_add(*total, ss_weight(t->ns));
	}
	return p->duration_ns > cur ?
	       seq_add(q, NULL, ss_weight(p->duration_ns - cur)) : 0;
}

/* one sampled profile: items [from, to); its total (gaps left out) in
 * *sum */
static int write_profile(struct ss *x, const struct item *it, size_t from,
			 size_t to, int first, int64_t *sum, FILE *out)
{
	const struct ap_profile *p = x->p;
	const struct ap_prof_sample *s0 = &p->samples[it[from].smp];
	const struct ap_prof_view *pv = &p->views[s0->view];
	const char *unit = ss_unit(pv->types[pv->main].unit);
	struct seq q = { 0 };
	char name[256];
	int64_t total = 0, span = 0;
	size_t i;
	int err = 0;

	if (it[from].t != NO_TIME) {
		unit = "nanoseconds";
		err = timed_seq(x, it, from, to, &q, &total);
	}
	for (i = from; i < to && it[from].t == NO_TIME && !err; i++) {
		const char *stk = stack_json(x, it[i].smp);
		int64_t w = p->samples[it[i].smp].v[pv->main];

		err = stk ? seq_add(&q, stk, w) : -ENOMEM;
		total = ss_add(total, w > 0 ? w : 0);
	}
	if (err)
		goto out;
	for (i = 0; i < q.nr; i++)
		span = ss_add(span, q.w[i]);
	if (s0->tid)
		snprintf(name, sizeof(name), "%s %s %u/%u", pv->name,
			 s0->comm, sample_pid(s0), s0->tid);
	else
		snprintf(name, sizeof(name), "%s %s %u", pv->name, s0->comm,
			 sample_pid(s0));
	fprintf(out, "%s\n    {\"type\": \"sampled\", \"name\": ",
		first ? "" : ",");
	ap_json_str(out, name);
	fprintf(out, ", \"unit\": \"%s\", \"startValue\": 0, \"endValue\": %" PRId64
		",\n     \"samples\": [", unit, span);
	for (i = 0; i < q.nr; i++)
		fprintf(out, "%s%s", i ? ", " : "", q.stk[i] ? q.stk[i] : "[]");
	fputs("],\n     \"weights\": [", out);
	for (i = 0; i < q.nr; i++)
		fprintf(out, "%s%" PRId64, i ? ", " : "", q.w[i]);
	fputs("]}", out);
	*sum = total;
out:
	free(q.stk);
	free(q.w);
	return err;
}

/* the samples of the views without times, the events of those with */
static struct item *items_of(const struct ap_profile *p, size_t *nr)
{
	struct item *it = malloc((p->nr + p->nr_times + 1) * sizeof(*it));
	size_t i, n = 0;

	if (!it)
		return NULL;
	for (i = 0; i < p->nr; i++)
		if (p->views[p->samples[i].view].timed != 1)
			it[n++] = (struct item){ i, NO_TIME };
	for (i = 0; i < p->nr_times; i++)
		it[n++] = (struct item){ p->times[i].ref, i };
	*nr = n;
	return it;
}

int ap_export_speedscope(const struct ap_profile *p, const char *name,
			 FILE *out)
{
	struct ss x = { .p = p };
	struct item *it = NULL;
	size_t nr = 0, i, from;
	int64_t sum = 0, best = -1;
	int err = -ENOMEM, n = 0, active = 0;

	for (i = 0; i < (size_t)p->nr_views; i++)
		if (p->views[i].timed < 0)
			fprintf(stderr,
				"aperture: speedscope: the %s view has more than %u events; its profiles are by stack, not in time order\n",
				p->views[i].name, AP_PROF_MAX_TIMES);
	x.strs = ap_strtab__new();
	ap_hmap__init(&x.frame_idx);
	if (!x.strs)
		goto out;
	ap_stackres__init(&x.res, x.strs);
	x.stacks = calloc(p->nr + 1, sizeof(*x.stacks));
	it = items_of(p, &nr);
	if (!x.stacks || !it)
		goto out;
	qsort_r(it, nr, sizeof(*it), cmp_item, (void *)p);

	fputs("{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
	      " \"exporter\": \"aperture " APERTURE_VERSION "\", \"name\": ", out);
	ap_json_str(out, name);
	fputs(",\n \"profiles\": [", out);
	for (from = 0; from < nr; from = i) {
		for (i = from + 1; i < nr &&
		     same_group(&p->samples[it[from].smp],
				&p->samples[it[i].smp]); i++)
			;
		err = write_profile(&x, it, from, i, !n, &sum, out);
		if (err)
			goto out;
		/* speedscope opens the heaviest */
		if (sum > best) {
			best = sum;
			active = n;
		}
		n++;
	}
	fputs("],\n \"shared\": {\"frames\": [", out);
	for (i = 0; i < x.nr_frames; i++) {
		const struct ap_rframe *f = x.frames[i];

		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		ap_json_str(out, f->sym);
		if (f->python && f->path) {
			fputs(", \"file\": ", out);
			ap_json_str(out, f->path);
			if (f->line > 0)
				fprintf(out, ", \"line\": %d", f->line);
		} else if (f->dso[0]) {
			fputs(", \"file\": ", out);
			ap_json_str(out, f->dso);
		}
		fputc('}', out);
	}
	fprintf(out, "]},\n \"activeProfileIndex\": %d}\n", active);
	err = 0;
out:
	for (i = 0; i < x.nr_frames; i++)
		free((void *)x.frames[i]);
	free(x.frames);
	for (i = 0; x.stacks && i < p->nr; i++)
		free(x.stacks[i]);
	free(x.stacks);
	free(it);
	ap_hmap__free(&x.frame_idx);
	ap_stackres__free(&x.res);
	ap_strtab__free(x.strs);
	return err;
}
