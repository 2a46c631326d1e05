// SPDX-License-Identifier: GPL-2.0
/*
 * Lock contention with a known answer.
 *
 *   lock_contend [ROUNDS [HOLD_MS]]	(default 25 rounds of 20 ms)
 *
 * One global mutex, contended_mutex: a holder thread takes it ROUNDS
 * times and sleeps HOLD_MS inside; three waiters take it in a loop and
 * hold it 1 ms.  Every thread measures its own wait (clock_gettime around
 * pthread_mutex_lock) and hold; the totals are printed at the end:
 *
 *   lock_contend: acquisitions N wait_ns W hold_ns H hold_avg_ns A
 *
 *   lock_contend mmap SECONDS
 *
 * Four threads map, touch and unmap memory for SECONDS: contention on
 * the kernel's mmap_lock (an rwsem) of the process.
 *
 *   lock_contend mutex SECONDS
 *
 * Four threads take contended_mutex for a short critical section, then
 * work a little outside it, for SECONDS: a mutex throughput benchmark
 * (lock_contend: mutex rounds N), its futex waits many and short.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define WAITERS	3

pthread_mutex_t contended_mutex = PTHREAD_MUTEX_INITIALIZER;

static int rounds = 25;
static long hold_ms = 20;
static volatile int holder_done;

struct tally {
	uint64_t acquisitions;
	uint64_t wait_ns;
	uint64_t hold_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* one acquisition, timed; noinline keeps it a frame of its own */
static __attribute__((noinline)) void take_and_hold(struct tally *t,
						    long ms)
{
	uint64_t t0 = now_ns(), t1, t2;

	pthread_mutex_lock(&contended_mutex);
	t1 = now_ns();
	sleep_ms(ms);
	t2 = now_ns();
	pthread_mutex_unlock(&contended_mutex);
	t->acquisitions++;
	t->wait_ns += t1 - t0;
	t->hold_ns += t2 - t1;
}

static __attribute__((noinline)) void *holder(void *arg)
{
	struct tally *t = arg;
	int i;

	for (i = 0; i < rounds; i++) {
		take_and_hold(t, hold_ms);
		sleep_ms(2);
	}
	holder_done = 1;
	return NULL;
}

static __attribute__((noinline)) void *waiter(void *arg)
{
	struct tally *t = arg;

	while (!holder_done) {
		take_and_hold(t, 1);
		sleep_ms(1);
	}
	return NULL;
}

static double mmap_seconds;

static __attribute__((noinline)) void *mapper(void *arg)
{
	uint64_t end = now_ns() + (uint64_t)(mmap_seconds * 1e9);
	unsigned long n = 0;

	while (now_ns() < end) {
		char *p = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int i;

		if (p == MAP_FAILED)
			break;
		for (i = 0; i < 16; i++)
			p[i * 4096] = 1;
		munmap(p, 16 * 4096);
		n++;
	}
	*(unsigned long *)arg = n;
	return NULL;
}

static int run_mmap(double secs)
{
	pthread_t th[4];
	unsigned long n[4];
	int i;

	mmap_seconds = secs;
	for (i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, mapper, &n[i]))
			return 1;
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("lock_contend: mmap rounds %lu\n", n[0] + n[1] + n[2] + n[3]);
	return 0;
}

static volatile unsigned long spin_sink;

static void spin(int n)
{
	int i;

	for (i = 0; i < n; i++)
		spin_sink += i;
}

static __attribute__((noinline)) void *mutex_worker(void *arg)
{
	uint64_t end = now_ns() + (uint64_t)(mmap_seconds * 1e9);
	unsigned long n = 0;

	while ((n & 63) || now_ns() < end) {
		pthread_mutex_lock(&contended_mutex);
		spin(200);
		pthread_mutex_unlock(&contended_mutex);
		spin(200);
		n++;
	}
	*(unsigned long *)arg = n;
	return NULL;
}

static int run_mutex(double secs)
{
	pthread_t th[4];
	unsigned long n[4];
	int i;

	mmap_seconds = secs;
	for (i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, mutex_worker, &n[i]))
			return 1;
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("lock_contend: mutex rounds %lu\n", n[0] + n[1] + n[2] + n[3]);
	return 0;
}

int main(int argc, char **argv)
{
	struct tally t[WAITERS + 1], sum = { 0 };
	pthread_t th[WAITERS + 1];
	int i;

	if (argc > 1 && !strcmp(argv[1], "mmap"))
		return run_mmap(argc > 2 ? atof(argv[2]) : 1.0);
	if (argc > 1 && !strcmp(argv[1], "mutex"))
		return run_mutex(argc > 2 ? atof(argv[2]) : 1.0);
	if (argc > 1)
		rounds = atoi(argv[1]);
	if (argc > 2)
		hold_ms = atol(argv[2]);
	memset(t, 0, sizeof(t));
	if (pthread_create(&th[0], NULL, holder, &t[0]))
		return 1;
	for (i = 1; i <= WAITERS; i++)
		if (pthread_create(&th[i], NULL, waiter, &t[i]))
			return 1;
	for (i = 0; i <= WAITERS; i++) {
		pthread_join(th[i], NULL);
		sum.acquisitions += t[i].acquisitions;
		sum.wait_ns += t[i].wait_ns;
		sum.hold_ns += t[i].hold_ns;
	}
	printf("lock_contend: acquisitions %llu wait_ns %llu hold_ns %llu hold_avg_ns %llu\n",
	       (unsigned long long)sum.acquisitions,
	       (unsigned long long)sum.wait_ns,
	       (unsigned long long)sum.hold_ns,
	       (unsigned long long)(sum.hold_ns / sum.acquisitions));
	return 0;
}
