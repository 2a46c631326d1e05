// SPDX-License-Identifier: GPL-2.0
#include "export/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event/event.h"
#include "report/session.h"
#include "report/stackres.h"
#include "symbols/symbolizer.h"
#include "util/vec.h"

void ap_profile__init(struct ap_profile *p, struct ap_session *s)
{
	memset(p, 0, sizeof(*p));
	p->s = s;
}

void ap_profile__free(struct ap_profile *p)
{
	if (!p)
		return;
	free(p->samples);
	p->samples = NULL;
	p->nr = p->cap = 0;
	free(p->times);
	p->times = NULL;
	p->nr_times = 0;
}

int ap_profile__add_view(struct ap_profile *p, const struct ap_prof_view *v)
{
	if (p->nr_views == AP_PROF_MAX_VIEWS)
		return -E2BIG;
	p->views[p->nr_views] = *v;
	return p->nr_views++;
}

int ap_profile__add_kind(struct ap_profile *p, uint32_t tag, int main)
{
	const struct ap_event_kind *k = ap_event_kind__of_tag(tag);
	struct ap_prof_view v = { 0 };
	int i;

	if (!k || main < 0 || main >= k->nr_prof_types)
		return -EINVAL;
	v.name = k->name;
	v.title = k->title;
	for (i = 0; i < k->nr_prof_types; i++)
		v.types[i] = k->prof_types[i];
	v.nr_types = k->nr_prof_types;
	v.main = main;
	return ap_profile__add_view(p, &v);
}

int ap_profile__add(struct ap_profile *p, const struct ap_prof_sample *smp)
{
	if (ap_grow((void **)&p->samples, &p->cap, p->nr, sizeof(*p->samples),
		    1024))
		return -ENOMEM;
	p->samples[p->nr++] = *smp;
	return 0;
}

int ap_prof_times__add(struct ap_prof_times *t, uint64_t end_ns,
		       uint64_t ns, uint32_t ref)
{
	if (t->over)
		return 0;
	if (t->nr == (t->max ? t->max : AP_PROF_MAX_TIMES)) {
		ap_prof_times__free(t);
		t->over = 1;
		return 0;
	}
	if (ap_grow((void **)&t->t, &t->cap, t->nr, sizeof(*t->t), 4096))
		return -ENOMEM;
	t->t[t->nr++] = (struct ap_prof_time){ end_ns, ns, ref };
	return 0;
}

void ap_prof_times__free(struct ap_prof_times *t)
{
	free(t->t);
	t->t = NULL;
	t->nr = t->cap = 0;
}

int ap_profile__take_times(struct ap_profile *p, int view,
			   struct ap_prof_times *t)
{
	struct ap_prof_time *dst;
	uint32_t *map, max = 0;
	size_t i, n = 0;

	if (!t->nr && !t->over)
		return 0;	/* no times kept: by stack */
	p->views[view].timed = t->over ? -1 : 1;
	for (i = 0; i < p->nr; i++)
		if (p->samples[i].view == view && p->samples[i].ref > max)
			max = p->samples[i].ref;
	map = malloc(((size_t)max + 1) * sizeof(*map));
	if (!map)
		return -ENOMEM;
	memset(map, 0xff, ((size_t)max + 1) * sizeof(*map));
	for (i = 0; i < p->nr; i++)
		if (p->samples[i].view == view)
			map[p->samples[i].ref] = (uint32_t)i;
	/* the view's rows become the profile's samples, in place */
	for (i = 0; i < t->nr; i++) {
		uint32_t ref = t->t[i].ref;

		if (ref > max || map[ref] == UINT32_MAX)
			continue;
		t->t[n] = t->t[i];
		t->t[n++].ref = map[ref];
	}
	free(map);
	t->nr = n;
	if (!p->nr_times) {
		free(p->times);
		p->times = t->t;
		p->nr_times = t->nr;
		t->t = NULL;
		ap_prof_times__free(t);
		return 0;
	}
	dst = realloc(p->times, (p->nr_times + n + 1) * sizeof(*dst));
	if (!dst)
		return -ENOMEM;
	memcpy(dst + p->nr_times, t->t, n * sizeof(*dst));
	p->times = dst;
	p->nr_times += n;
	ap_prof_times__free(t);
	return 0;
}

long ap_profile__frames(const struct ap_profile *p,
			const struct ap_prof_sample *smp,
			struct ap_stackres *r)
{
	struct ap_rframe *f;
	long n;
	int err;

	/* a sample with labels and no stack is its labels alone */
	n = ap_stackres__resolve(r, p->s, smp->as, smp->stack_id,
				 AP_STACKRES_KERNEL |
				 (smp->leaf || smp->root ? 0 :
				  AP_STACKRES_UNKNOWN) |
				 (p->user_only ? AP_STACKRES_USER_ONLY : 0));
	if (n < 0)
		return n;
	if (!smp->stack_id && smp->ip) {
		struct ap_symbolizer *sym = ap_session__symbolizer(p->s);
		int kernel = smp->ip >= AP_KERNEL_START;

		ap_stackres__clear(r);
		if (kernel && p->user_only)
			err = ap_stackres__push(r, "[kernel]",
						"[kernel.kallsyms]", 1);
		else
			err = ap_stackres__push_loc(r, kernel ?
				ap_symbolizer__kernel(sym, smp->ip) :
				ap_symbolizer__user(sym, smp->as, smp->ip, 0),
				kernel);
		if (err)
			return err;
	}
	if (smp->leaf) {
		/* the label goes below the leaf: push it, rotate it first */
		struct ap_rframe lf;

		err = ap_stackres__push(r, smp->leaf, "", 0);
		if (err)
			return err;
		f = r->frames;
		lf = f[r->nr - 1];
		memmove(f + 1, f, (r->nr - 1) * sizeof(*f));
		f[0] = lf;
	}
	if (smp->root) {
		err = ap_stackres__push(r, smp->root, "", 0);
		if (err)
			return err;
	}
	return (long)r->nr;
}
