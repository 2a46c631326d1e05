// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for scheduling profiles.
 *
 *   offcpu_sleep [SECONDS]	loop: burn about 10 ms of CPU in burn(),
 *				then sleep 30 ms in sleepy_wait(): about
 *				75 % of the time off-CPU in sleepy_wait
 *   offcpu_sleep nITERATIONS [DELAY]
 *				the same loop a fixed number of times, after
 *				DELAY seconds asleep in main() (time for a
 *				tool to attach with -p)
 *   offcpu_sleep pingpong N [DELAY]
 *				two threads passing a byte N times each way
 *				over pipes: context switches as fast as the
 *				machine goes; prints work_ns, for benchmarks
 *   offcpu_sleep slices N	N times: burn 1 ms of CPU, sleep 100 us; prints
 *				its own switch counts (getrusage) and wall
 *				time, the truth to compare a recorder's
 *				counts and its disturbance with
 *   offcpu_sleep contend [SECONDS]
 *				two threads spinning in spin() pinned to
 *				CPU 0: each about half of its time runnable
 *
 * At the end it prints what it measured itself, for the tests:
 * "iterations=N slept_ns=NS cpu_ns=NS tid=TID" (sleep mode) or
 * "tid=TID cpu_ns=NS wall_ns=NS" per thread (contend mode).
 *
 * sleepy_wait() makes the nanosleep system call itself (x86_64), so that
 * the user stack at switch-out starts inside it: frame-pointer unwinding
 * would skip the caller of a libc wrapper that keeps no frame.
 */
#define _GNU_SOURCE	/* sched_setaffinity, CPU_SET */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* on-CPU for about ns of this thread's CPU time */
__attribute__((noinline)) void burn(uint64_t ns)
{
	uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	uint64_t x = sink;
	int i;

	do {
		for (i = 0; i < 20000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		sink = x;
	} while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end);
}

__attribute__((noinline)) void sleepy_wait(long ns)
{
	struct timespec ts = { ns / 1000000000l, ns % 1000000000l };
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_nanosleep), "D"(&ts), "S"(0l)
			 : "rcx", "r11", "memory");
	(void)ret;
#else
	nanosleep(&ts, NULL);
#endif
}

static void delay(double seconds)
{
	struct timespec ts = { (time_t)seconds,
			       (long)((seconds - (time_t)seconds) * 1e9) };

	if (seconds > 0)
		nanosleep(&ts, NULL);
}

static int sleep_mode(double seconds, long iterations)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), slept = 0, t0;
	uint64_t end = start + (uint64_t)(seconds * 1e9);
	long n = 0;

	while (iterations ? n < iterations : clock_ns(CLOCK_MONOTONIC) < end) {
		burn(10 * 1000 * 1000);
		t0 = clock_ns(CLOCK_MONOTONIC);
		sleepy_wait(30 * 1000 * 1000);
		slept += clock_ns(CLOCK_MONOTONIC) - t0;
		n++;
	}
	printf("iterations=%ld slept_ns=%llu cpu_ns=%llu tid=%ld\n", n,
	       (unsigned long long)slept,
	       (unsigned long long)clock_ns(CLOCK_THREAD_CPUTIME_ID),
	       (long)syscall(SYS_gettid));
	return 0;
}

static int slices_mode(long n)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	struct rusage ru;
	long i;

	for (i = 0; i < n; i++) {
		burn(1000 * 1000);
		sleepy_wait(100 * 1000);
	}
	getrusage(RUSAGE_THREAD, &ru);
	printf("iterations=%ld nvcsw=%ld nivcsw=%ld tid=%ld wall_ns=%llu\n",
	       n, ru.ru_nvcsw, ru.ru_nivcsw, (long)syscall(SYS_gettid),
	       (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t0));
	return 0;
}

static double spin_seconds;

__attribute__((noinline)) void spin(void)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC) +
		       (uint64_t)(spin_seconds * 1e9);
	uint64_t x = sink;
	int i;

	while (clock_ns(CLOCK_MONOTONIC) < end) {
		for (i = 0; i < 10000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		sink = x;
	}
}

/* the threads inherit main's CPU 0 affinity: they never run elsewhere */
static void *spinner(void *arg)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

	spin();
	printf("tid=%ld cpu_ns=%llu wall_ns=%llu\n", (long)syscall(SYS_gettid),
	       (unsigned long long)clock_ns(CLOCK_THREAD_CPUTIME_ID),
	       (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t0));
	return arg;
}

static int ping[2], pong[2];
static long rounds;

static void *ponger(void *arg)
{
	char c;
	long i;

	for (i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			break;
	return arg;
}

static int pingpong_mode(long n)
{
	pthread_t t;
	uint64_t t0;
	char c = 'x';
	long i;

	rounds = n;
	if (pipe(ping) || pipe(pong))
		return 1;
	pthread_create(&t, NULL, ponger, NULL);
	t0 = clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			break;
	printf("work_ns=%llu rounds=%ld\n",
	       (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t0), i);
	pthread_join(t, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && !strcmp(argv[1], "pingpong")) {
		delay(argc > 3 ? atof(argv[3]) : 0);
		return pingpong_mode(atol(argv[2]));
	}
	if (argc > 2 && !strcmp(argv[1], "slices"))
		return slices_mode(atol(argv[2]));
	if (argc > 1 && argv[1][0] == 'n') {
		delay(argc > 2 ? atof(argv[2]) : 0);
		return sleep_mode(0, atol(argv[1] + 1));
	}
	if (argc > 1 && !strcmp(argv[1], "contend")) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return 1;
		spin_seconds = argc > 2 ? atof(argv[2]) : 1;
		for (i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, spinner, NULL);
		for (i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	return sleep_mode(argc > 1 ? atof(argv[1]) : 2, 0);
}
