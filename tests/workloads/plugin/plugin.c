// SPDX-License-Identifier: GPL-2.0
/*
 * A plugin for plugin_swap, built twice (PLUGIN=alpha, PLUGIN=gamma): the
 * same code under two names, so that both load at the same address.
 */
#include <time.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* burns ms of CPU in this plugin's own function */
__attribute__((noinline)) unsigned long CAT(PLUGIN, _spin)(double ms)
{
	volatile unsigned long x = 0;
	double end = cpu_ms() + ms;

	while (cpu_ms() < end) {
		int i;

		for (i = 0; i < 20000; i++)
			x += i;
	}
	return x;
}

unsigned long plugin_run(double ms)
{
	return CAT(PLUGIN, _spin)(ms);
}
