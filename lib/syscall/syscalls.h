/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Syscall names (from the table generated at build time from the system's
 * <asm/unistd.h>, build/lib/syscall_names.c), errno names, and the latency
 * statistics of the syscall view: exact percentiles and log2 histograms.
 */
#ifndef APERTURE_SYSCALLS_H
#define APERTURE_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>

/* generated: [nr] = "name", NULL for holes */
extern const char *const ap_syscall_names[];
extern const size_t ap_syscall_names_nr;

/* the name of syscall id: the table's, else "syscall_ID" in buf */
const char *ap_syscall__name(uint32_t id, char *buf, size_t len);
/* id of a name, or -ENOENT */
int ap_syscall__id(const char *name);

/* is a raw syscall return value an error (-4095..-1)?  returns the errno
 * (> 0) or 0 */
int ap_syscall__errno(int64_t ret);
/* "ENOENT"; kernel-internal codes by their kernel names (ERESTARTSYS);
 * else "E<n>" in buf */
const char *ap_errno__name(int err, char *buf, size_t len);

/*
 * Exact percentile of n sorted values by the nearest-rank method: the
 * smallest value with at least p% of the values at or below it.  0 when n
 * is 0; p is clamped to 0..100.
 */
uint64_t ap_percentile(const uint64_t *sorted, size_t n, double p);
/* sorts v ascending */
void ap_sort_u64(uint64_t *v, size_t n);

/*
 * log2 latency histogram, like bpftrace's hist(): doubling buckets,
 * in nanoseconds below a microsecond and in microseconds above, so that
 * fast calls are told apart and the labels stay exact:
 *	[0ns, 64ns), [64ns, 128ns), [128ns, 256ns), [256ns, 512ns),
 *	[512ns, 1us), [1us, 2us), [2us, 4us), ... [2^k us, 2^(k+1) us)
 */
#define AP_HIST_BUCKETS		48
unsigned ap_hist__bucket(uint64_t ns);
/* bounds of bucket k in ns: [lo, hi) */
void ap_hist__range(unsigned k, uint64_t *lo_ns, uint64_t *hi_ns);
/*
 * The p-th percentile of timed calls counted in hist[] (total_ns in all,
 * the longest max_ns).  Exact (*exact set) where the rank is the last
 * call's (max_ns) or, of two, the first's (total_ns - max_ns); else
 * estimated: the bucket of the nearest rank, linear within it, clamped
 * to the bucket and to max_ns: the true value lies in that bucket, within
 * its factor of 2 (64 ns wide below 64 ns).  0 when timed is 0.
 */
uint64_t ap_hist__percentile(const double *hist, double timed,
			     double total_ns, uint64_t max_ns, double p,
			     int *exact);
/* a bucket bound for display, exact: "64ns", "1us", "1.024ms", "inf" */
const char *ap_hist__label(uint64_t ns, char *buf, size_t len);

#endif /* APERTURE_SYSCALLS_H */
