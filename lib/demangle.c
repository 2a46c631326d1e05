// SPDX-License-Identifier: GPL-2.0
/*
 * C++ demangling through libstdc++'s __cxa_demangle (the link line has
 * -lstdc++), declared here so that no C++ header is needed.
 */
#include "demangle.h"

#include <stdlib.h>
#include <string.h>

extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
			    int *status);

char *ap_demangle(const char *name)
{
	char *out;
	int status = 0;

	if (!name || strncmp(name, "_Z", 2) != 0)
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
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
