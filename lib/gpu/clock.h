/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GPU timestamps to the recording's clock.  CUPTI stamps its records on
 * its own clock (cuptiGetTimestamp); aperture's events are on
 * CLOCK_MONOTONIC.  The injection library (inject/cupti.c) reads both
 * clocks at start and again each time CUPTI hands a buffer back, and
 * converts a GPU time by linear interpolation between the sync points
 * around it (extrapolation past the ends), so that a drift between the
 * clocks is followed.  Durations are not converted: the GPU clock is the
 * authority on how long a kernel ran.
 *
 * No locking here: the caller serializes.
 */
#ifndef APERTURE_GPU_CLOCK_H
#define APERTURE_GPU_CLOCK_H

#include <stdint.h>

#define AP_GPU_CLOCK_POINTS	64
/* sync points closer than this on the GPU clock are not kept: over a short
 * span the reading error dominates the slope */
#define AP_GPU_CLOCK_MIN_NS	10000000ull
/* a slope further than this from 1 (parts per million) is a bad reading,
 * not a clock: 1 is used instead */
#define AP_GPU_CLOCK_MAX_PPM	1000

struct ap_gpu_sync {
	uint64_t gpu;
	uint64_t mono;
};

struct ap_gpu_clock {
	struct ap_gpu_sync pt[AP_GPU_CLOCK_POINTS];
	unsigned int nr;
};

void ap_gpu_clock__init(struct ap_gpu_clock *k);
/* Adds a sync point.  Returns 0 when kept, 1 when too close to the last
 * one (ignored), -EINVAL when either clock went backwards.  When the table
 * is full every other inner point is dropped. */
int ap_gpu_clock__add(struct ap_gpu_clock *k, uint64_t gpu, uint64_t mono);
/* gpu on the monotonic clock; gpu itself while no point is known */
uint64_t ap_gpu_clock__to_mono(const struct ap_gpu_clock *k, uint64_t gpu);

typedef uint64_t (*ap_clock_fn)(void *ctx);
/* One sync point: the monotonic clock read just before and after the GPU
 * clock, tries times; the tightest pair wins and the GPU reading is placed
 * at its middle.  Returns the window in ns (the uncertainty). */
uint64_t ap_gpu_clock__measure(ap_clock_fn gpu_now, ap_clock_fn mono_now,
			       void *ctx, int tries, struct ap_gpu_sync *out);

#endif /* APERTURE_GPU_CLOCK_H */
