/* SPDX-License-Identifier: GPL-2.0 */
/* Interned strings: one stable copy of each, compared by pointer. */
#ifndef APERTURE_STRTAB_H
#define APERTURE_STRTAB_H

#include <stddef.h>

struct ap_strtab;

struct ap_strtab *ap_strtab__new(void);
void ap_strtab__free(struct ap_strtab *t);
/* the stable copy of s (len bytes, or up to NUL when len is -1) */
const char *ap_strtab__intern(struct ap_strtab *t, const char *s, long len);
size_t ap_strtab__count(const struct ap_strtab *t);
/* from now on, strings with control characters are interned escaped
 * (\xNN): tables and folded lines print other users' names */
void ap_strtab__set_escape(struct ap_strtab *t, int on);

#endif /* APERTURE_STRTAB_H */
