/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Little-endian encoding of record file payloads: a growable output buffer
 * and a bounds-checked input cursor.  Every frame encoder and decoder in
 * lib/ is written with these, so the byte layout never depends on the
 * compiler's struct layout or the host's byte order.
 */
#ifndef APERTURE_CODEC_H
#define APERTURE_CODEC_H

#include <stddef.h>
#include <stdint.h>

struct ap_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	int err;		/* -ENOMEM once an append failed; sticky */
};

void ap_buf__init(struct ap_buf *b);
void ap_buf__free(struct ap_buf *b);
void ap_buf__reset(struct ap_buf *b);
/* make room for n more bytes; returns a pointer to them or NULL (b->err set) */
uint8_t *ap_buf__reserve(struct ap_buf *b, size_t n);
void ap_buf__put(struct ap_buf *b, const void *p, size_t n);
void ap_buf__u8(struct ap_buf *b, uint8_t v);
void ap_buf__u16(struct ap_buf *b, uint16_t v);
void ap_buf__u32(struct ap_buf *b, uint32_t v);
void ap_buf__u64(struct ap_buf *b, uint64_t v);
/* u16 length, then the bytes (no terminator); NULL is stored as "" */
void ap_buf__str(struct ap_buf *b, const char *s);
/* the same from a char array of size bytes, which may lack its NUL */
void ap_buf__strn(struct ap_buf *b, const char *s, size_t size);

/*
 * A read cursor over a payload.  Reading past the end sets err (sticky) and
 * yields zeros, so a decoder checks once at the end instead of per field.
 */
struct ap_cur {
	const uint8_t *p;
	size_t len;
	size_t off;
	int err;		/* -EBADMSG once a read ran past the end */
};

void ap_cur__init(struct ap_cur *c, const void *p, size_t len);
uint8_t ap_cur__u8(struct ap_cur *c);
uint16_t ap_cur__u16(struct ap_cur *c);
uint32_t ap_cur__u32(struct ap_cur *c);
uint64_t ap_cur__u64(struct ap_cur *c);
/* pointer to the next n bytes, or NULL (err set) */
const uint8_t *ap_cur__bytes(struct ap_cur *c, size_t n);
/* copies a u16-length string into buf (always NUL-terminated, truncated to
 * size - 1); returns the stored length */
size_t ap_cur__str(struct ap_cur *c, char *buf, size_t size);
size_t ap_cur__left(const struct ap_cur *c);

static inline void ap_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static inline void ap_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline void ap_put_le64(uint8_t *p, uint64_t v)
{
	ap_put_le32(p, (uint32_t)v);
	ap_put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t ap_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ap_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t ap_get_le64(const uint8_t *p)
{
	return (uint64_t)ap_get_le32(p) | (uint64_t)ap_get_le32(p + 4) << 32;
}

#endif /* APERTURE_CODEC_H */
