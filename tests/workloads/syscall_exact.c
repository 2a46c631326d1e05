// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the syscall tests: each of THREADS threads makes
 * exactly N read() calls on /dev/zero and N write() calls on /dev/null;
 * then the main thread makes ERRS read() calls on a closed fd (EBADF) and
 * ERRS openat() calls on a missing file (ENOENT).  Linked statically, so
 * that no dynamic loader adds read() calls of its own; prints nothing.
 * The read and write calls go through sc_read and sc_write, which keep a
 * frame pointer (libc's wrappers do not), so that their callers show in
 * user stacks taken at the syscall.
 *
 * With RATE, each thread paces itself to RATE read and write calls per
 * second (sleeping each millisecond until the next batch is due); the
 * sleeps are clock_nanosleep() calls, not reads or writes.
 *
 * With SYSCALL_EXACT_TIME set in the environment, the time the read and
 * write loops took is printed on stderr (one more write) as "loop_ns N",
 * for benchmarks that must leave the tools' start-up time out.
 *
 *	syscall_exact N [ERRS [THREADS [RATE]]]
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long n_calls;
static long rate;			/* calls per second per thread; 0: flat out */
static int zero_fd, null_fd;

static long raw_syscall3(long nr, long a, long b, long c)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	if (ret < 0 && ret >= -4095) {
		errno = -ret;
		return -1;
	}
	return ret;
#else
	return syscall(nr, a, b, c);
#endif
}

__attribute__((noinline)) static long sc_read(int fd, void *buf, size_t n)
{
	return raw_syscall3(SYS_read, fd, (long)buf, (long)n);
}

__attribute__((noinline)) static long sc_write(int fd, const void *buf,
					       size_t n)
{
	return raw_syscall3(SYS_write, fd, (long)buf, (long)n);
}

static void *rw_loop(void *arg)
{
	long batch = rate / 2 / 1000;	/* read+write pairs per millisecond */
	struct timespec due;
	char c = 0;
	long i;

	if (batch < 1)
		batch = 1;
	clock_gettime(CLOCK_MONOTONIC, &due);
	for (i = 0; i < n_calls; i++) {
		if (rate && i % batch == 0) {
			due.tv_nsec += batch * 2 * 1000000000ll / rate;
			while (due.tv_nsec >= 1000000000) {
				due.tv_nsec -= 1000000000;
				due.tv_sec++;
			}
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due,
					NULL);
		}
		if (sc_read(zero_fd, &c, 1) != 1)
			exit(2);
		if (sc_write(null_fd, &c, 1) != 1)
			exit(2);
	}
	return NULL;
}

static void errors(long n)
{
	char c;
	long i;

	for (i = 0; i < n; i++) {
		if (read(-1, &c, 1) != -1 || errno != EBADF)
			exit(3);
		if (open("/nonexistent/aperture-syscall-test", O_RDONLY) != -1)
			exit(3);
	}
}

int main(int argc, char **argv)
{
	long errs = argc > 2 ? atol(argv[2]) : 0;
	long threads = argc > 3 ? atol(argv[3]) : 1;
	pthread_t tids[64];
	struct timespec t0, t1;
	long i;

	if (argc < 2 || threads < 1 || threads > 64)
		return 64;
	n_calls = atol(argv[1]);
	rate = argc > 4 ? atol(argv[4]) : 0;
	zero_fd = open("/dev/zero", O_RDONLY);
	null_fd = open("/dev/null", O_WRONLY);
	if (zero_fd < 0 || null_fd < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 1; i < threads; i++)
		if (pthread_create(&tids[i], NULL, rw_loop, NULL))
			return 1;
	rw_loop(NULL);
	for (i = 1; i < threads; i++)
		pthread_join(tids[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("SYSCALL_EXACT_TIME"))
		fprintf(stderr, "loop_ns %lld\n",
			(t1.tv_sec - t0.tv_sec) * 1000000000ll +
			t1.tv_nsec - t0.tv_nsec);
	errors(errs);
	return 0;
}
