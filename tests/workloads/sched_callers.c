// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the user stacks sched takes again without a walk
 * (bpf/unwind.bpf.h, ap_uw_cache): the main thread blocks N times in
 * read() on a pipe, through wait_a() and wait_b() in turn; both call
 * block_here() with frames of one size, so the registers at the block are
 * the same each time and only the return addresses on the stack tell the
 * two apart.  A second thread writes a byte each time the first is
 * asleep (state S, read from /proc), so that every read blocks once.
 * Prints "a=N b=N" (reads through each).
 *
 *	sched_callers N
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static long n;
static volatile long done;		/* reads the main thread finished */
static pid_t main_tid;

/* is the main thread asleep (state S in /proc)? */
static int main_asleep(void)
{
	char path[64], buf[256], *p;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)main_tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		exit(1);
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		exit(1);
	buf[len] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

/* a byte each time the main thread is asleep in its read: every read
 * blocks, however loaded the machine */
static void *writer(void *arg)
{
	struct timespec ts = { 0, 50000 };
	long i;

	for (i = 0; i < n; i++) {
		while (done < i || !main_asleep())
			nanosleep(&ts, NULL);
		if (write(fds[1], "x", 1) != 1)
			exit(1);
	}
	return NULL;
}

__attribute__((noinline)) static void block_here(void)
{
	char c;

	if (read(fds[0], &c, 1) != 1)
		exit(1);
	done++;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void wait_a(void)
{
	block_here();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void wait_b(void)
{
	block_here();
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long i, a = 0, b = 0;
	pthread_t t;

	n = argc > 1 ? atol(argv[1]) : 1000;
	main_tid = getpid();
	if (pipe(fds) || pthread_create(&t, NULL, writer, NULL))
		return 1;
	for (i = 0; i < n; i++) {
		if (i & 1) {
			wait_b();
			b++;
		} else {
			wait_a();
			a++;
		}
	}
	pthread_join(t, NULL);
	printf("a=%ld b=%ld\n", a, b);
	return 0;
}
