// SPDX-License-Identifier: GPL-2.0
#include "report/diff.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "util/hmap.h"
#include "report/input.h"
#include "export/profile.h"
#include "format/reader.h"
#include "report/session.h"
#include "report/stackres.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "util/vec.h"

struct ap_diff_side {
	const char *path;
	struct ap_report_opts o;
	struct ap_input in;
	const struct ap_view_ops *ops;
	void *v;
	struct ap_profile p;
	int type;			/* the value compared */
};

void ap_diff_side__free(struct ap_diff_side *d)
{
	if (!d)
		return;
	ap_profile__free(&d->p);
	if (d->v)
		d->ops->free(d->v);
	ap_input__close(&d->in);
	free(d);
}

const char *ap_diff_side__view(const struct ap_diff_side *d)
{
	return d->ops->name;
}

/* rows are ELF functions, as report's table and perf diff's: a sample
 * of code inlined into two callers counts for each caller, not for the
 * helper they share.  Inline frames (and the DWARF that finds them) only
 * where the output shows them: stacks, and rows with --inline */
static int shows_inline(const struct ap_report_opts *o)
{
	return o->inline_rows || o->format == AP_FMT_FOLDED ||
	       o->format == AP_FMT_SVG;
}

struct ap_diff_side *ap_diff_side__load(const char *path, const char *view,
					const struct ap_report_opts *o,
					int no_inline)
{
	struct ap_symbolizer_opts so = {
		.no_srcline = 1, .no_inline = no_inline || !shows_inline(o),
	};
	struct ap_diff_side *d = calloc(1, sizeof(*d));
	const struct ap_header *h;
	struct ap_frame f;
	int err;

	if (!d)
		goto oom;
	d->path = path;
	d->o = *o;
	d->o.format = AP_FMT_TABLE;
	if (ap_input__open(&d->in, path, 0, &so))
		goto fail;
	h = ap_reader__header(d->in.rd);
	if (!view)
		view = (h->events_requested & AP_EVMASK(AP_TAG_CPU)) ||
		       !h->events_requested ? "cpu" :
		       ap_tag__name(__builtin_ctz(h->events_requested));
	d->ops = view ? ap_view__find(view) : NULL;
	if (!d->ops || !d->ops->profile) {
		fprintf(stderr, "aperture diff: '%s' is no view with stacks to compare\n",
			view ? view : "?");
		goto fail;
	}
	/* else every row of the other side would read -100 % */
	if (h->events_requested &&
	    !(h->events_requested & AP_EVMASK(d->ops->tag))) {
		fprintf(stderr, "aperture diff: '%s' holds no %s events: nothing to compare (record them with 'aperture record -e %s')\n",
			path, d->ops->name, d->ops->name);
		goto fail;
	}
	d->o.freq = h->freq;
	d->v = d->ops->new(&d->o, d->in.s);
	if (!d->v)
		goto oom;
	while ((err = ap_reader__next(d->in.rd, &f)) > 0)
		if (ap_session__feed(d->in.s, &f) == 1 &&
		    ap_view__wants(d->ops, f.tag))
			d->ops->event(d->v, &f);
	if (err < 0)
		fprintf(stderr, "aperture: reading '%s': %s; comparing what was read\n",
			path, strerror(-err));
	ap_profile__init(&d->p, d->in.s);
	d->p.user_only = o->user_only;
	if (d->ops->profile(d->v, &d->p))
		goto oom;
	d->type = d->p.nr_views ? d->p.views[0].main : 0;
	return d;
oom:
	fprintf(stderr, "aperture: out of memory\n");
fail:
	ap_diff_side__free(d);
	return NULL;
}

/* ---- per symbol ---- */

struct sym_row {
	const char *sym, *dso;
	int kernel;
	int python;			/* a Python function's row */
	double w[2];			/* self weight: old, new */
};

struct rows {
	struct ap_strtab *strs;
	struct sym_row *v;
	size_t nr, cap;
	struct ap_hmap idx;		/* interned key -> index */
	double total[2];
};

