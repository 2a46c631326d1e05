// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen_many N DIR HOT MS: loads DIR/lib0.so .. DIR/lib<N-1>.so (each its
 * own mapping), then burns MS ms of CPU in dl_work of the last HOT of
 * them, in turn: the code a profile needs is past the first hundreds of
 * mappings of the process.  Prints how many executable mappings it has
 * then (from /proc/self/maps).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long (*work_fn)(double);

static int code_mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096], perm[8];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %7s", perm) == 1 && perm[2] == 'x')
			n++;
	fclose(f);
	return n;
}

__attribute__((noinline)) static unsigned long run(work_fn *fn, int hot,
						   double ms)
{
	unsigned long x = 0;
	int i, k;

	for (k = 0; k < 20; k++)
		for (i = 0; i < hot; i++)
			x += fn[i](ms / 20 / hot);
	return x;
}

int main(int argc, char **argv)
{
	work_fn fn[64];
	int n, hot, i;
	char path[4096];

	if (argc != 5 || (n = atoi(argv[1])) < 1 || (hot = atoi(argv[3])) < 1 ||
	    hot > n || hot > 64) {
		fprintf(stderr, "usage: dlopen_many N DIR HOT MS\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		void *h;

		snprintf(path, sizeof(path), "%s/lib%d.so", argv[2], i);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "dlopen_many: %s\n", dlerror());
			return 1;
		}
		if (i >= n - hot) {
			fn[i - (n - hot)] = (work_fn)dlsym(h, "dl_work");
			if (!fn[i - (n - hot)]) {
				fprintf(stderr, "dlopen_many: %s\n", dlerror());
				return 1;
			}
		}
	}
	printf("code mappings %d\n", code_mappings());
	fflush(stdout);
	return run(fn, hot, atof(argv[4])) == 42;
}
