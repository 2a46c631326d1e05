// SPDX-License-Identifier: GPL-2.0
#include "util/num.h"
#include "syscall/syscalls.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ap_syscall__name(uint32_t id, char *buf, size_t len)
{
	if (id < ap_syscall_names_nr && ap_syscall_names[id])
		return ap_syscall_names[id];
	snprintf(buf, len, "syscall_%u", id);
	return buf;
}

int ap_syscall__id(const char *name)
{
	size_t i;

	for (i = 0; i < ap_syscall_names_nr; i++)
		if (ap_syscall_names[i] && !strcmp(ap_syscall_names[i], name))
			return (int)i;
	return -ENOENT;
}

int ap_syscall__errno(int64_t ret)
{
	return ret < 0 && ret >= -4095 ? (int)-ret : 0;
}

const char *ap_errno__name(int err, char *buf, size_t len)
{
	/* include/linux/errno.h: never seen by user space, but
	 * sys_exit sees them before signal handling restarts the call */
	static const struct {
		int code;
		const char *name;
	} kernel[] = {
		{ 512, "ERESTARTSYS" },
		{ 513, "ERESTARTNOINTR" },
		{ 514, "ERESTARTNOHAND" },
		{ 515, "ENOIOCTLCMD" },
		{ 516, "ERESTART_RESTARTBLOCK" },
		{ 517, "EPROBE_DEFER" },
		{ 518, "EOPENSTALE" },
		{ 519, "ENOPARAM" },
		{ 521, "EBADHANDLE" },
		{ 524, "ENOTSUPP" },
		{ 526, "ESERVERFAULT" },
		{ 528, "EIOCBQUEUED" },
	};
	const char *n = err > 0 && err < 512 ? strerrorname_np(err) : NULL;
	size_t i;

	if (n)
		return n;
	for (i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++)
		if (kernel[i].code == err)
			return kernel[i].name;
	snprintf(buf, len, "E%d", err);
	return buf;
}

uint64_t ap_percentile(const uint64_t *sorted, size_t n, double p)
{
	size_t rank;
	double r;

	if (!n)
		return 0;
	if (!(p > 0))
		return sorted[0];
	if (p >= 100)
		return sorted[n - 1];
	/* ceil(p / 100 * n), computed so that 50% of 10 is exactly 5 */
	r = p * (double)n / 100.0;
	rank = (size_t)r;
	if ((double)rank < r)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void ap_sort_u64(uint64_t *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_u64);
}

static unsigned ilog2(uint64_t v)
{
	unsigned k = 0;

	while (v >>= 1)
		k++;
	return k;
}

#define NS_BUCKETS	5		/* below 1us: < 64, then 4 doublings */

unsigned ap_hist__bucket(uint64_t ns)
{
	unsigned k;

	if (ns < 64)
		return 0;
	if (ns < 1000)
		return ilog2(ns) - 5;	/* 64 -> 1 ... 512 -> 4 */
	k = NS_BUCKETS + ilog2(ns / 1000);
	return k < AP_HIST_BUCKETS ? k : AP_HIST_BUCKETS - 1;
}

void ap_hist__range(unsigned k, uint64_t *lo_ns, uint64_t *hi_ns)
{
	if (k == 0) {
		*lo_ns = 0;
		*hi_ns = 64;
	} else if (k < NS_BUCKETS) {
		*lo_ns = 1ull << (k + 5);
		*hi_ns = k == NS_BUCKETS - 1 ? 1000 : 1ull << (k + 6);
	} else {
		*lo_ns = (1ull << (k - NS_BUCKETS)) * 1000;
		*hi_ns = (1ull << (k - NS_BUCKETS + 1)) * 1000;
	}
	if (k == AP_HIST_BUCKETS - 1)
		*hi_ns = UINT64_MAX;	/* the last bucket takes the rest */
}

uint64_t ap_hist__percentile(const double *hist, double timed,
			     double total_ns, uint64_t max_ns, double p,
			     int *exact)
{
	double rank, seen = 0;
	uint64_t lo, hi, v;
	unsigned k;

	*exact = 1;
	if (timed <= 0)
		return 0;
	/* nearest rank, as ap_percentile: one call is its own p50 */
	rank = ceil(p * timed / 100.0 - 1e-9);
	if (rank < 1)
		rank = 1;
	if (rank >= timed)
		return max_ns;
	/* the shorter of two: never more than the longer (a hostile
	 * file's total does not fit a uint64_t) */
	if (timed == 2 && total_ns >= max_ns)
		return total_ns - max_ns < (double)max_ns ?
		       (uint64_t)(total_ns - max_ns + 0.5) : max_ns;
	*exact = 0;
	for (k = 0; k < AP_HIST_BUCKETS; k++) {
		if (hist[k] <= 0)
			continue;
		if (seen + hist[k] < rank) {
			seen += hist[k];
			continue;
		}
		/* the bucket's last value: [lo, hi), or the longest call */
		ap_hist__range(k, &lo, &hi);
		hi = hi > max_ns ? max_ns : hi - 1;
		if (hi <= lo)
			return lo < max_ns ? lo : max_ns;
		v = lo + (uint64_t)((hi - lo) * ((rank - seen) / hist[k]));
		return v < hi ? v : hi;
	}
	/* counts short of the rank (decayed): the longest is the bound */
	return max_ns;
}

/* whole.frac with the frac's trailing zeros dropped: exact, not rounded */
static void exact_dec(char *buf, size_t len, uint64_t v, uint64_t unit,
		      int digits, const char *suffix)
{
	uint64_t frac = v % unit;
	int n = digits;

	if (!frac) {
		snprintf(buf, len, "%llu%s", (unsigned long long)(v / unit),
			 suffix);
		return;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		n--;
	}
	snprintf(buf, len, "%llu.%0*llu%s", (unsigned long long)(v / unit), n,
		 (unsigned long long)frac, suffix);
}

const char *ap_hist__label(uint64_t ns, char *buf, size_t len)
{
	if (ns == UINT64_MAX)
		snprintf(buf, len, "inf");
	else if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		exact_dec(buf, len, ns, 1000, 3, "us");
	else if (ns < 1000000000)
		exact_dec(buf, len, ns / 1000, 1000, 3, "ms");
	else
		exact_dec(buf, len, ns / 1000, 1000000, 6, "s");
	return buf;
}
