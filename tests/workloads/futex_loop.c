// SPDX-License-Identifier: GPL-2.0
/*
 * A burst of futex waits that do not block.
 *
 *   futex_loop [CALLS [kernel]]	(default 200000)
 *
 * CALLS times FUTEX_WAIT_PRIVATE on loop_word expecting 1 while it holds
 * 0: each call returns EAGAIN at once, as fast as the kernel allows, and
 * is one futex wait for -e lock.  Prints the calls that returned EAGAIN:
 *
 *   futex_loop: calls N eagain N
 *
 * With "kernel", two threads first write the same page of one memfd for
 * 20 ms, contending on its inode's lock (an rwsem, no kernel symbol):
 * a kernel lock contention just before the burst, the record that made
 * the recorder read the kernel's data symbols while the burst came.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int loop_word;

static int memfd;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *writer(void *arg)
{
	static char page[4096];
	double end = now_s() + 0.02;

	(void)arg;
	while (now_s() < end)
		if (pwrite(memfd, page, sizeof(page), 0) < 0)
			break;
	return NULL;
}

static int contend(void)
{
	pthread_t t[2];
	int i;

	memfd = memfd_create("futex_loop", 0);
	if (memfd < 0) {
		perror("memfd_create");
		return -1;
	}
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, writer, NULL)) {
			fprintf(stderr, "pthread_create failed\n");
			return -1;
		}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	close(memfd);
	return 0;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 200000, i, eagain = 0;

	if (argc > 2 && !strcmp(argv[2], "kernel") && contend())
		return 1;
	for (i = 0; i < calls; i++)
		if (syscall(SYS_futex, &loop_word, FUTEX_WAIT_PRIVATE, 1,
			    NULL, NULL, 0) < 0 && errno == EAGAIN)
			eagain++;
	printf("futex_loop: calls %ld eagain %ld\n", calls, eagain);
	return 0;
}
