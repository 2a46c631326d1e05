// SPDX-License-Identifier: GPL-2.0
#include "util/escape.h"

#include <stdio.h>
#include <string.h>
#include <sys/types.h>

static int is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int ap_escape_clean(const char *s, int flags)
{
	for (; *s; s++)
		if (is_ctl((unsigned char)*s) ||
		    ((flags & AP_ESC_FOLDED) && *s == ';'))
			return 0;
	return 1;
}

size_t ap_escape(char *dst, size_t len, const char *src, int flags)
{
	size_t n = 0;
	char esc[5];

	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;
		const char *add = esc;
		size_t k;

		if (is_ctl(c)) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		} else {
			esc[0] = (flags & AP_ESC_FOLDED) && c == ';' ? ':' : c;
			esc[1] = '\0';
		}
		for (k = 0; add[k]; k++, n++)
			if (n + 1 < len)
				dst[n] = add[k];
	}
	if (len)
		dst[n < len ? n : len - 1] = '\0';
	return n;
}

static ssize_t stream_write(void *cookie, const char *buf, size_t size)
{
	FILE *out = cookie;
	size_t i, from = 0;

	for (i = 0; i < size; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (!is_ctl(c) || c == '\n' || c == '\t')
			continue;
		if (i > from && fwrite(buf + from, 1, i - from, out) != i - from)
			return -1;
		if (fprintf(out, "\\x%02x", c) < 0)
			return -1;
		from = i + 1;
	}
	if (size > from && fwrite(buf + from, 1, size - from, out) != size - from)
		return -1;
	return (ssize_t)size;
}

static int stream_close(void *cookie)
{
	return fflush(cookie) ? -1 : 0;
}

FILE *ap_escape_stream(FILE *out)
{
	cookie_io_functions_t io = {
		.write = stream_write,
		.close = stream_close,
	};

	return fopencookie(out, "w", io);
}
