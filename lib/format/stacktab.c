// SPDX-License-Identifier: GPL-2.0
#include "format/stacktab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hmap.h"

struct entry {
	uint64_t hash;
	uint32_t id;
	uint16_t nr_kernel;
	uint16_t nr_user;
	uint32_t flags;			/* AP_STACK_* */
	uint64_t *ips;
};

struct ap_stacktab {
	struct entry *v;		/* v[id - 1] */
	size_t nr, cap;
	/* hash -> id of the first entry with that hash; collisions are
	 * chained through "next" */
	struct ap_hmap by_hash;
	uint32_t *next;
	struct ap_hmap by_id;		/* for put() with sparse ids */
};

struct ap_stacktab *ap_stacktab__new(void)
{
	struct ap_stacktab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	ap_hmap__init(&t->by_hash);
	ap_hmap__init(&t->by_id);
	return t;
}

void ap_stacktab__free(struct ap_stacktab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr; i++)
		free(t->v[i].ips);
	free(t->v);
	free(t->next);
	ap_hmap__free(&t->by_hash);
	ap_hmap__free(&t->by_id);
	free(t);
}

static uint64_t stack_hash(const uint64_t *kips, uint16_t nk,
			   const uint64_t *uips, uint16_t nu)
{
	uint64_t h = ap_hash_bytes(kips, nk * sizeof(*kips), nk);

	return ap_hash_bytes(uips, nu * sizeof(*uips), h ^ ((uint64_t)nu << 32));
}

static int same(const struct entry *e, const uint64_t *kips, uint16_t nk,
		const uint64_t *uips, uint16_t nu)
{
	return e->nr_kernel == nk && e->nr_user == nu &&
	       !memcmp(e->ips, kips, nk * sizeof(*kips)) &&
	       !memcmp(e->ips + nk, uips, nu * sizeof(*uips));
}

static struct entry *append(struct ap_stacktab *t, uint64_t hash,
			    const uint64_t *kips, uint16_t nk,
			    const uint64_t *uips, uint16_t nu)
{
	struct entry *e;

	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct entry *v = realloc(t->v, cap * sizeof(*v));
		uint32_t *next;

		if (!v)
			return NULL;
		t->v = v;
		next = realloc(t->next, cap * sizeof(*next));
		if (!next)
			return NULL;
		t->next = next;
		t->cap = cap;
	}
	e = &t->v[t->nr];
	e->ips = malloc((nk + nu) * sizeof(uint64_t) + 1);
	if (!e->ips)
		return NULL;
	/* a side may be empty and NULL: memcpy must not see NULL */
	if (nk)
		memcpy(e->ips, kips, nk * sizeof(uint64_t));
	if (nu)
		memcpy(e->ips + nk, uips, nu * sizeof(uint64_t));
	e->hash = hash;
	e->nr_kernel = nk;
	e->nr_user = nu;
	e->flags = 0;
	e->id = t->nr + 1;
	t->next[t->nr] = 0;
	t->nr++;
	return e;
}

uint32_t ap_stacktab__intern(struct ap_stacktab *t, const uint64_t *kips,
			     uint16_t nr_kernel, const uint64_t *uips,
			     uint16_t nr_user, int *is_new)
{
	uint64_t h = stack_hash(kips, nr_kernel, uips, nr_user);
	uint64_t *slot;
	struct entry *e;
	uint32_t id;
	int fresh;

	slot = ap_hmap__upsert(&t->by_hash, h == AP_HMAP_EMPTY ? 0 : h, &fresh);
	if (!slot)
		return 0;
	for (id = fresh ? 0 : (uint32_t)*slot; id; id = t->next[id - 1]) {
		if (same(&t->v[id - 1], kips, nr_kernel, uips, nr_user)) {
			*is_new = 0;
			return id;
		}
	}
	e = append(t, h, kips, nr_kernel, uips, nr_user);
	if (!e)
		return 0;
	t->next[e->id - 1] = fresh ? 0 : (uint32_t)*slot;
	*slot = e->id;
	*is_new = 1;
	return e->id;
}

int ap_stacktab__put(struct ap_stacktab *t, const struct ap_stack *s)
{
	struct entry *e;
	uint64_t *slot;
	int fresh;

	if (!s->id)
		return -EINVAL;
	slot = ap_hmap__upsert(&t->by_id, s->id, &fresh);
	if (!slot)
		return -ENOMEM;
	if (!fresh)
		return 0;	/* first definition wins */
	e = append(t, 0, s->ips, s->nr_kernel, s->ips + s->nr_kernel,
		   s->nr_user);
	if (!e) {
		ap_hmap__remove(&t->by_id, s->id);
		return -ENOMEM;
	}
	e->flags = s->flags;
	*slot = e->id;
	return 0;
}

void ap_stacktab__set_flags(struct ap_stacktab *t, uint32_t id,
			    uint32_t flags)
{
	if (id && id <= t->nr && !t->by_id.nr)
		t->v[id - 1].flags |= flags;
}

int ap_stacktab__get(const struct ap_stacktab *t, uint32_t id,
		     struct ap_stack *s)
{
	const struct entry *e;
	uint32_t want = id;
	uint64_t *idx;

	if (t->by_id.nr) {
		idx = ap_hmap__find(&t->by_id, id);
		if (!idx)
			return -ENOENT;
		id = (uint32_t)*idx;
	}
	if (!id || id > t->nr)
		return -ENOENT;
	e = &t->v[id - 1];
	s->id = want;
	s->nr_kernel = e->nr_kernel;
	s->nr_user = e->nr_user;
	s->ips = e->ips;
	s->flags = e->flags;
	return 0;
}

size_t ap_stacktab__count(const struct ap_stacktab *t)
{
	return t->nr;
}
