// SPDX-License-Identifier: GPL-2.0
/*
 * symtest: a binary with known symbols for the symbolizer's unit test.
 *
 * The asm labels give the test exact addresses inside functions without
 * reading DWARF: each label marks a nop on the line tagged SYMTEST_MARK_*,
 * which the test finds in this file to know the expected source line.
 * symtest_inlined is always inlined into symtest_caller at the line tagged
 * SYMTEST_MARK_CALL.  Built with -O2 -g (workloads.mk).
 *
 * Run, it spends its time in symtest_alpha, symtest_beta and the inlined
 * code, so it also serves as a profiling target: symtest [seconds].
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long symtest_sink;

__attribute__((noinline, noclone))
unsigned long symtest_alpha(unsigned long n)
{
	unsigned long r = n, i;

	asm volatile("symtest_alpha_mark: nop"); /* SYMTEST_MARK_ALPHA */
	for (i = 0; i < n; i++)
		r = r * 6364136223846793005UL + 1442695040888963407UL;
	return r;
}

__attribute__((noinline, noclone))
unsigned long symtest_beta(unsigned long n)
{
	unsigned long r = 0, i;

	for (i = 0; i < n; i++)
		r += (r >> 7) ^ (i * 2654435761UL);
	return r;
}

static inline __attribute__((always_inline))
unsigned long symtest_inlined(unsigned long x)
{
	unsigned long r = x ^ symtest_sink;

	asm volatile("symtest_inline_mark: nop"); /* SYMTEST_MARK_INLINE */
	return r * 31 + (r >> 11);
}

__attribute__((noinline, noclone))
unsigned long symtest_caller(unsigned long n)
{
	unsigned long r = n * 3;

	r += symtest_inlined(n); /* SYMTEST_MARK_CALL */
	symtest_sink = r;
	return r;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0, end = now() + secs;
	unsigned long i = 0;

	do {
		symtest_sink = symtest_alpha(100000 + (i & 1));
		symtest_sink = symtest_beta(100000 + (i & 1));
		symtest_sink = symtest_caller(i++);
	} while (now() < end);
	printf("%lu\n", (unsigned long)symtest_sink);
	return 0;
}
