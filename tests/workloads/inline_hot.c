// SPDX-License-Identifier: GPL-2.0
/*
 * inline_hot [SECONDS]: all its time in hot_step(), which is always
 * inlined into hot_host(), an ELF function of its own.  perf's Symbol
 * column shows hot_host; hot_step exists only in the DWARF inline chain.
 * Built with -O2 -g (workloads.mk).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long inline_hot_sink;

static inline __attribute__((always_inline))
unsigned long hot_step(unsigned long x, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		asm volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline, noclone))
unsigned long hot_host(unsigned long seed)
{
	return hot_step(seed ^ inline_hot_sink, 200000);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1);
	unsigned long i = 0;

	do
		inline_hot_sink = hot_host(i++);
	while (now() < end);
	printf("%lu\n", (unsigned long)inline_hot_sink);
	return 0;
}