static int add_self(struct rows *rs, const struct ap_rframe *f, int side,
		    double w)
{
	char key[2048];
	const char *k;
	uint64_t *slot;
	int fresh;

	/* frames without a module (labels, whole folded lines) by their
	 * text alone, which no composite key (with \x1f) equals */
	if (!f->dso[0] && !f->kernel) {
		k = ap_strtab__intern(rs->strs, f->sym, -1);
	} else {
		snprintf(key, sizeof(key), "%s\x1f%s\x1f%d", f->sym, f->dso,
			 f->kernel | f->python << 1);
		k = ap_strtab__intern(rs->strs, key, -1);
	}
	slot = k ? ap_hmap__upsert(&rs->idx, (uintptr_t)k, &fresh) : NULL;
	if (!slot)
		return -ENOMEM;
	if (fresh) {
		if (ap_grow((void **)&rs->v, &rs->cap, rs->nr,
			    sizeof(*rs->v), 256))
			return -ENOMEM;
		rs->v[rs->nr] = (struct sym_row){
			ap_strtab__intern(rs->strs, f->sym, -1),
			ap_strtab__intern(rs->strs, f->dso, -1), f->kernel,
			f->python, { 0, 0 } };
		*slot = rs->nr++;
	}
	rs->v[*slot].w[side] += w;
	return 0;
}

/* the frame self weight goes to: the leaf, but for off-CPU time the
 * first user frame, where the thread waited in its own code (the kernel
 * switch path, the same for all, only where it has none), as the sched
 * view's table shows it */
static long self_frame(const struct ap_diff_side *d,
		       const struct ap_stackres *res, long n)
{
	long i;

	if (d->ops->tag != AP_TAG_SCHED)
		return 0;
	for (i = 0; i < n; i++)
		if (!res->frames[i].kernel)
			return i;
	return 0;
}

/* each sample's weight to its leaf frame's row (or, folded, its line) */
static int walk(struct ap_diff_side *d, int side, struct rows *rs,
		struct ap_stackres *res, int folded)
{
	struct ap_fbuf b = { 0 };
	size_t i;
	long n;
	int err = 0;

	for (i = 0; i < d->p.nr && !err; i++) {
		const struct ap_prof_sample *smp = &d->p.samples[i];
		double w = (double)smp->v[d->type];

		if (w <= 0)
			continue;
		n = ap_profile__frames(&d->p, smp, res);
		if (n < 0) {
			err = (int)n;
			break;
		}
		rs->total[side] += w;
		if (!folded) {
			err = add_self(rs, &res->frames[self_frame(d, res, n)],
				       side, w);
			continue;
		}
		/* the whole line as one "frame" keyed by its text */
		b.len = 0;
		err = ap_fbuf__add(&b, "", smp->comm, "");
		if (!err)
			err = ap_fbuf__frames(&b, res->frames, n);
		if (!err) {
			struct ap_rframe line = { b.p, "", 0, 0 };

			err = add_self(rs, &line, side, w);
		}
	}
	free(b.p);
	return err;
}

static double share(const struct rows *rs, const struct sym_row *r, int side)
{
	return rs->total[side] > 0 ? 100.0 * r->w[side] / rs->total[side] : 0;
}

static int by_delta(const void *a, const void *b, void *arg)
{
	const struct rows *rs = arg;
	const struct sym_row *x = a, *y = b;
	double dx = fabs(share(rs, x, 1) - share(rs, x, 0));
	double dy = fabs(share(rs, y, 1) - share(rs, y, 0));

	if (dx != dy)
		return dx < dy ? 1 : -1;
	if (x->w[1] != y->w[1])
		return x->w[1] < y->w[1] ? 1 : -1;
	return strcmp(x->sym, y->sym);
}

static int by_line(const void *a, const void *b)
{
	return strcmp(((const struct sym_row *)a)->sym,
		      ((const struct sym_row *)b)->sym);
}

static void print_table(struct ap_diff_side *old, struct ap_diff_side *new,
			struct rows *rs, long limit, FILE *out)
{
	const struct ap_prof_type *t = &new->p.views[0].types[new->type];
	size_t i, n = rs->nr;
	int wdso = 13;

