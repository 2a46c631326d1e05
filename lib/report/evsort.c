// SPDX-License-Identifier: GPL-2.0
#include "report/evsort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

#define DEFAULT_BUDGET	(64u << 20)

struct ent {
	uint64_t ts;
	uint64_t seq;			/* arrival order: ties keep it */
	size_t off, len;		/* in the arena */
};

/* a run on disk: records as (ts, seq, len, bytes), in order */
struct run {
	FILE *f;
	struct ent head;		/* the next record; off unused */
	char *buf;			/* its bytes */
	size_t cap;
};

struct ap_evsort {
	size_t budget;
	uint64_t seq;
	struct ent *ents;
	size_t nr, cap;
	char *arena;
	size_t used, arena_cap;
	struct run *runs;
	size_t nr_runs, cap_runs;
};

struct ap_evsort *ap_evsort__new(size_t budget)
{
	struct ap_evsort *s = calloc(1, sizeof(*s));

	if (s)
		s->budget = budget ? budget : DEFAULT_BUDGET;
	return s;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* the records held, sorted, into a new temporary file */
static int spill(struct ap_evsort *s)
{
	struct run *r;
	size_t i;
	FILE *f;

	if (ap_grow((void **)&s->runs, &s->cap_runs, s->nr_runs,
		    sizeof(*s->runs), 8))
		return -ENOMEM;
	f = tmpfile();
	if (!f)
		return -errno;
	r = &s->runs[s->nr_runs++];
	memset(r, 0, sizeof(*r));
	r->f = f;
	ap_sort(s->ents, s->nr, sizeof(*s->ents), cmp_ent);
	for (i = 0; i < s->nr; i++) {
		const struct ent *e = &s->ents[i];
		uint64_t hdr[3] = { e->ts, e->seq, e->len };

		if (fwrite(hdr, sizeof(hdr), 1, f) != 1 ||
		    fwrite(s->arena + e->off, 1, e->len, f) != e->len)
			return -EIO;
	}
	if (fflush(f) || fseek(f, 0, SEEK_SET))
		return -EIO;
	s->nr = 0;
	s->used = 0;
	return 0;
}

int ap_evsort__add(struct ap_evsort *s, uint64_t ts, const void *p,
		   size_t len)
{
	struct ent *e;
	int err;

	if (s->nr && s->used + len + (s->nr + 1) * sizeof(*e) > s->budget) {
		err = spill(s);
		if (err)
			return err;
	}
	while (s->used + len > s->arena_cap) {
		size_t cap = s->arena_cap ? 2 * s->arena_cap : 1 << 16;
		char *a;

		while (cap < s->used + len)
			cap *= 2;
		a = realloc(s->arena, cap);
		if (!a)
			return -ENOMEM;
		s->arena = a;
		s->arena_cap = cap;
	}
	if (ap_grow((void **)&s->ents, &s->cap, s->nr, sizeof(*s->ents),
		    1024))
		return -ENOMEM;
	e = &s->ents[s->nr++];
	*e = (struct ent){ ts, s->seq++, s->used, len };
	memcpy(s->arena + s->used, p, len);
	s->used += len;
	return 0;
}

/* the run's next record into its head; 1, 0 at its end, or -errno */
static int run_next(struct run *r)
{
	uint64_t hdr[3];

	if (fread(hdr, sizeof(hdr), 1, r->f) != 1)
		return ferror(r->f) ? -EIO : 0;
	if (hdr[2] > r->cap) {
		char *b = realloc(r->buf, hdr[2]);

		if (!b)
			return -ENOMEM;
		r->buf = b;
		r->cap = hdr[2];
	}
	r->head = (struct ent){ hdr[0], hdr[1], 0, hdr[2] };
	if (fread(r->buf, 1, hdr[2], r->f) != hdr[2])
		return -EIO;
	return 1;
}

/* heap of run indices by their heads, the earliest at 0 */
static int run_less(const struct ap_evsort *s, size_t a, size_t b)
{
	return cmp_ent(&s->runs[a].head, &s->runs[b].head) < 0;
}

static void sift_down(const struct ap_evsort *s, size_t *heap, size_t n,
		      size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, t;

		if (l < n && run_less(s, heap[l], heap[m]))
			m = l;
		if (l + 1 < n && run_less(s, heap[l + 1], heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

static int merge(struct ap_evsort *s, FILE *out)
{
	size_t *heap = malloc(s->nr_runs * sizeof(*heap)), n = 0, i;
	int err = 0;

	if (!heap)
		return -ENOMEM;
	for (i = 0; i < s->nr_runs && !err; i++) {
		err = run_next(&s->runs[i]);
		if (err > 0) {
			heap[n++] = i;
			err = 0;
		}
	}
	for (i = n / 2; i-- > 0;)
		sift_down(s, heap, n, i);
	while (!err && n) {
		struct run *r = &s->runs[heap[0]];

		if (fwrite(r->buf, 1, r->head.len, out) != r->head.len) {
			err = -EIO;
			break;
		}
		err = run_next(r);
		if (err == 0)
			heap[0] = heap[--n];
		if (err >= 0) {
			err = 0;
			sift_down(s, heap, n, 0);
		}
	}
	free(heap);
	return err;
}

int ap_evsort__write(struct ap_evsort *s, FILE *out)
{
	size_t i;
	int err;

	if (!s->nr_runs) {
		ap_sort(s->ents, s->nr, sizeof(*s->ents), cmp_ent);
		for (i = 0; i < s->nr; i++)
			if (fwrite(s->arena + s->ents[i].off, 1,
				   s->ents[i].len, out) != s->ents[i].len)
				return -EIO;
		s->nr = s->used = 0;
		return 0;
	}
	if (s->nr) {
		err = spill(s);
		if (err)
			return err;
	}
	return merge(s, out);
}

unsigned ap_evsort__runs(const struct ap_evsort *s)
{
	return (unsigned)s->nr_runs;
}

void ap_evsort__free(struct ap_evsort *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_runs; i++) {
		fclose(s->runs[i].f);
		free(s->runs[i].buf);
	}
	free(s->runs);
	free(s->ents);
	free(s->arena);
	free(s);
}
