// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for source lines: a fixed amount of work, no clock.  About
 * three quarters of the CPU time is on the line marked HOT in hot_loop(),
 * most of the rest on the line marked INLINED_HOT of mix(), inlined into
 * cold_loop(); one 50 ms sleep is called on the line marked NAP.  Tests
 * find the line numbers by these markers.  Usage: srcline_hot [N]
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	for (int i = 0; i < 64; i++) x = x * 6364136223846793005ul + 1442695040888963407ul; /* INLINED_HOT */
	return x;
}

static __attribute__((noinline)) void hot_loop(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++) x = x * 2862933555777941757ul + 3037000493ul; /* HOT */
	sink = x;
}

static __attribute__((noinline)) void cold_loop(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = mix(x); /* MIX_CALL */
	sink = x;
}

static __attribute__((noinline)) void nap(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	nanosleep(&ts, NULL); /* NAP */
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000000;

	nap();
	hot_loop(n); /* CALL_HOT */
	cold_loop(n / 64 / 3);
	return 0;
}
