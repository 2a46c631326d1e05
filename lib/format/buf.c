// SPDX-License-Identifier: GPL-2.0
#include "format/buf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ap_buf__init(struct ap_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void ap_buf__free(struct ap_buf *b)
{
	if (!b)
		return;
	free(b->data);
	ap_buf__init(b);
}

void ap_buf__reset(struct ap_buf *b)
{
	b->len = 0;
	b->err = 0;
}

uint8_t *ap_buf__reserve(struct ap_buf *b, size_t n)
{
	uint8_t *p;

	if (b->err)
		return NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *d;

		while (cap < b->len + n)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->data = d;
		b->cap = cap;
	}
	p = b->data + b->len;
	b->len += n;
	return p;
}

void ap_buf__put(struct ap_buf *b, const void *p, size_t n)
{
	uint8_t *d = ap_buf__reserve(b, n);

	if (d && n)
		memcpy(d, p, n);
}

void ap_buf__u8(struct ap_buf *b, uint8_t v)
{
	uint8_t *d = ap_buf__reserve(b, 1);

	if (d)
		*d = v;
}

void ap_buf__u16(struct ap_buf *b, uint16_t v)
{
	uint8_t *d = ap_buf__reserve(b, 2);

	if (d)
		ap_put_le16(d, v);
}

void ap_buf__u32(struct ap_buf *b, uint32_t v)
{
	uint8_t *d = ap_buf__reserve(b, 4);

	if (d)
		ap_put_le32(d, v);
}

void ap_buf__u64(struct ap_buf *b, uint64_t v)
{
	uint8_t *d = ap_buf__reserve(b, 8);

	if (d)
		ap_put_le64(d, v);
}

void ap_buf__str(struct ap_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > UINT16_MAX)
		n = UINT16_MAX;
	ap_buf__u16(b, (uint16_t)n);
	ap_buf__put(b, s, n);
}

void ap_buf__strn(struct ap_buf *b, const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	if (n > UINT16_MAX)
		n = UINT16_MAX;
	ap_buf__u16(b, (uint16_t)n);
	ap_buf__put(b, s, n);
}

void ap_cur__init(struct ap_cur *c, const void *p, size_t len)
{
	c->p = p;
	c->len = len;
	c->off = 0;
	c->err = 0;
}

const uint8_t *ap_cur__bytes(struct ap_cur *c, size_t n)
{
	const uint8_t *p;

	if (c->err || n > c->len - c->off) {
		c->err = -EBADMSG;
		return NULL;
	}
	p = c->p + c->off;
	c->off += n;
	return p;
}

uint8_t ap_cur__u8(struct ap_cur *c)
{
	const uint8_t *p = ap_cur__bytes(c, 1);

	return p ? *p : 0;
}

uint16_t ap_cur__u16(struct ap_cur *c)
{
	const uint8_t *p = ap_cur__bytes(c, 2);

	return p ? ap_get_le16(p) : 0;
}

uint32_t ap_cur__u32(struct ap_cur *c)
{
	const uint8_t *p = ap_cur__bytes(c, 4);

	return p ? ap_get_le32(p) : 0;
}

uint64_t ap_cur__u64(struct ap_cur *c)
{
	const uint8_t *p = ap_cur__bytes(c, 8);

	return p ? ap_get_le64(p) : 0;
}

size_t ap_cur__str(struct ap_cur *c, char *buf, size_t size)
{
	size_t n = ap_cur__u16(c), k;
	const uint8_t *p = ap_cur__bytes(c, n);

	if (!size)
		return n;
	k = p ? (n < size - 1 ? n : size - 1) : 0;
	if (k)
		memcpy(buf, p, k);
	buf[k] = '\0';
	return n;
}

size_t ap_cur__left(const struct ap_cur *c)
{
	return c->err ? 0 : c->len - c->off;
}
