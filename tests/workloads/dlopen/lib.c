// SPDX-License-Identifier: GPL-2.0
/*
 * The library dlopen_many loads hundreds of times (copies under other
 * names): built without frame pointers, so that only its own table
 * unwinds its frames, and the chains through it are complete only when
 * the unwinder knows every copy's mapping.
 */
#include <time.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* a frame of its own, the stack pointer moved: rbp says nothing here */
__attribute__((noinline)) unsigned long dl_inner(double ms)
{
	volatile unsigned long buf[16] = { 0 };
	double end = cpu_ms() + ms;

	while (cpu_ms() < end) {
		int i;

		for (i = 0; i < 20000; i++)
			buf[i & 15] += i;
	}
	return buf[3];
}

__attribute__((noinline)) unsigned long dl_work(double ms)
{
	volatile unsigned long pad[8] = { 1 };

	return dl_inner(ms) + pad[2];
}
