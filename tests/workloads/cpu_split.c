// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for CPU profiles: spends about 60 %, 30 % and 10 % of its
 * CPU time in burn_60, burn_30 and burn_10, called from main through
 * work().  Usage: cpu_split [SECONDS | nITERATIONS] [THREADS] (default
 * 3 s, 1 thread); "n2000" runs a fixed amount of work, for benchmarks.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

/* gcc builds leaf functions without a frame even with
 * -fno-omit-frame-pointer; a call makes the burn_* functions non-leaf, so
 * their caller shows in frame-pointer stacks */
static __attribute__((noinline)) void done(void)
{
	__asm__ volatile("");
}

/* a macro, not a function: the time is self time of each burn_* */
#define SPIN(n)								\
	do {								\
		uint64_t x_ = sink, n_ = (n);				\
		while (n_--)						\
			x_ = x_ * 6364136223846793005ull +		\
			     1442695040888963407ull;			\
		sink = x_;						\
		done();							\
	} while (0)

__attribute__((noinline)) void burn_60(void) { SPIN(600000); }
__attribute__((noinline)) void burn_30(void) { SPIN(300000); }
__attribute__((noinline)) void burn_10(void) { SPIN(100000); }

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double seconds = 3;
static long iterations;		/* > 0: fixed work instead of fixed time */

static __attribute__((noinline)) void *work(void *arg)
{
	double end = now() + seconds;
	long i = 0;

	while (iterations ? i++ < iterations : now() < end) {
		burn_60();
		burn_30();
		burn_10();
	}
	return arg;
}

int main(int argc, char **argv)
{
	int i, threads = argc > 2 ? atoi(argv[2]) : 1;
	double start = now();
	pthread_t tid[64];

	if (argc > 1 && argv[1][0] == 'n')
		iterations = atol(argv[1] + 1);
	else if (argc > 1)
		seconds = atof(argv[1]);
	if (threads < 1 || threads > 64)
		threads = 1;
	for (i = 1; i < threads; i++)
		pthread_create(&tid[i], NULL, work, NULL);
	work(NULL);
	for (i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	/* for benchmarks: the workload's own run time, without the
	 * profiler's start-up and tear-down */
	if (getenv("CPU_SPLIT_ELAPSED"))
		fprintf(stderr, "elapsed %.6f\n", now() - start);
	return 0;
}
