/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small open-addressing hash map from u64 keys to u64 values, the one
 * table type behind stack dedup, pid lookups and aggregation.  Key ~0 is
 * reserved.
 */
#ifndef APERTURE_HMAP_H
#define APERTURE_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct ap_hmap {
	/* a key beside its value: a lookup in a table bigger than the
	 * caches misses once, not twice */
	struct ap_hmap_slot {
		uint64_t key, val;
	} *slots;
	size_t cap;		/* power of two, 0 when empty */
	size_t nr;
};

#define AP_HMAP_EMPTY	UINT64_MAX

void ap_hmap__init(struct ap_hmap *m);
void ap_hmap__free(struct ap_hmap *m);
/* pointer to the value of key, or NULL */
uint64_t *ap_hmap__find(const struct ap_hmap *m, uint64_t key);
/* pointer to the value of key, inserting it as 0 when new (*is_new set);
 * NULL when out of memory */
uint64_t *ap_hmap__upsert(struct ap_hmap *m, uint64_t key, int *is_new);
int ap_hmap__remove(struct ap_hmap *m, uint64_t key);
/* iteration: for (i = 0; ap_hmap__next(m, &i, &k, &v); ) */
int ap_hmap__next(const struct ap_hmap *m, size_t *iter, uint64_t *key,
		  uint64_t *val);

uint64_t ap_hash64(uint64_t x);
uint64_t ap_hash_bytes(const void *p, size_t len, uint64_t seed);

#endif /* APERTURE_HMAP_H */
