// SPDX-License-Identifier: GPL-2.0
/*
 * Thread contexts shared by the views: (pid, tid, comm, address space)
 * interned into indices by a hash of the four, probed on collision.  No
 * key string: this runs once per sample, and formatting and interning a
 * printf key was half of report's time per sample.
 */
#include "report/ctxtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/session.h"
#include "util/strtab.h"
#include "util/vec.h"

void ap_ctxtab__init(struct ap_ctxtab *t, struct ap_strtab *strs)
{
	memset(t, 0, sizeof(*t));
	t->strs = strs;
	ap_hmap__init(&t->by_key);
}

void ap_ctxtab__free(struct ap_ctxtab *t)
{
	if (!t)
		return;
	free(t->ctxs);
	ap_hmap__free(&t->by_key);
	t->ctxs = NULL;
	t->nr = t->cap = 0;
}

long ap_ctxtab__index(struct ap_ctxtab *t, struct ap_session *s,
		      uint32_t pid, uint32_t tid)
{
	/* the mappings live when the event was taken */
	struct ap_addrspace *as = ap_session__event_as(s, pid);
	const char *comm = ap_session__comm(s, pid, tid);
	uint64_t key[3] = { (uint64_t)pid << 32 | tid, (uintptr_t)as,
			    (uintptr_t)comm };
	uint64_t h = ap_hash_bytes(key, sizeof(key), 0), *slot;
	int fresh;

	for (;; h++) {
		const struct ap_ctx *c;

		if (h == AP_HMAP_EMPTY)
			continue;
		slot = ap_hmap__find(&t->by_key, h);
		if (!slot)
			break;
		c = &t->ctxs[*slot];
		if (c->pid == pid && c->tid == tid && c->as == as &&
		    c->comm == comm)
			return (long)*slot;
	}
	if (ap_grow((void **)&t->ctxs, &t->cap, t->nr, sizeof(*t->ctxs), 64))
		return -ENOMEM;
	slot = ap_hmap__upsert(&t->by_key, h, &fresh);
	if (!slot)
		return -ENOMEM;
	t->ctxs[t->nr] = (struct ap_ctx){ pid, tid, comm, as };
	*slot = t->nr;
	return (long)t->nr++;
}
