// SPDX-License-Identifier: GPL-2.0
/*
 * Thread contexts shared by the views: (pid, tid, comm, address space)
 * interned by a key string into indices.
 */
#include "ctxtab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "strtab.h"
#include "vec.h"

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
	const struct ap_proc_info *p = ap_session__proc(s, pid);
	struct ap_addrspace *as = p ? p->as : NULL;
	const char *comm = ap_session__comm(s, pid, tid);
	char key[96];
	const char *k;
	uint64_t *slot;
	int fresh;

	snprintf(key, sizeof(key), "%u/%u/%p/%p", pid, tid, (void *)as,
		 (const void *)comm);
	k = ap_strtab__intern(t->strs, key, -1);
	slot = k ? ap_hmap__upsert(&t->by_key, (uintptr_t)k, &fresh) : NULL;
	if (!slot)
		return -ENOMEM;
	if (!fresh)
		return (long)*slot;
	if (ap_grow((void **)&t->ctxs, &t->cap, t->nr, sizeof(*t->ctxs), 64)) {
		ap_hmap__remove(&t->by_key, (uintptr_t)k);
		return -ENOMEM;
	}
	t->ctxs[t->nr] = (struct ap_ctx){ pid, tid, comm, as };
	*slot = t->nr;
	return (long)t->nr++;
}
