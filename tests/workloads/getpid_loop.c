// SPDX-License-Identifier: GPL-2.0
/*
 * A system call as cheap as there is, in a loop: getpid(2) through
 * syscall(2), so that no libc cache answers it.  Under -e syscall every
 * call runs aperture's BPF programs twice (entry and exit), which makes
 * their cost a large share of the time; the kernel's getpid entry points
 * are aliases at one address (__x64_sys_getpid, __ia32_sys_getpid).
 *
 *	getpid_loop SECONDS		prints the calls made: "calls N"
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static long call_getpid(void)
{
	return syscall(SYS_getpid);
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1);
	unsigned long calls = 0;

	while (now() < end) {
		int i;

		for (i = 0; i < 1000; i++)
			call_getpid();
		calls += 1000;
	}
	printf("calls %lu\n", calls);
	return 0;
}
