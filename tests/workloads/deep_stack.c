// SPDX-License-Identifier: GPL-2.0
/*
 * Burns CPU at the bottom of a recursion DEPTH frames deep (default 300,
 * past the 127 frames a stack keeps), for SECONDS (default 1): every
 * sample of deep_leaf has a stack cut at the depth limit.
 *
 *	deep_stack [SECONDS [DEPTH]]
 */
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long deep_leaf(double secs)
{
	volatile unsigned long x = 0;
	double end = now() + secs;

	while (now() < end) {
		int i;

		for (i = 0; i < 100000; i++)
			x += i;
	}
	return x;
}

__attribute__((noinline)) static unsigned long recurse(int n, double secs)
{
	unsigned long r;

	if (n <= 0)
		return deep_leaf(secs);
	r = recurse(n - 1, secs);
	/* not a tail call: each level keeps its frame */
	return r + (unsigned long)n;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	int depth = argc > 2 ? atoi(argv[2]) : 300;

	return recurse(depth, secs) == 1;
}
