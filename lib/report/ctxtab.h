/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread contexts for the views: who an event came from (pid, tid, the
 * thread's name as the session knows it when the event is read, and the
 * version of the process's address space live at the event's time),
 * interned into small indices so that aggregation keys stay integers.  An
 * exec, a library loaded over another one or a rename makes a new context,
 * so print time resolves each stack in the address space it was taken in.
 */
#ifndef APERTURE_CTXTAB_H
#define APERTURE_CTXTAB_H

#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

struct ap_addrspace;
struct ap_session;
struct ap_strtab;

struct ap_ctx {
	uint32_t pid, tid;
	const char *comm;		/* interned by the session */
	struct ap_addrspace *as;
};

/* the keys are interned in strs, which the caller owns */
struct ap_ctxtab {
	struct ap_strtab *strs;
	struct ap_ctx *ctxs;
	size_t nr, cap;
	struct ap_hmap by_key;		/* hash of the context -> index */
};

void ap_ctxtab__init(struct ap_ctxtab *t, struct ap_strtab *strs);
void ap_ctxtab__free(struct ap_ctxtab *t);
/* the index of the context of (pid, tid) as s knows it now, adding it
 * when new; -ENOMEM */
long ap_ctxtab__index(struct ap_ctxtab *t, struct ap_session *s,
		      uint32_t pid, uint32_t tid);

static inline const struct ap_ctx *ap_ctxtab__get(const struct ap_ctxtab *t,
						  size_t idx)
{
	return &t->ctxs[idx];
}

#endif /* APERTURE_CTXTAB_H */
