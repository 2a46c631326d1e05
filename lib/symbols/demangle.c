// SPDX-License-Identifier: GPL-2.0
/*
 * C++ demangling through libstdc++'s __cxa_demangle, opened with dlopen
 * on the first mangled name: loading and relocating libstdc++ at start-up
 * costs every run about 2 ms (a tenth of a whole report of 46,000
 * samples), and most targets are C.
 */
#include "symbols/demangle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf,
				 size_t *len, int *status);

static cxa_demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void cxa_open(void)
{
	void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

	if (lib)
		cxa_demangle = (cxa_demangle_fn)dlsym(lib, "__cxa_demangle");
}

char *ap_demangle(const char *name)
{
	char *out;
	int status = 0;

	if (!name || strncmp(name, "_Z", 2) != 0)
		return NULL;
	pthread_once(&cxa_once, cxa_open);
	if (!cxa_demangle)
		return NULL;	/* no libstdc++: names stay mangled */
	out = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

void ap_demangle_strip_params(char *name)
{
	char *p = strrchr(name, ')');
	int depth = 0;

	/* the last ')' closes the parameters, also under "const" or
	 * "[clone .cold]"; walk back to its '(' */
	for (; p && p >= name; p--) {
		if (*p == ')')
			depth++;
		else if (*p == '(' && --depth == 0)
			break;
	}
	if (p && p > name && *p == '(')
		*p = 0;
}
