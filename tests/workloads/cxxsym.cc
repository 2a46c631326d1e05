// SPDX-License-Identifier: GPL-2.0
/*
 * cxxsym: C++ functions with known mangled names (in namespaces, a method,
 * a template) for the symbolizer's demangling test.
 */
#include <cstdio>
#include <cstdlib>

volatile unsigned long cxxsym_sink;

namespace cxxsym {
namespace inner {

__attribute__((noinline)) unsigned long work(unsigned long n)
{
	unsigned long r = n;

	for (unsigned long i = 0; i < n; i++)
		r = r * 2862933555777941757UL + 3037000493UL;
	return r;
}

} /* namespace inner */

struct counter {
	unsigned long v;
	__attribute__((noinline)) unsigned long step(unsigned long n);
};

unsigned long counter::step(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		v += (v >> 3) ^ i;
	return v;
}

template <typename T>
__attribute__((noinline)) T twice(T x)
{
	return x * 2 + static_cast<T>(cxxsym_sink);
}

} /* namespace cxxsym */

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	cxxsym::counter c = { 1 };

	cxxsym_sink = cxxsym::inner::work(n);
	cxxsym_sink = c.step(n);
	cxxsym_sink = cxxsym::twice<unsigned long>(n);
	std::printf("%lu\n", (unsigned long)cxxsym_sink);
	return 0;
}
