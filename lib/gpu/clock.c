// SPDX-License-Identifier: GPL-2.0
#include "gpu/clock.h"

#include <errno.h>
#include <string.h>

void ap_gpu_clock__init(struct ap_gpu_clock *k)
{
	memset(k, 0, sizeof(*k));
}

int ap_gpu_clock__add(struct ap_gpu_clock *k, uint64_t gpu, uint64_t mono)
{
	struct ap_gpu_sync *last = k->nr ? &k->pt[k->nr - 1] : NULL;
	unsigned int i, j;

	if (last && (gpu < last->gpu || mono < last->mono))
		return -EINVAL;
	if (last && gpu - last->gpu < AP_GPU_CLOCK_MIN_NS)
		return 1;
	if (k->nr == AP_GPU_CLOCK_POINTS) {
		/* keep the first, every other one after it, and the last */
		for (i = 1, j = 2; j < k->nr - 1; i++, j += 2)
			k->pt[i] = k->pt[j];
		k->pt[i++] = k->pt[k->nr - 1];
		k->nr = i;
	}
	k->pt[k->nr].gpu = gpu;
	k->pt[k->nr].mono = mono;
	k->nr++;
	return 0;
}

/* a + (g - a.gpu) * slope(a, b); when the segment is implausible, the
 * nearer point's offset with a slope of 1 */
static uint64_t along(const struct ap_gpu_sync *a, const struct ap_gpu_sync *b,
		      uint64_t g)
{
	__int128 dg = (__int128)b->gpu - a->gpu;
	__int128 dm = (__int128)b->mono - a->mono;
	__int128 x = (__int128)g - a->gpu;
	__int128 y = (__int128)g - b->gpu;

	/* |dm - dg| / dg > MAX_PPM / 1e6 */
	if (dg <= 0 ||
	    (dm > dg ? dm - dg : dg - dm) * 1000000 > dg * AP_GPU_CLOCK_MAX_PPM) {
		if ((y < 0 ? -y : y) < (x < 0 ? -x : x))
			return (uint64_t)((__int128)b->mono + y);
		return (uint64_t)((__int128)a->mono + x);
	}
	return (uint64_t)((__int128)a->mono + x * dm / dg);
}

uint64_t ap_gpu_clock__to_mono(const struct ap_gpu_clock *k, uint64_t gpu)
{
	unsigned int lo, hi;

	if (!k->nr)
		return gpu;
	if (k->nr == 1)
		return along(&k->pt[0], &k->pt[0], gpu);
	if (gpu <= k->pt[0].gpu)
		return along(&k->pt[0], &k->pt[1], gpu);
	if (gpu >= k->pt[k->nr - 1].gpu)
		return along(&k->pt[k->nr - 2], &k->pt[k->nr - 1], gpu);
	/* pt[lo].gpu <= gpu < pt[hi].gpu */
	lo = 0;
	hi = k->nr - 1;
	while (hi - lo > 1) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (k->pt[mid].gpu <= gpu)
			lo = mid;
		else
			hi = mid;
	}
	return along(&k->pt[lo], &k->pt[hi], gpu);
}

uint64_t ap_gpu_clock__measure(ap_clock_fn gpu_now, ap_clock_fn mono_now,
			       void *ctx, int tries, struct ap_gpu_sync *out)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < (tries > 0 ? tries : 1); i++) {
		uint64_t m0 = mono_now(ctx);
		uint64_t g = gpu_now(ctx);
		uint64_t m1 = mono_now(ctx);

		if (m1 < m0 || m1 - m0 >= best)
			continue;
		best = m1 - m0;
		out->gpu = g;
		out->mono = m0 + best / 2;
	}
	return best;
}
