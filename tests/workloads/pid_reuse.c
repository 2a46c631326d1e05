// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for pid reuse: two processes under one pid, one after the
 * other.
 *
 *   pid_reuse A_MS B_MS [TRIES]
 *
 * The first child sleeps 10 x A_MS ms and exits; once it is reaped, the
 * parent writes its pid - 1 to /proc/sys/kernel/ns_last_pid (root, in the
 * pid namespace the recorder sees) and forks until a child gets that same
 * pid (other processes may take it first: up to TRIES forks, default
 * 10000).  That child sleeps 10 x B_MS ms; children that got another pid
 * exit at once.  Neither calls exec: the second is the parent's fork.
 *
 * Each child prints what it asked for and measured itself: "pid=P
 * asked_ns=NS slept_ns=NS" (its nanosleeps, CLOCK_MONOTONIC around each:
 * the time asleep, and the wait for a CPU after it).  Exit 3: the pid was never
 * had again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

__attribute__((noinline)) static void sleeper(long ms)
{
	struct timespec d = { ms / 1000, ms % 1000 * 1000000L };
	uint64_t slept = 0, t0;
	int i;

	for (i = 0; i < 10; i++) {
		t0 = mono_ns();
		nanosleep(&d, NULL);
		slept += mono_ns() - t0;
	}
	printf("pid=%d asked_ns=%llu slept_ns=%llu\n", (int)getpid(),
	       (unsigned long long)ms * 10000000ull,
	       (unsigned long long)slept);
	fflush(stdout);
}

static int set_last_pid(pid_t pid)
{
	char buf[32];
	int fd, n, ok;

	fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d", (int)pid);
	ok = write(fd, buf, n) == n;
	close(fd);
	return ok ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	long a_ms, b_ms, tries, i;
	pid_t first, pid;
	int err, st;

	if (argc < 3) {
		fprintf(stderr, "usage: pid_reuse A_MS B_MS [TRIES]\n");
		return 2;
	}
	a_ms = atol(argv[1]);
	b_ms = atol(argv[2]);
	tries = argc > 3 ? atol(argv[3]) : 10000;
	fflush(stdout);
	first = fork();
	if (first < 0)
		return 1;
	if (!first) {
		sleeper(a_ms);
		_exit(0);
	}
	if (waitpid(first, &st, 0) != first)
		return 1;
	for (i = 0; i < tries; i++) {
		err = set_last_pid(first - 1);
		if (err) {
			fprintf(stderr, "pid_reuse: ns_last_pid: %s\n",
				strerror(-err));
			return 1;
		}
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			if (getpid() != first)
				_exit(0);
			sleeper(b_ms);
			_exit(0);
		}
		waitpid(pid, &st, 0);
		if (pid == first)
			return 0;
	}
	fprintf(stderr, "pid_reuse: pid %d not had again in %ld forks\n",
		(int)first, tries);
	return 3;
}
