// SPDX-License-Identifier: GPL-2.0
/*
 * Futex waits of each class, with known counts (glibc).
 *
 *   lock_classes [ROUNDS]		(default 200)
 *
 * quiet_mutex: one thread takes and releases it 20,000 times; never
 * contended.  round_mutex: ROUNDS times the main thread holds it until
 * the other thread is asleep on it (glibc's lock word at 2, "waiters"),
 * then lets it go: exactly ROUNDS acquisitions that waited, each one
 * call of the slow path and one futex wait; the waiter holds it HOLD_US
 * and measures that.  round_cond: ROUNDS waits on a condition variable,
 * signalled once its waiter sleeps.  Then one join of a thread that is
 * still sleeping.  At the end:
 *
 *   lock_classes: uncontended N contended N hold_ns N cond_rounds N joins N
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define QUIET		20000
#define HOLD_US		1000

pthread_mutex_t quiet_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t round_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t cond_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t round_cond = PTHREAD_COND_INITIALIZER;

static int rounds = 200;
static sem_t go, done;
static volatile int signalled, in_cond;
static volatile pid_t waiter_tid;
static uint64_t hold_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

/* is thread tid asleep (state S in /proc/self/task/TID/stat)? */
static int asleep(pid_t tid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

static __attribute__((noinline)) void contend(void)
{
	uint64_t t0;

	pthread_mutex_lock(&round_mutex);
	t0 = now_ns();
	sleep_us(HOLD_US);
	hold_ns += now_ns() - t0;
	pthread_mutex_unlock(&round_mutex);
}

static __attribute__((noinline)) void cond_wait_once(void)
{
	pthread_mutex_lock(&cond_mutex);
	in_cond = 1;
	while (!signalled)
		pthread_cond_wait(&round_cond, &cond_mutex);
	signalled = 0;
	in_cond = 0;
	pthread_mutex_unlock(&cond_mutex);
}

static void *waiter(void *arg)
{
	int i;

	(void)arg;
	waiter_tid = (pid_t)syscall(SYS_gettid);
	for (i = 0; i < rounds; i++) {
		sem_wait(&go);
		contend();
		sem_post(&done);
	}
	for (i = 0; i < rounds; i++) {
		sem_wait(&go);
		cond_wait_once();
		sem_post(&done);
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	sleep_us(50000);
	return NULL;
}

int main(int argc, char **argv)
{
	volatile int *word = &round_mutex.__data.__lock;
	pthread_t w, s;
	int i;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (rounds < 1)
		rounds = 1;
	for (i = 0; i < QUIET; i++) {
		pthread_mutex_lock(&quiet_mutex);
		pthread_mutex_unlock(&quiet_mutex);
	}
	sem_init(&go, 0, 0);
	sem_init(&done, 0, 0);
	if (pthread_create(&w, NULL, waiter, NULL))
		return 1;
	for (i = 0; i < rounds; i++) {
		pthread_mutex_lock(&round_mutex);
		sem_post(&go);
		/* the waiter has marked the word "waiters": it is in (or
		 * about to enter) its one futex wait */
		while (*word != 2)
			sleep_us(50);
		pthread_mutex_unlock(&round_mutex);
		sem_wait(&done);
	}
	for (i = 0; i < rounds; i++) {
		sem_post(&go);
		/* asleep past in_cond, where nothing else sleeps: in the
		 * condition variable's wait */
		while (!in_cond || !asleep(waiter_tid))
			sleep_us(50);
		pthread_mutex_lock(&cond_mutex);
		signalled = 1;
		pthread_cond_signal(&round_cond);
		pthread_mutex_unlock(&cond_mutex);
		sem_wait(&done);
	}
	pthread_join(w, NULL);
	if (pthread_create(&s, NULL, sleeper, NULL))
		return 1;
	pthread_join(s, NULL);
	printf("lock_classes: uncontended %d contended %d hold_ns %llu cond_rounds %d joins 1\n",
	       QUIET, rounds, (unsigned long long)hold_ns, rounds);
	return 0;
}
