// SPDX-License-Identifier: GPL-2.0
/*
 * A burst of futex waits that do not block.
 *
 *   futex_loop [CALLS]		(default 200000)
 *
 * CALLS times FUTEX_WAIT_PRIVATE on loop_word expecting 1 while it holds
 * 0: each call returns EAGAIN at once, as fast as the kernel allows, and
 * is one futex wait for -e lock.  Prints the calls that returned EAGAIN:
 *
 *   futex_loop: calls N eagain N
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int loop_word;

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 200000, i, eagain = 0;

	for (i = 0; i < calls; i++)
		if (syscall(SYS_futex, &loop_word, FUTEX_WAIT_PRIVATE, 1,
			    NULL, NULL, 0) < 0 && errno == EAGAIN)
			eagain++;
	printf("futex_loop: calls %ld eagain %ld\n", calls, eagain);
	return 0;
}
