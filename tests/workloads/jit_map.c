// SPDX-License-Identifier: GPL-2.0
/*
 * Generates code at run time, as a JIT does: a counting loop copied into
 * an anonymous executable mapping, named "jitted_spin" in
 * /tmp/perf-PID.map, run for SECONDS (default 1) of CPU; the map is
 * deleted at exit, as runtimes do.  Prints "map PATH".  x86_64 only.
 *
 *	jit_map [SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static char map_path[64];

static void remove_map(void)
{
	unlink(map_path);
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
#ifdef __x86_64__
	/* loop: dec edi; jnz loop; ret */
	static const unsigned char code[] = { 0xff, 0xcf, 0x75, 0xfc, 0xc3 };
	double secs = argc > 1 ? atof(argv[1]) : 1, end;
	void (*fn)(unsigned int);
	FILE *f;
	void *p;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, code, sizeof(code));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
		return 1;
	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(map_path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jitted_spin\n", (unsigned long)p, sizeof(code));
	fclose(f);
	atexit(remove_map);
	printf("map %s\n", map_path);
	fflush(stdout);
	fn = (void (*)(unsigned int))p;
	end = cpu_s() + secs;
	while (cpu_s() < end)
		fn(20000000);
	return 0;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "jit_map: x86_64 only\n");
	return 2;
#endif
}
