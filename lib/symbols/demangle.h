/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mangled symbol names (C++, Rust legacy and v0, D) demangled with
 * libiberty's demangler.  Internal to lib/: the symbolizer uses it, tests
 * call it directly.
 */
#ifndef APERTURE_DEMANGLE_H
#define APERTURE_DEMANGLE_H

/* A malloc'd demangled copy of name, or NULL when name is not a mangled
 * name ("_Z...", "_R...", "_D...") or cannot be demangled.  The caller
 * frees the result. */
char *ap_demangle(const char *name);
/* Cut the parameter list of a demangled function name, and what follows
 * it, in place: "ns::f<int>(std::string const&) const" -> "ns::f<int>"
 * (perf report's --no-params style).  Names without one are left. */
void ap_demangle_strip_params(char *name);

#endif /* APERTURE_DEMANGLE_H */
