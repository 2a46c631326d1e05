/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Totals summed in the kernel (ap_io_sums, ap_sc_sums, ap_sc_errs): hash
 * maps whose entries only grow while recording, read every AP_SUMS_NS and
 * at the end.  What changed since the last read is sent, so that the
 * differences add up to exact totals: an ap_sums table keeps what was
 * last sent of each entry.  A value starts with its __u64 count of calls;
 * an entry whose count has not moved is passed over.
 */
#ifndef APERTURE_SUMS_H
#define APERTURE_SUMS_H

#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

#define AP_SUMS_NS	(1000 * 1000 * 1000ull)

struct ap_sums {
	size_t key_size, val_size;
	size_t val_off, stride;		/* in v: key, value, 8-aligned */
	uint64_t seed;			/* of the keys' hash */
	unsigned char *v;
	size_t nr, cap;
	struct ap_hmap idx;		/* key's hash, probed -> index */
};

/* an entry that changed: key, its value now, what was last sent of it
 * (zero the first time); 0 or -errno */
typedef int (*ap_sums_fn)(void *arg, const void *key, const void *cur,
			  const void *last);

void ap_sums__init(struct ap_sums *s, size_t key_size, size_t val_size,
		   uint64_t seed);
void ap_sums__free(struct ap_sums *s);
/* what was last sent of key (zeroed when new); NULL: no memory */
void *ap_sums__last(struct ap_sums *s, const void *key);
/* reads the map fd: fn for each entry that changed, which then counts
 * as sent; the number of those, or -errno */
int ap_sums__read(struct ap_sums *s, int fd, ap_sums_fn fn, void *arg);

uint64_t ap_sums_now(void);		/* CLOCK_MONOTONIC, ns */

#endif /* APERTURE_SUMS_H */
