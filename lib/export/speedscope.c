// SPDX-License-Identifier: GPL-2.0
/*
 * speedscope export: its published file format
 * (https://www.speedscope.app/file-format-schema.json), one sampled
 * profile per view and thread, weighted in the view's main unit, frames
 * shared by every profile.
 */
#include "export/export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/hmap.h"
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

	snprintf(key, sizeof(key), "%s\x1f%s\x1f%d", f->sym, f->dso,
		 f->kernel);
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

/* samples grouped by view, then pid, tid and comm */
static int cmp_sample(const void *a, const void *b, void *arg)
{
	const struct ap_profile *p = arg;
	const struct ap_prof_sample *x = &p->samples[*(const size_t *)a];
	const struct ap_prof_sample *y = &p->samples[*(const size_t *)b];

	if (x->view != y->view)
		return x->view < y->view ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	/* an exec renames the thread: a profile per program it ran */
	if (x->comm != y->comm)
		return strcmp(x->comm, y->comm);
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int same_group(const struct ap_prof_sample *x,
		      const struct ap_prof_sample *y)
{
	return x->view == y->view && x->pid == y->pid && x->tid == y->tid &&
	       !strcmp(x->comm, y->comm);
}

/* one sampled profile: samples order[from, to); its total in *total */
static int write_profile(struct ss *x, const size_t *order, size_t from,
			 size_t to, int first, int64_t *sum, FILE *out)
{
	const struct ap_profile *p = x->p;
	const struct ap_prof_sample *s0 = &p->samples[order[from]];
	const struct ap_prof_view *pv = &p->views[s0->view];
	char name[256];
	int64_t total = 0;
	size_t i;
	long n, j, idx;

	for (i = from; i < to; i++)
		total += p->samples[order[i]].v[pv->main];
	if (s0->tid)
		snprintf(name, sizeof(name), "%s %s %u/%u", pv->name,
			 s0->comm, s0->pid, s0->tid);
	else
		snprintf(name, sizeof(name), "%s %s %u", pv->name, s0->comm,
			 s0->pid);
	fprintf(out, "%s\n    {\"type\": \"sampled\", \"name\": ",
		first ? "" : ",");
	ap_json_str(out, name);
	fprintf(out, ", \"unit\": \"%s\", \"startValue\": 0, \"endValue\": %" PRId64
		",\n     \"samples\": [", ss_unit(pv->types[pv->main].unit),
		total);
	for (i = from; i < to; i++) {
		n = ap_profile__frames(p, &p->samples[order[i]], &x->res);
		if (n < 0)
			return (int)n;
		fputs(i > from ? ", [" : "[", out);
		/* root first */
		for (j = n - 1; j >= 0; j--) {
			idx = frame_idx(x, &x->res.frames[j]);
			if (idx < 0)
				return (int)idx;
			fprintf(out, "%s%ld", j < n - 1 ? ", " : "", idx);
		}
		fputc(']', out);
	}
	fputs("],\n     \"weights\": [", out);
	for (i = from; i < to; i++)
		fprintf(out, "%s%" PRId64, i > from ? ", " : "",
			p->samples[order[i]].v[pv->main]);
	fputs("]}", out);
	*sum = total;
	return 0;
}

int ap_export_speedscope(const struct ap_profile *p, const char *name,
			 FILE *out)
{
	struct ss x = { .p = p };
	size_t *order = NULL, i, from;
	int64_t sum = 0, best = -1;
	int err = -ENOMEM, nr = 0, active = 0;

	x.strs = ap_strtab__new();
	ap_hmap__init(&x.frame_idx);
	if (!x.strs)
		goto out;
	ap_stackres__init(&x.res, x.strs);
	order = malloc((p->nr ? p->nr : 1) * sizeof(*order));
	if (!order)
		goto out;
	for (i = 0; i < p->nr; i++)
		order[i] = i;
	qsort_r(order, p->nr, sizeof(*order), cmp_sample, (void *)p);

	fputs("{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
	      " \"exporter\": \"aperture " APERTURE_VERSION "\", \"name\": ", out);
	ap_json_str(out, name);
	fputs(",\n \"profiles\": [", out);
	for (from = 0; from < p->nr; from = i) {
		for (i = from + 1; i < p->nr &&
		     same_group(&p->samples[order[from]],
				&p->samples[order[i]]); i++)
			;
		err = write_profile(&x, order, from, i, !nr, &sum, out);
		if (err)
			goto out;
		/* speedscope opens the heaviest */
		if (sum > best) {
			best = sum;
			active = nr;
		}
		nr++;
	}
	fputs("],\n \"shared\": {\"frames\": [", out);
	for (i = 0; i < x.nr_frames; i++) {
		const struct ap_rframe *f = x.frames[i];

		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		ap_json_str(out, f->sym);
		if (f->dso[0]) {
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
	free(order);
	ap_hmap__free(&x.frame_idx);
	ap_stackres__free(&x.res);
	ap_strtab__free(x.strs);
	return err;
}
