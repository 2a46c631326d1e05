// SPDX-License-Identifier: GPL-2.0
/*
 * Burns MS milliseconds of CPU (default 40) in short_burn() and exits:
 * run twenty from a shell loop for processes that are gone before a
 * reader of /proc would get to them.  It reads its CPU clock often (the
 * vDSO, then the syscall the vDSO makes for a CPU-time clock): a share of
 * its samples large enough that test 71 always meets the vDSO's frame
 * (a read every 20,000 additions gave it 7 of 400 samples, and once in a
 * CI run none).
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

		for (i = 0; i < 2000; i++)
			x += i;
	}
	return x;
}

int main(int argc, char **argv)
{
	return short_burn(argc > 1 ? atof(argv[1]) : 40) == 1;
}
