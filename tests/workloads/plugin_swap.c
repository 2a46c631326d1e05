// SPDX-License-Identifier: GPL-2.0
/*
 * Loads plugin_alpha.so, runs it, unloads it, then the same for
 * plugin_gamma.so, ROUNDS times: the two are built from one source and
 * load at the same address, so only mappings in time tell their samples
 * apart.  Prints each plugin's load address ("alpha 0x7f..").
 *
 *	plugin_swap [MS_PER_RUN [ROUNDS]]	(default 150 ms, 2 rounds)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run(const char *dir, const char *name, double ms)
{
	char path[PATH_MAX];
	unsigned long (*fn)(double);
	Dl_info info;
	void *h;

	snprintf(path, sizeof(path), "%s/plugin_%s.so", dir, name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "plugin_swap: %s\n", dlerror());
		return 1;
	}
	fn = (unsigned long (*)(double))dlsym(h, "plugin_run");
	if (!fn || !dladdr((void *)fn, &info)) {
		fprintf(stderr, "plugin_swap: %s: no plugin_run\n", path);
		return 1;
	}
	printf("%s %p\n", name, info.dli_fbase);
	fflush(stdout);
	fn(ms);
	dlclose(h);
	return 0;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 150;
	int rounds = argc > 2 ? atoi(argv[2]) : 2, i;
	char exe[PATH_MAX];
	const char *dir;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 1;
	exe[n] = '\0';
	dir = dirname(exe);
	for (i = 0; i < rounds; i++)
		if (run(dir, "alpha", ms) || run(dir, "gamma", ms))
			return 1;
	return 0;
}
