// SPDX-License-Identifier: GPL-2.0
/*
 * AP_TAG_TRACEPOINT frames.  Payload (little-endian), man/aperture-file.5:
 *
 *   u32 kind = 1 (description): u32 idx, str name ("cat:name"), u32 id,
 *	str filter, u32 nr_fields, nr_fields x (str name, str type,
 *	u32 offset, u32 size, u32 flags)
 *   u32 kind = 2 (event): u64 ts, u32 pid, u32 tid, u32 cpu, u32 idx,
 *	u32 stack_id, u32 len, len bytes of the raw trace record
 *
 * A str is a u16 length and its bytes.
 */
#include "tracepoint/codec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "format/reader.h"
#include "record/recorder.h"
#include "report/evdump.h"

void ap_tp_desc__encode(const struct ap_tp_desc *d, struct ap_buf *b)
{
	const struct ap_tp_format *f = &d->fmt;
	size_t mark;
	uint32_t i;

	ap_frame__begin(b, AP_TAG_TRACEPOINT, &mark);
	ap_buf__u32(b, AP_TP_FRAME_DESC);
	ap_buf__u32(b, d->idx);
	ap_buf__str(b, f->name);
	ap_buf__u32(b, f->id);
	ap_buf__str(b, d->filter);
	ap_buf__u32(b, f->nr_fields);
	for (i = 0; i < f->nr_fields; i++) {
		ap_buf__str(b, f->fields[i].name);
		ap_buf__str(b, f->fields[i].type);
		ap_buf__u32(b, f->fields[i].offset);
		ap_buf__u32(b, f->fields[i].size);
		ap_buf__u32(b, f->fields[i].flags);
	}
	ap_frame__end(b, mark);
}

void ap_tp_event__encode(const struct ap_tp_event *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_TRACEPOINT, &mark);
	ap_buf__u32(b, AP_TP_FRAME_EVENT);
	ap_event_head__encode(b, e->ts, e->pid, e->tid);
	ap_buf__u32(b, e->cpu);
	ap_buf__u32(b, e->idx);
	ap_buf__u32(b, e->stack_id);
	ap_buf__u32(b, e->len);
	ap_buf__put(b, e->data, e->len);
	ap_frame__end(b, mark);
}

int ap_tp_frame__kind(const void *p, size_t len)
{
	struct ap_cur c;
	uint32_t kind;

	ap_cur__init(&c, p, len);
	kind = ap_cur__u32(&c);
	return c.err ? -EBADMSG : (int)(kind & 0xffff);
}

int ap_tp_desc__decode(const void *p, size_t len, struct ap_tp_desc *d)
{
	struct ap_tp_format *f = &d->fmt;
	struct ap_cur c;
	uint32_t i, n;

	memset(d, 0, sizeof(*d));
	ap_cur__init(&c, p, len);
	if (ap_cur__u32(&c) != AP_TP_FRAME_DESC)
		return -EBADMSG;
	d->idx = ap_cur__u32(&c);
	ap_cur__str(&c, f->name, sizeof(f->name));
	f->id = ap_cur__u32(&c);
	ap_cur__str(&c, d->filter, sizeof(d->filter));
	n = ap_cur__u32(&c);
	for (i = 0; i < n && !c.err; i++) {
		struct ap_tp_field fl;

		memset(&fl, 0, sizeof(fl));
		ap_cur__str(&c, fl.name, sizeof(fl.name));
		ap_cur__str(&c, fl.type, sizeof(fl.type));
		fl.offset = ap_cur__u32(&c);
		fl.size = ap_cur__u32(&c);
		fl.flags = ap_cur__u32(&c);
		if (f->nr_fields < AP_TP_FIELDS_MAX)
			f->fields[f->nr_fields++] = fl;
	}
	return c.err ? -EBADMSG : 0;
}

int ap_tp_event__decode(const void *p, size_t len, struct ap_tp_event *e)
{
	struct ap_cur c;

	memset(e, 0, sizeof(*e));
	ap_cur__init(&c, p, len);
	if (ap_cur__u32(&c) != AP_TP_FRAME_EVENT)
		return -EBADMSG;
	ap_event_head__decode(&c, &e->ts, &e->pid, &e->tid);
	e->cpu = ap_cur__u32(&c);
	e->idx = ap_cur__u32(&c);
	e->stack_id = ap_cur__u32(&c);
	e->len = ap_cur__u32(&c);
	e->data = ap_cur__bytes(&c, e->len);
	return c.err || (e->len && !e->data) ? -EBADMSG : 0;
}

int ap_tp_table__add(struct ap_tp_table *t, const void *p, size_t len)
{
	struct ap_tp_desc *d = malloc(sizeof(*d));

	if (!d)
		return -ENOMEM;
	if (ap_tp_desc__decode(p, len, d) || d->idx >= AP_TP_MAX) {
		free(d);
		return -EBADMSG;
	}
	free(t->d[d->idx]);
	t->d[d->idx] = d;
	return 0;
}

const struct ap_tp_desc *ap_tp_table__get(const struct ap_tp_table *t,
					  uint32_t idx)
{
	return idx < AP_TP_MAX ? t->d[idx] : NULL;
}

void ap_tp_table__free(struct ap_tp_table *t)
{
	size_t i;

	for (i = 0; t && i < AP_TP_MAX; i++) {
		free(t->d[i]);
		t->d[i] = NULL;
	}
}

/* the recorder's: the descriptions and their compiled filters */
struct rec_tp {
	struct ap_tp_desc *d[AP_TP_MAX];
	struct ap_tp_filter *flt[AP_TP_MAX];
};

