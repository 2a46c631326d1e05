// SPDX-License-Identifier: GPL-2.0
/*
 * inline_hot [SECONDS [CALLER...]]: all its time in hot_step(), which is
 * always inlined into its callers, ELF functions of their own: hot_host()
 * by default, else each CALLER (hot_host, parse or encode) for SECONDS in
 * turn.  perf's Symbol column shows the caller; hot_step exists only in
 * the DWARF inline chain.  "inline_hot 1 parse" against "inline_hot 1
 * encode" is a hot path that moved from one caller to the other (diff's
 * rows); "inline_hot 0.5 parse encode" two phases in time (speedscope's
 * time order).  Built with -O2 -g (workloads.mk).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile unsigned long inline_hot_sink;

static inline __attribute__((always_inline))
unsigned long hot_step(unsigned long x, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		asm volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline, noclone))
unsigned long hot_host(unsigned long seed)
{
	return hot_step(seed ^ inline_hot_sink, 200000);
}

__attribute__((noinline, noclone))
unsigned long parse(unsigned long seed)
{
	return hot_step(seed + inline_hot_sink, 100000);
}

__attribute__((noinline, noclone))
unsigned long encode(unsigned long seed)
{
	return hot_step(seed - inline_hot_sink, 100000);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1, end;
	unsigned long (*fn)(unsigned long) = hot_host;
	unsigned long i = 0;
	int a = 2;

	do {
		if (a < argc && !strcmp(argv[a], "parse")) {
			fn = parse;
		} else if (a < argc && !strcmp(argv[a], "encode")) {
			fn = encode;
		} else if (a < argc && strcmp(argv[a], "hot_host")) {
			fprintf(stderr, "inline_hot: '%s' is no caller\n",
				argv[a]);
			return 2;
		}
		end = now() + secs;
		do
			inline_hot_sink = fn(i++);
		while (now() < end);
	} while (++a < argc);
	printf("%lu\n", (unsigned long)inline_hot_sink);
	return 0;
}
