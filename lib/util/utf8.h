/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UTF-8 as the formats that must hold it want it (XML, JSON, proto3
 * strings): names from a recording are bytes another user chose, and the
 * kernel cuts a thread's name at 15 bytes, which can split a character.
 * Every byte that starts no valid sequence (RFC 3629: no overlong forms,
 * no surrogates, nothing past U+10FFFF) stands for U+FFFD.
 */
#ifndef APERTURE_UTF8_H
#define APERTURE_UTF8_H

#include <stddef.h>

/* U+FFFD REPLACEMENT CHARACTER, encoded */
#define AP_UTF8_REPLACEMENT	"\xef\xbf\xbd"

/* the length (1 to 4) of the valid sequence s starts with, 0 if none
 * (s[0] must not be NUL) */
size_t ap_utf8_seq(const char *s);
/* 1 when all of s is valid UTF-8 */
int ap_utf8_valid(const char *s);
/* src into dst (len bytes, NUL-terminated; a sequence that does not fit
 * whole is left out) with U+FFFD for each invalid byte; returns the
 * length it needs, as snprintf does */
size_t ap_utf8_sanitize(char *dst, size_t len, const char *src);

#endif /* APERTURE_UTF8_H */
