// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the many-mappings test: maps the first page of FILE
 * executable N times (each its own mapping: the same offset again never
 * merges with its neighbour), creates READY_FILE, then spins until killed,
 * making no syscall, in many_maps_spin() on a stack of its own whose
 * return address points outside every mapping, as a hostile or broken
 * process's stack would.  Every sample of it has a user frame outside the
 * mappings.
 *
 *	many_maps N FILE READY_FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* below mmap_min_addr: never mapped */
#define NOWHERE		0x1230ul

static volatile unsigned long spins;
static unsigned long stack[4096] __attribute__((aligned(16)));

/* entered by a jump, with NOWHERE as its return address; never returns */
__attribute__((noinline, used, noreturn)) void many_maps_spin(void)
{
	for (;;)
		spins++;
}

int main(int argc, char **argv)
{
	int i, n, fd;

	if (argc != 4) {
		fprintf(stderr, "usage: many_maps N FILE READY_FILE\n");
		return 2;
	}
	n = atoi(argv[1]);
	fd = open(argv[2], O_RDONLY);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
			 0) == MAP_FAILED) {
			fprintf(stderr, "many_maps: mapping %d: %m\n", i);
			return 1;
		}
	}
	close(fd);
	fd = open(argv[3], O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	/* the top of a stack of our own: 16-byte aligned after the push,
	 * as at any function's entry */
	__asm__ volatile("lea %0, %%rsp\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "pushq %1\n\t"
			 "jmp many_maps_spin\n\t"
			 : : "m"(stack[4094]), "r"(NOWHERE) : "memory");
	__builtin_unreachable();
}
