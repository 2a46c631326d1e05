// SPDX-License-Identifier: GPL-2.0
#include "util/escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "util/utf8.h"

static int is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int ap_escape_clean(const char *s, int flags)
{
	const char *p;

	for (p = s; *p; p++)
		if (is_ctl((unsigned char)*p) ||
		    ((flags & AP_ESC_FOLDED) && *p == ';'))
			return 0;
	return ap_utf8_valid(s);
}

size_t ap_escape(char *dst, size_t len, const char *src, int flags)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0, step;
	char esc[5];

	for (; *src; src += step) {
		unsigned char c = (unsigned char)*src;
		size_t seq, k;
		const char *add = esc;

		/* most bytes of most names: printable ASCII, as it is */
		if (c >= 0x20 && c < 0x7f &&
		    !((flags & AP_ESC_FOLDED) && c == ';')) {
			if (n + 1 < len)
				dst[n] = (char)c;
			n++;
			step = 1;
			continue;
		}
		seq = ap_utf8_seq(src);
		step = seq > 1 ? seq : 1;
		if (!seq) {
			/* a byte that starts no UTF-8 character: U+FFFD, as
			 * the JSON, XML and pprof outputs write it */
			add = AP_UTF8_REPLACEMENT;
		} else if (seq > 1) {
			memcpy(esc, src, seq);
			esc[seq] = '\0';
		} else if (is_ctl(c)) {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 0xf];
			esc[4] = '\0';
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

/* the stream's state: where it writes, and the start of a character a
 * write ended inside, kept for the next one */
struct esc_stream {
	FILE *out;
	char pend[4];
	size_t npend;
};

/* the bytes of a whole line or buffer: control characters but newline
 * and tab as \xNN, a byte that starts no UTF-8 character as U+FFFD */
static int stream_put(FILE *out, const char *buf, size_t size)
{
	size_t i = 0, from = 0, seq;

	while (i < size) {
		unsigned char c = (unsigned char)buf[i];

		seq = c < 0x80 ? 1 : ap_utf8_seq(buf + i);
		if (seq > 1 || (seq == 1 && (!is_ctl(c) || c == '\n' ||
					     c == '\t'))) {
			i += seq;
			continue;
		}
		if (i > from && fwrite(buf + from, 1, i - from, out) != i - from)
			return -1;
		if ((seq ? fprintf(out, "\\x%02x", c) :
			   fputs(AP_UTF8_REPLACEMENT, out)) < 0)
			return -1;
		from = ++i;
	}
	if (size > from && fwrite(buf + from, 1, size - from, out) != size - from)
		return -1;
	return 0;
}

/* how many bytes at the end of buf begin a character that may yet be
 * whole with what comes next (0 to 3) */
static size_t cut_tail(const char *buf, size_t size)
{
	size_t k, back;

	for (back = 1; back <= 3 && back <= size; back++) {
		unsigned char c = (unsigned char)buf[size - back];

		if ((c & 0xc0) == 0x80)
			continue;		/* a continuation byte */
		if (c < 0xc2 || c > 0xf4)
			return 0;
		k = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		return k > back ? back : 0;
	}
	return 0;
}

/* the length a character that starts with byte c has; 1 for one that
 * starts none */
static size_t seq_len(unsigned char c)
{
	return c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
	       c >= 0xf0 && c <= 0xf4 ? 4 : 1;
}

static ssize_t stream_write(void *cookie, const char *buf, size_t size)
{
	struct esc_stream *e = cookie;
	size_t asked = size, keep;

	/* a character the last write ended inside: completed from this
	 * one's first bytes, or written as it is when they do not go on */
	while (e->npend && size && e->npend < seq_len(e->pend[0]) &&
	       ((unsigned char)*buf & 0xc0) == 0x80) {
		e->pend[e->npend++] = *buf++;
		size--;
	}
	if (e->npend && (e->npend == seq_len(e->pend[0]) || size)) {
		if (stream_put(e->out, e->pend, e->npend))
			return -1;
		e->npend = 0;
	}
	keep = cut_tail(buf, size);
	if (stream_put(e->out, buf, size - keep))
		return -1;
	memcpy(e->pend + e->npend, buf + size - keep, keep);
	e->npend += keep;
	return (ssize_t)asked;
}

static int stream_close(void *cookie)
{
	struct esc_stream *e = cookie;
	int err = e->npend ? stream_put(e->out, e->pend, e->npend) : 0;

	err |= fflush(e->out) ? -1 : 0;
	free(e);
	return err ? -1 : 0;
}

FILE *ap_escape_stream(FILE *out)
{
	cookie_io_functions_t io = {
		.write = stream_write,
		.close = stream_close,
	};
	struct esc_stream *e = calloc(1, sizeof(*e));
	FILE *f;

	if (!e)
		return NULL;
	e->out = out;
	f = fopencookie(e, "w", io);
	if (!f)
		free(e);
	return f;
}
