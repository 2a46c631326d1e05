// SPDX-License-Identifier: GPL-2.0
/*
 * Two threads take one mutex and, holding it, run a loop inlined into
 * worker() right after the pthread_mutex_lock call: the return address
 * of that call is the first instruction of the inlined loop, so a stack
 * taken where pthread_mutex_lock returns must be looked up at ip - 1 to
 * name worker() and not the inlined spin_held().  Each holds it until the
 * other waits for it, so that every acquisition of the other contends.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t inline_mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;
static volatile int running = 2;

static inline __attribute__((always_inline)) void spin_held(long n)
{
	long i;

	for (i = 0; i < n; i++)
		sink += i;
}

static __attribute__((noinline)) void *worker(void *arg)
{
	long rounds = (long)arg, r;

	for (r = 0; r < rounds; r++) {
		pthread_mutex_lock(&inline_mutex);
		spin_held(100000);
		/* held until the other worker waits for it (glibc's word at
		 * 2), while there is one: every acquisition of the other
		 * contends */
		while (running == 2 && inline_mutex.__data.__lock != 2)
			sched_yield();
		pthread_mutex_unlock(&inline_mutex);
	}
	__atomic_fetch_sub(&running, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	pthread_t t[2];
	int i;

	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)rounds))
			return 1;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("acquisitions %ld\n", 2 * rounds);
	return 0;
}
