/* SPDX-License-Identifier: GPL-2.0 */
/* Numbers as options give them: decimal, no sign, whole string. */
#ifndef APERTURE_NUM_H
#define APERTURE_NUM_H

#include <stddef.h>
#include <stdint.h>

/* parse a positive integer within [min, max]; 0 or -EINVAL */
int ap_parse_u64(const char *s, unsigned long long min,
		 unsigned long long max, unsigned long long *out);

/*
 * A size as perf's -m gives it: N pages of page bytes, or N with B, K, M
 * or G; a power of two and a whole number of pages, from min to max
 * bytes.  0 or -EINVAL.
 */
int ap_parse_pow2_size(const char *s, unsigned long long page,
		       unsigned long long min, unsigned long long max,
		       uint64_t *bytes);

/* a size: N bytes, or N with B, K, M, G or T (powers of 1024), from min
 * to max bytes: 0 or -EINVAL */
int ap_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *bytes);

/* "SECONDS[.FRACTION]" (up to nanoseconds) of len bytes of s into ns:
 * 0, -EINVAL or -ERANGE */
int ap_parse_secs_ns(const char *s, size_t len, uint64_t *ns);

#endif /* APERTURE_NUM_H */
