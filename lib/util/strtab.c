// SPDX-License-Identifier: GPL-2.0
#include "util/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/hmap.h"

struct str {
	struct str *next;		/* same hash bucket */
	char s[];
};

struct ap_strtab {
	struct ap_hmap by_hash;		/* hash -> struct str * */
	struct str **all;
	size_t nr, cap;
	int escape;			/* control characters as \xNN */
};

struct ap_strtab *ap_strtab__new(void)
{
	struct ap_strtab *t = calloc(1, sizeof(*t));

	if (t)
		ap_hmap__init(&t->by_hash);
	return t;
}

void ap_strtab__free(struct ap_strtab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr; i++)
		free(t->all[i]);
	free(t->all);
	ap_hmap__free(&t->by_hash);
	free(t);
}

void ap_strtab__set_escape(struct ap_strtab *t, int on)
{
	if (t)
		t->escape = on;
}

static const char *intern(struct ap_strtab *t, const char *s, size_t n);

const char *ap_strtab__intern(struct ap_strtab *t, const char *s, long len)
{
	size_t n = len < 0 ? strlen(s) : (size_t)len, i;
	char src[512], out[4 * sizeof(src)], *dup, *esc;
	const char *ret;

	if (!t->escape)
		return intern(t, s, n);
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			break;
	if (i == n)
		return intern(t, s, n);
	/* a name from someone else, bound for a terminal or a folded line;
	 * a short one escaped on the stack (every row key of the CPU
	 * table, whose fields it separates with a control character) */
	if (n < sizeof(src)) {
		memcpy(src, s, n);
		src[n] = '\0';
		ap_escape(out, sizeof(out), src, 0);
		return intern(t, out, strlen(out));
	}
	dup = strndup(s, n);
	esc = malloc(4 * n + 1);
	ret = NULL;
	if (dup && esc) {
		ap_escape(esc, 4 * n + 1, dup, 0);
		ret = intern(t, esc, strlen(esc));
	}
	free(dup);
	free(esc);
	return ret;
}

static const char *intern(struct ap_strtab *t, const char *s, size_t n)
{
	uint64_t h = ap_hash_bytes(s, n, 7);
	struct str *e, *head;
	uint64_t *slot;
	int fresh;

	if (h == AP_HMAP_EMPTY)
		h = 0;
	slot = ap_hmap__upsert(&t->by_hash, h, &fresh);
	if (!slot)
		return NULL;
	head = fresh ? NULL : (struct str *)(uintptr_t)*slot;
	for (e = head; e; e = e->next)
		if (!strncmp(e->s, s, n) && e->s[n] == '\0')
			return e->s;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct str **v = realloc(t->all, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->all = v;
		t->cap = cap;
	}
	e = malloc(sizeof(*e) + n + 1);
	if (!e)
		return NULL;
	memcpy(e->s, s, n);
	e->s[n] = '\0';
	e->next = head;
	*slot = (uintptr_t)e;
	t->all[t->nr++] = e;
	return e->s;
}

size_t ap_strtab__count(const struct ap_strtab *t)
{
	return t->nr;
}