static void rec_tp_free(void *p)
{
	struct rec_tp *t = p;
	size_t i;

	for (i = 0; t && i < AP_TP_MAX; i++) {
		free(t->d[i]);
		ap_tp_filter__free(t->flt[i]);
	}
	free(t);
}

/* a new window's file has the descriptions again */
static void rec_tp_rewrite(struct ap_recorder *r, void *p)
{
	struct rec_tp *t = p;
	int i;

	for (i = 0; i < AP_TP_MAX; i++)
		if (t->d[i])
			ap_tp_desc__encode(t->d[i], ap_recorder__buf(r));
}

static struct rec_tp *rec_state(struct ap_recorder *r)
{
	void **slot = ap_recorder__priv(r, AP_TAG_TRACEPOINT, rec_tp_free);

	if (slot && !*slot) {
		*slot = calloc(1, sizeof(struct rec_tp));
		ap_recorder__set_rewrite(r, AP_TAG_TRACEPOINT, rec_tp_rewrite);
	}
	return slot ? *slot : NULL;
}

int ap_rec_tp_desc(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_rec_tp_desc *rd = data;
	struct rec_tp *t = rec_state(r);
	struct ap_tp_filter *flt = NULL;
	struct ap_tp_desc *d;
	char why[256];
	uint32_t i;

	if (size < sizeof(*rd) || rd->d.idx >= AP_TP_MAX)
		return 0;
	if (!t)
		return -ENOMEM;
	i = rd->d.idx;
	/* the command line checked it: it compiles */
	if (rd->d.filter[0] &&
	    ap_tp_filter__compile(rd->d.filter, &rd->d.fmt, &flt, why,
				  sizeof(why)))
		return -EINVAL;
	d = malloc(sizeof(*d));
	if (!d) {
		ap_tp_filter__free(flt);
		return -ENOMEM;
	}
	*d = rd->d;
	free(t->d[i]);
	ap_tp_filter__free(t->flt[i]);
	t->d[i] = d;
	t->flt[i] = flt;
	ap_tp_desc__encode(d, ap_recorder__buf(r));
	return ap_recorder__buf(r)->err;
}

int ap_rec_tp(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_tp *m = data;
	struct rec_tp *t = rec_state(r);
	const struct ap_tp_desc *d;
	struct ap_tp_event e;
	size_t len;
	int err;

	if (size < offsetof(struct ap_ev_tp, st.ips) || !t)
		return t ? 0 : -ENOMEM;
	d = m->idx < AP_TP_MAX ? t->d[m->idx] : NULL;
	if (!d)
		return 0;
	len = m->size < AP_TP_DATA_MAX ? m->size : AP_TP_DATA_MAX;
	/* what the record holds: the bytes copied past its end are the
	 * buffer's earlier contents */
	len = ap_tp_format__extent(&d->fmt, m->data, len);
	if (!ap_tp_filter__match(t->flt[m->idx], &d->fmt, m->data, len))
		return 0;
	err = ap_recorder__touch_ev(r, &m->hdr, m->comm, NULL);
	if (err)
		return err;
	memset(&e, 0, sizeof(e));
	e.ts = m->hdr.ts;
	e.pid = m->hdr.pid;
	e.tid = m->hdr.tid;
	e.cpu = m->hdr.cpu;
	e.idx = m->idx;
	e.len = (uint32_t)len;
	e.data = m->data;
	if (ap_stacks__whole(data, size, offsetof(struct ap_ev_tp, st)))
		e.stack_id = ap_recorder__stack(r, m->hdr.pid, &m->st);
	ap_tp_event__encode(&e, ap_recorder__buf(r));
	ap_recorder__count(r, AP_TAG_TRACEPOINT, 1);
	return ap_recorder__buf(r)->err;
}

/* the decoder's descriptions: the file's, as read so far */
static void dec_free(void *p)
{
	ap_tp_table__free(p);
	free(p);
}

int ap_tracepoint__evdec(struct ap_evdec *d, const struct ap_frame *f,
			 struct ap_evrec *r)
{
	void **slot = ap_evdec__priv(d, AP_TAG_TRACEPOINT, dec_free);
	const struct ap_tp_desc *desc;
	struct ap_tp_table *t;
	struct ap_tp_event e;
	uint32_t i;

	if (!slot)
		return -ENOMEM;
	if (!*slot)
		*slot = calloc(1, sizeof(struct ap_tp_table));
	t = *slot;
	if (!t)
		return -ENOMEM;
	switch (ap_tp_frame__kind(f->payload, f->len)) {
	case AP_TP_FRAME_DESC: {
		int err = ap_tp_table__add(t, f->payload, f->len);

		return err ? err : -ENOMSG;
	}
	case AP_TP_FRAME_EVENT:
		break;
	case -EBADMSG:
		return -EBADMSG;
	default:
		return -ENOMSG;		/* a newer kind of frame */
	}
	if (ap_tp_event__decode(f->payload, f->len, &e))
		return -EBADMSG;
	desc = ap_tp_table__get(t, e.idx);
	if (!desc)
		return -EBADMSG;
	snprintf(r->name, sizeof(r->name), "%s", desc->fmt.name);
	r->ts = e.ts;
	r->pid = e.pid;
	r->tid = e.tid;
	r->cpu = e.cpu;
	r->stack_id = e.stack_id;
	for (i = 0; i < desc->fmt.nr_fields; i++) {
		const struct ap_tp_field *fl = &desc->fmt.fields[i];
		char val[96];
		int num = ap_tp_field__format(fl, e.data, e.len, val,
					      sizeof(val));

		ap_evrec__field(r, fl->name, num, "%s", val);
	}
	return 0;
}
