// SPDX-License-Identifier: GPL-2.0
/*
 * The reader of in-kernel totals shared by the io and syscall sensors:
 * walk the map, diff each entry against what was last sent of it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "record/sums.h"

#define ALIGN8(n)	(((n) + 7) & ~(size_t)7)

void ap_sums__init(struct ap_sums *s, size_t key_size, size_t val_size,
		   uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->key_size = key_size;
	s->val_size = val_size;
	s->val_off = ALIGN8(key_size);
	s->stride = s->val_off + ALIGN8(val_size);
	s->seed = seed;
	ap_hmap__init(&s->idx);
}

void ap_sums__free(struct ap_sums *s)
{
	free(s->v);
	s->v = NULL;
	s->nr = s->cap = 0;
	ap_hmap__free(&s->idx);
}

void *ap_sums__last(struct ap_sums *s, const void *key)
{
	uint64_t h = ap_hash_bytes(key, s->key_size, s->seed), *slot;
	unsigned char *e;
	int fresh;

	for (;; h++) {
		if (h == AP_HMAP_EMPTY)
			continue;
		slot = ap_hmap__find(&s->idx, h);
		if (!slot)
			break;
		e = s->v + *slot * s->stride;
		if (!memcmp(e, key, s->key_size))
			return e + s->val_off;
	}
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		unsigned char *v = realloc(s->v, cap * s->stride);

		if (!v)
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	slot = ap_hmap__upsert(&s->idx, h, &fresh);
	if (!slot)
		return NULL;
	*slot = s->nr;
	e = s->v + s->nr++ * s->stride;
	memset(e, 0, s->stride);
	memcpy(e, key, s->key_size);
	return e + s->val_off;
}

int ap_sums__read(struct ap_sums *s, int fd, ap_sums_fn fn, void *arg)
{
	/* key, next key, value: 8-aligned like the entries */
	unsigned char *buf = malloc(2 * s->val_off + ALIGN8(s->val_size));
	unsigned char *key, *next, *cur;
	void *prev = NULL, *last;
	int err = 0, n = 0;

	if (!buf)
		return -ENOMEM;
	key = buf;
	next = buf + s->val_off;
	cur = next + s->val_off;
	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, s->key_size);
		prev = key;
		if (bpf_map_lookup_elem(fd, key, cur))
			continue;
		last = ap_sums__last(s, key);
		if (!last) {
			err = -ENOMEM;
			break;
		}
		if (*(uint64_t *)cur == *(uint64_t *)last)
			continue;
		err = fn(arg, key, cur, last);
		memcpy(last, cur, s->val_size);
		if (err)
			break;
		n++;
	}
	free(buf);
	return err ? err : n;
}

uint64_t ap_sums_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
