/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stack table: each distinct stack (kernel frames, then user frames)
 * stored once and named by an id >= 1.  record interns sampled stacks and
 * writes a STACK frame for each new one; report rebuilds the table from
 * those frames.
 */
#ifndef APERTURE_STACKTAB_H
#define APERTURE_STACKTAB_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

struct ap_stacktab;

struct ap_stacktab *ap_stacktab__new(void);
void ap_stacktab__free(struct ap_stacktab *t);
/* id of the stack, adding it when new (*is_new set); 0 on ENOMEM */
uint32_t ap_stacktab__intern(struct ap_stacktab *t, const uint64_t *kips,
			     uint16_t nr_kernel, const uint64_t *uips,
			     uint16_t nr_user, int *is_new);
/* adds AP_STACK_* flags to an interned stack (before it is written) */
void ap_stacktab__set_flags(struct ap_stacktab *t, uint32_t id,
			    uint32_t flags);
/* store a stack under a given id (as read from a file); 0 or -errno */
int ap_stacktab__put(struct ap_stacktab *t, const struct ap_stack *s);
/* the stack with this id, or -ENOENT */
int ap_stacktab__get(const struct ap_stacktab *t, uint32_t id,
		     struct ap_stack *s);
size_t ap_stacktab__count(const struct ap_stacktab *t);

#endif /* APERTURE_STACKTAB_H */
