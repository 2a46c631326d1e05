// SPDX-License-Identifier: GPL-2.0
#include "util/hmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ap_hmap__init(struct ap_hmap *m)
{
	memset(m, 0, sizeof(*m));
}

void ap_hmap__free(struct ap_hmap *m)
{
	if (!m)
		return;
	free(m->slots);
	ap_hmap__init(m);
}

uint64_t ap_hash64(uint64_t x)
{
	/* splitmix64 finalizer */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t ap_hash_bytes(const void *p, size_t len, uint64_t seed)
{
	const uint8_t *b = p;
	uint64_t h = seed ^ 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = ap_hash64(h ^ w);
	}
	for (; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return ap_hash64(h);
}

static size_t slot_of(const struct ap_hmap *m, uint64_t key)
{
	size_t i = ap_hash64(key) & (m->cap - 1);

	while (m->slots[i].key != AP_HMAP_EMPTY && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

uint64_t *ap_hmap__find(const struct ap_hmap *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = slot_of(m, key);
	return m->slots[i].key == key ? &m->slots[i].val : NULL;
}

static int grow(struct ap_hmap *m)
{
	struct ap_hmap n;
	size_t i;

	n.cap = m->cap ? m->cap * 2 : 64;
	n.nr = m->nr;
	n.slots = malloc(n.cap * sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (i = 0; i < n.cap; i++)
		n.slots[i].key = AP_HMAP_EMPTY;
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (m->slots[i].key == AP_HMAP_EMPTY)
			continue;
		j = slot_of(&n, m->slots[i].key);
		n.slots[j] = m->slots[i];
	}
	free(m->slots);
	*m = n;
	return 0;
}

uint64_t *ap_hmap__upsert(struct ap_hmap *m, uint64_t key, int *is_new)
{
	size_t i;

	if ((m->nr + 1) * 4 > m->cap * 3 && grow(m))
		return NULL;
	i = slot_of(m, key);
	if (m->slots[i].key == key) {
		if (is_new)
			*is_new = 0;
		return &m->slots[i].val;
	}
	m->slots[i].key = key;
	m->slots[i].val = 0;
	m->nr++;
	if (is_new)
		*is_new = 1;
	return &m->slots[i].val;
}

int ap_hmap__remove(struct ap_hmap *m, uint64_t key)
{
	size_t i, j;

	if (!m->cap)
		return -ENOENT;
	i = slot_of(m, key);
	if (m->slots[i].key != key)
		return -ENOENT;
	/* backward-shift deletion keeps probe chains intact */
	m->slots[i].key = AP_HMAP_EMPTY;
	m->nr--;
	j = i;
	for (;;) {
		size_t home;

		j = (j + 1) & (m->cap - 1);
		if (m->slots[j].key == AP_HMAP_EMPTY)
			break;
		home = ap_hash64(m->slots[j].key) & (m->cap - 1);
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			m->slots[i] = m->slots[j];
			m->slots[j].key = AP_HMAP_EMPTY;
			i = j;
		}
	}
	return 0;
}

int ap_hmap__next(const struct ap_hmap *m, size_t *iter, uint64_t *key,
		  uint64_t *val)
{
	while (*iter < m->cap) {
		size_t i = (*iter)++;

		if (m->slots[i].key == AP_HMAP_EMPTY)
			continue;
		if (key)
			*key = m->slots[i].key;
		if (val)
			*val = m->slots[i].val;
		return 1;
	}
	return 0;
}
