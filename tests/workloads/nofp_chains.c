// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for user stack unwinding, built without frame pointers
 * (tests/workloads/workloads.mk), as distro software is.  Every mode has
 * one known chain from main:
 *
 *   cpu     main;mode_cpu;chain_a;chain_b;leaf_spin       (frameless leaf)
 *   deep    main;mode_deep;recurse x DEPTH;leaf_spin       (250 by default)
 *   qsort   main;mode_qsort;qsort...;cmp_slow              (libc callback)
 *   signal  main;mode_signal;victim_spin;[signal];on_alarm;handler_spin
 *   sleep   main;mode_sleep;nap;nanosleep...               (blocks in libc)
 *   lock    main;...;locker;pthread_mutex_lock...          (futex waits)
 *   fault   main;mode_fault;chain_fault;leaf_touch         (page faults)
 *   burst   main;mode_burst;chain_fault;leaf_touch: 1 GiB of faults at
 *           once, then main;mode_burst;slow_phase;leaf_slow: 16 faults
 *           a millisecond for SECONDS
 *
 * Usage: nofp_chains MODE [SECONDS | nITERATIONS] [DEPTH]; "n500" runs a
 * fixed amount of work (cpu and deep), and NOFP_ELAPSED=1 prints the run
 * time ("elapsed S"), for benchmarks.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>

static volatile uint64_t sink;
static double seconds = 2;
static long iterations;		/* > 0: fixed work instead of fixed time */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* go on: for the time asked, or for the iterations asked */
static int more(double end, long *i)
{
	return iterations ? (*i)++ < iterations : now() < end;
}

/* a leaf without a frame: no call, no stack use */
__attribute__((noinline)) uint64_t leaf_spin(uint64_t n)
{
	uint64_t x = sink;

	while (n--)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/* the "+ 1" after each call keeps it a call, not a tail jump */
__attribute__((noinline)) uint64_t chain_b(uint64_t n)
{
	return leaf_spin(n) + 1;
}

__attribute__((noinline)) uint64_t chain_a(uint64_t n)
{
	return chain_b(n) + 1;
}

__attribute__((noinline)) void mode_cpu(void)
{
	double end = now() + seconds;
	long i = 0;

	while (more(end, &i))
		sink = chain_a(200000);
}

__attribute__((noinline)) uint64_t recurse(int depth, uint64_t n)
{
	volatile char pad[24];	/* a real frame on the stack */

	pad[0] = (char)depth;
	if (depth <= 1)
		return leaf_spin(n) + pad[0];
	return recurse(depth - 1, n) + pad[0];
}

__attribute__((noinline)) void mode_deep(int depth)
{
	double end = now() + seconds;
	long i = 0;

	while (more(end, &i))
		sink = recurse(depth, 200000);
}

__attribute__((noinline)) int cmp_slow(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	sink = leaf_spin(200);
	return x < y ? -1 : x > y;
}

__attribute__((noinline)) void mode_qsort(void)
{
	static uint32_t v[4096];
	double end = now() + seconds;
	size_t i;

	while (now() < end) {
		for (i = 0; i < 4096; i++)
			v[i] = (uint32_t)(i * 2654435761u);
		qsort(v, 4096, sizeof(v[0]), cmp_slow);
	}
}

__attribute__((noinline)) void handler_spin(void)
{
	sink = leaf_spin(3000000) + 1;
}

__attribute__((noinline)) void on_alarm(int sig)
{
	handler_spin();
	sink += sig;
}

__attribute__((noinline)) void victim_spin(void)
{
	double end = now() + seconds;

	while (now() < end)
		sink = leaf_spin(1000) + 1;
}

/* the timer counts this process's CPU time, not the wall clock's: on a
 * loaded machine a wall-clock signal every 5 ms came faster than the
 * handler's spin could run, and the program never left its handler */
__attribute__((noinline)) void mode_signal(void)
{
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	victim_spin();
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
}

__attribute__((noinline)) void nap(void)
{
	struct timespec ts = { 0, 2000000 };

	nanosleep(&ts, NULL);
	sink++;
}

__attribute__((noinline)) void mode_sleep(void)
{
	double end = now() + seconds;

	while (now() < end)
		nap();
}

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) void locker(void)
{
	pthread_mutex_lock(&mtx);
	sink = leaf_spin(300000) + 1;
	pthread_mutex_unlock(&mtx);
}

__attribute__((noinline)) void *lock_thread(void *arg)
{
	double end = now() + seconds;

	while (now() < end)
		locker();
	return arg;
}

__attribute__((noinline)) void mode_lock(void)
{
	pthread_t t;

	pthread_create(&t, NULL, lock_thread, NULL);
	lock_thread(NULL);
	pthread_join(t, NULL);
}

/* a frameless leaf that takes a page fault per page of fresh memory */
__attribute__((noinline)) void leaf_touch(volatile char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 4096)
		p[i] = 1;
}

__attribute__((noinline)) int chain_fault(char *p, size_t len)
{
	leaf_touch(p, len);
	return p[0] + 1;
}

__attribute__((noinline)) void mode_fault(void)
{
	double end = now() + seconds;
	size_t len = 16 << 20;
	long i = 0;

	while (more(end, &i)) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		sink += chain_fault(p, len);
		munmap(p, len);
	}
}

/* a frameless leaf, like leaf_touch, for the slow phase's faults */
__attribute__((noinline)) void leaf_slow(volatile char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 4096)
		p[i] = 2;
}

__attribute__((noinline)) void slow_phase(void)
{
	struct timespec ms = { 0, 1000000 };
	double end = now() + seconds;
	size_t len = 16 * 4096;

	while (now() < end) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		leaf_slow(p, len);
		sink += p[0];
		munmap(p, len);
		nanosleep(&ms, NULL);
	}
}

__attribute__((noinline)) void mode_burst(void)
{
	size_t len = 64 << 20;
	int i;

	/* 262144 faults as fast as the kernel takes them, 64 MiB at a time */
	for (i = 0; i < 16; i++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		sink += chain_fault(p, len);
		munmap(p, len);
	}
	slow_phase();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "cpu";
	double start = now();

	if (argc > 2 && argv[2][0] == 'n')
		iterations = atol(argv[2] + 1);
	else if (argc > 2)
		seconds = atof(argv[2]);
	if (!strcmp(mode, "cpu"))
		mode_cpu();
	else if (!strcmp(mode, "deep"))
		mode_deep(argc > 3 ? atoi(argv[3]) : 250);
	else if (!strcmp(mode, "qsort"))
		mode_qsort();
	else if (!strcmp(mode, "signal"))
		mode_signal();
	else if (!strcmp(mode, "sleep"))
		mode_sleep();
	else if (!strcmp(mode, "lock"))
		mode_lock();
	else if (!strcmp(mode, "fault"))
		mode_fault();
	else if (!strcmp(mode, "burst"))
		mode_burst();
	else {
		fprintf(stderr, "usage: nofp_chains cpu|deep|qsort|signal|sleep|lock|fault|burst [SECONDS] [DEPTH]\n");
		return 2;
	}
	if (getenv("NOFP_ELAPSED"))
		fprintf(stderr, "elapsed %.6f\n", now() - start);
	return 0;
}
