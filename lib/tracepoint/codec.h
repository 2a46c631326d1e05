/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AP_TAG_TRACEPOINT frames (man/aperture-file.5): a tracepoint's
 * description (its name, fields and filter), written once before its
 * first event, and its events, each with the raw trace record that the
 * description's fields decode.
 */
#ifndef APERTURE_EV_TRACEPOINT_H
#define APERTURE_EV_TRACEPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "format/buf.h"
#include "tracepoint/tpformat.h"
#include "tracepoint.h"

struct ap_recorder;
struct ap_frame;
struct ap_evdec;
struct ap_evrec;

/* the frame's first u32 */
#define AP_TP_FRAME_DESC	1
#define AP_TP_FRAME_EVENT	2

#define AP_TP_FILTER_MAX	512

/* one tracepoint of the recording, idx its events' */
struct ap_tp_desc {
	uint32_t idx;
	char filter[AP_TP_FILTER_MAX];	/* record --filter; "": none */
	struct ap_tp_format fmt;
};

struct ap_tp_event {
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	uint32_t cpu;
	uint32_t idx;			/* its ap_tp_desc */
	uint32_t stack_id;		/* 0: none */
	uint32_t len;
	const uint8_t *data;		/* the raw record; into the payload */
};

void ap_tp_desc__encode(const struct ap_tp_desc *d, struct ap_buf *b);
void ap_tp_event__encode(const struct ap_tp_event *e, struct ap_buf *b);
/* the frame's kind (AP_TP_FRAME_*), or -EBADMSG */
int ap_tp_frame__kind(const void *p, size_t len);
int ap_tp_desc__decode(const void *p, size_t len, struct ap_tp_desc *d);
int ap_tp_event__decode(const void *p, size_t len, struct ap_tp_event *e);

/* the descriptions read so far, by idx */
struct ap_tp_table {
	struct ap_tp_desc *d[AP_TP_MAX];
};
/* a description frame into t (a later one of the same idx replaces it);
 * 0, -EBADMSG or -ENOMEM */
int ap_tp_table__add(struct ap_tp_table *t, const void *p, size_t len);
/* NULL: none of that idx */
const struct ap_tp_desc *ap_tp_table__get(const struct ap_tp_table *t,
					  uint32_t idx);
void ap_tp_table__free(struct ap_tp_table *t);

/* user-space record: the sensor hands each tracepoint's description to
 * the recorder before the tracepoint is attached */
#define AP_REC_TP_DESC		0x120
struct ap_rec_tp_desc {
	struct ap_ev_hdr hdr;		/* hdr.type = AP_REC_TP_DESC */
	struct ap_tp_desc d;
};

/* recorder handlers: AP_REC_TP_DESC, AP_EV_TP (struct ap_ev_tp) */
int ap_rec_tp_desc(struct ap_recorder *r, const void *data, size_t size);
int ap_rec_tp(struct ap_recorder *r, const void *data, size_t size);

/* one of its frames as a generic record for script and the timeline */
int ap_tracepoint__evdec(struct ap_evdec *d, const struct ap_frame *f,
			 struct ap_evrec *r);

#endif /* APERTURE_EV_TRACEPOINT_H */