	if (limit > 0 && (size_t)limit < n)
		n = limit;
	for (i = 0; i < n; i++)
		if ((int)strlen(rs->v[i].dso) > wdso)
			wdso = strlen(rs->v[i].dso);
	if (wdso > 40)
		wdso = 40;
	fprintf(out, "# aperture diff, view %s, self %s (%s)\n", new->ops->name,
		t->type, t->unit);
	fprintf(out, "# old: %s, %.0f\n# new: %s, %.0f\n#\n", old->path,
		rs->total[0], new->path, rs->total[1]);
	fprintf(out, "# %8s %8s %9s  %-*s  %s\n#\n", "Old", "New", "Delta",
		wdso, "Shared Object", "Symbol");
	for (i = 0; i < n; i++) {
		const struct sym_row *r = &rs->v[i];
		double o = share(rs, r, 0), w = share(rs, r, 1);

		fprintf(out, "  %7.2f%% %7.2f%% %+8.2f%%  %-*s  [%s] %s\n", o, w,
			w - o, wdso, r->dso,
			r->kernel ? "k" : r->python ? "py" : ".", r->sym);
	}
	if (!n)
		fprintf(out, "# no samples in either recording\n");
}

static void print_json(struct rows *rs, long limit, FILE *out)
{
	size_t i, n = rs->nr;

	if (limit > 0 && (size_t)limit < n)
		n = limit;
	fprintf(out, "{\"old_total\": %.0f, \"new_total\": %.0f, \"rows\": [",
		rs->total[0], rs->total[1]);
	for (i = 0; i < n; i++) {
		const struct sym_row *r = &rs->v[i];

		fprintf(out, "%s\n  {\"sym\": ", i ? "," : "");
		ap_json_str(out, r->sym);
		fputs(", \"dso\": ", out);
		ap_json_str(out, r->dso);
		fprintf(out, ", \"kernel\": %s, \"python\": %s, \"old\": %.4f, \"new\": %.4f, \"delta\": %.4f, \"old_weight\": %.0f, \"new_weight\": %.0f}",
			r->kernel ? "true" : "false",
			r->python ? "true" : "false", share(rs, r, 0),
			share(rs, r, 1), share(rs, r, 1) - share(rs, r, 0),
			r->w[0], r->w[1]);
	}
	fputs("\n]}\n", out);
}

int ap_diff__print(struct ap_diff_side *old, struct ap_diff_side *new,
		   int format, long limit, FILE *out)
{
	struct rows rs = { 0 };
	struct ap_stackres res;
	size_t i;
	int err;

	if (strcmp(old->ops->name, new->ops->name))
		return -EINVAL;
	if (format == AP_FMT_SVG) {
		struct ap_svg_opts so = { .title = "Differential flame graph",
					  .subtitle = new->path };

		return ap_export_svg(&new->p, &old->p, &so, out);
	}
	rs.strs = ap_strtab__new();
	if (!rs.strs)
		return -ENOMEM;
	ap_hmap__init(&rs.idx);
	ap_stackres__init(&res, rs.strs);
	err = walk(old, 0, &rs, &res, format == AP_FMT_FOLDED);
	if (!err)
		err = walk(new, 1, &rs, &res, format == AP_FMT_FOLDED);
	if (err)
		goto out;
	if (format == AP_FMT_FOLDED) {
		/* difffolded.pl's format: "stack OLD NEW", raw weights */
		qsort(rs.v, rs.nr, sizeof(*rs.v), by_line);
		for (i = 0; i < rs.nr; i++)
			fprintf(out, "%s %.0f %.0f\n", rs.v[i].sym,
				rs.v[i].w[0], rs.v[i].w[1]);
		goto out;
	}
	qsort_r(rs.v, rs.nr, sizeof(*rs.v), by_delta, &rs);
	if (format == AP_FMT_JSON)
		print_json(&rs, limit, out);
	else
		print_table(old, new, &rs, limit, out);
out:
	ap_stackres__free(&res);
	ap_hmap__free(&rs.idx);
	free(rs.v);
	ap_strtab__free(rs.strs);
	return err;
}
