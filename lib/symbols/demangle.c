// SPDX-License-Identifier: GPL-2.0
/*
 * Demangling with libiberty's demangler (Debian's libiberty-dev, the one
 * binutils, gdb and perf use): Itanium C++ (_Z), Rust in both its manglings
 * (legacy _ZN...17h<hash>E, shown without the hash, and v0 _R), and D (_D).
 * libstdc++'s __cxa_demangle, used before, knew C++ alone.  libiberty is
 * linked statically (Debian ships it as an archive only): no library to
 * load at start-up.
 */
#include "symbols/demangle.h"

#include <libiberty/demangle.h>
#include <string.h>

char *ap_demangle(const char *name)
{
	int style;

	if (!name || name[0] != '_')
		return NULL;
	switch (name[1]) {
	case 'Z':		/* C++, and legacy Rust within it */
	case 'R':		/* Rust v0 */
		style = DMGL_AUTO;
		break;
	case 'D':
		style = DMGL_DLANG;
		break;
	default:
		return NULL;
	}
	/* malloc'd, NULL when name is not a valid mangled name */
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | style);
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
