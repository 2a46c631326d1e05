// SPDX-License-Identifier: GPL-2.0
/*
 * Burns MS milliseconds of CPU (default 40) in short_burn() and exits:
 * run twenty from a shell loop for processes that are gone before a
 * reader of /proc would get to them.
 */
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static unsigned long short_burn(double ms)
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

int main(int argc, char **argv)
{
	return short_burn(argc > 1 ? atof(argv[1]) : 40) == 1;
}
