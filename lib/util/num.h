/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers as options give them: decimal, no sign, whole string; and
 * weights as outputs hold them.
 */
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

/*
 * The most a weight (a duration in ns, a count, bytes) may be in any
 * output: 2^62, so that pprof's int64_t holds it and a sum of two, and
 * a double holds it exactly.  Hostile records claim more; views clamp.
 */
#define AP_WEIGHT_MAX		4611686018427387904.0

/* a weight summed in a double, rounded, within [0, AP_WEIGHT_MAX]
 * (NaN: 0): never a float-to-integer conversion that overflows */
int64_t ap_weight(double w);
/* a + b, or UINT64_MAX when it does not fit */
uint64_t ap_add_sat(uint64_t a, uint64_t b);

#endif /* APERTURE_NUM_H */
