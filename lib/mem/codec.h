/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AP_TAG_MEM frame: one memory access sample (AMD IBS op or a page
 * fault), or a change of the sampling period after samples were lost.
 * man/aperture-file.5 documents the bytes.
 */
#ifndef APERTURE_EV_MEM_H
#define APERTURE_EV_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "format/buf.h"

struct ap_recorder;

/* ap_mem_event.kind, .source, .access and .flags take the values of
 * bpf/mem.h: AP_MEM_KIND_*, AP_MEM_SRC_*, AP_MEM_ACC_*, AP_MEM_F_* */
struct ap_mem_event {
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	uint32_t cpu;
	uint32_t kind;
	uint32_t source;
	uint32_t access;
	uint64_t ip;
	uint64_t addr;
	uint64_t data_src;		/* perf_mem_data_src; 0: unknown */
	uint64_t period;		/* weight; PERIOD: the new period */
	uint64_t lost;			/* PERIOD: lost so far, cumulative */
	uint32_t stack_id;		/* 0: none */
	uint32_t flags;
	uint32_t latency;		/* cycles; 0: unknown */
	uint32_t width;			/* bytes; 0: unknown */
};

void ap_mem_event__encode(const struct ap_mem_event *e, struct ap_buf *b);
int ap_mem_event__decode(const void *p, size_t len, struct ap_mem_event *e);
/* "ibs_op", "page-fault", "?" */
const char *ap_mem_source__name(uint32_t source);

/* recorder handler for AP_EV_MEM records (struct ap_ev_mem) */
int ap_rec_mem(struct ap_recorder *r, const void *data, size_t size);

struct ap_frame;
/* one of its frames as a generic record for script and the timeline */
struct ap_evdec;
struct ap_evrec;
int ap_mem__evdec(struct ap_evdec *d, const struct ap_frame *f,
		  struct ap_evrec *r);

#endif /* APERTURE_EV_MEM_H */
