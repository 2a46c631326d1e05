// SPDX-License-Identifier: GPL-2.0
#include "util/utf8.h"

#include <string.h>

size_t ap_utf8_seq(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2)		/* continuation, or overlong 2-byte */
		return 0;
	if (s[0] < 0xe0) {
		n = 2;
	} else if (s[0] < 0xf0) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (s[0] == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (s[0] < 0xf5) {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90;	/* overlong */
		else if (s[0] == 0xf4)
			hi = 0x8f;	/* past U+10FFFF */
	} else {
		return 0;
	}
	/* the first continuation byte has the narrowed range; a NUL ends
	 * the string and is no continuation */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

int ap_utf8_valid(const char *s)
{
	size_t n;

	for (; *s; s += n) {
		n = ap_utf8_seq(s);
		if (!n)
			return 0;
	}
	return 1;
}

size_t ap_utf8_sanitize(char *dst, size_t len, const char *src)
{
	size_t need = 0, n, piece;
	int full = 0;

	/* while !full and len, need < len: each piece is copied whole */
	for (; *src; src += n ? n : 1) {
		n = ap_utf8_seq(src);
		piece = n ? n : sizeof(AP_UTF8_REPLACEMENT) - 1;
		if (!full && need + piece < len) {
			memcpy(dst + need, n ? src : AP_UTF8_REPLACEMENT, piece);
		} else if (!full) {
			full = 1;
			if (len)
				dst[need] = '\0';
		}
		need += piece;
	}
	if (!full && len)
		dst[need] = '\0';
	return need;
}
