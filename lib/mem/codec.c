// SPDX-License-Identifier: GPL-2.0
#include "mem/codec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>

#include "format/format.h"
#include "mem.h"
#include "record/perf_decode.h"
#include "record/recorder.h"
#include "format/reader.h"
#include "report/evdump.h"

void ap_mem_event__encode(const struct ap_mem_event *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_MEM, &mark);
	ap_buf__u64(b, e->ts);
	ap_buf__u32(b, e->pid);
	ap_buf__u32(b, e->tid);
	ap_buf__u32(b, e->cpu);
	ap_buf__u32(b, e->kind);
	ap_buf__u32(b, e->source);
	ap_buf__u32(b, e->access);
	ap_buf__u64(b, e->ip);
	ap_buf__u64(b, e->addr);
	ap_buf__u64(b, e->data_src);
	ap_buf__u64(b, e->period);
	ap_buf__u64(b, e->lost);
	ap_buf__u32(b, e->stack_id);
	ap_buf__u32(b, e->flags);
	ap_buf__u32(b, e->latency);
	ap_buf__u32(b, e->width);
	ap_frame__end(b, mark);
}

int ap_mem_event__decode(const void *p, size_t len, struct ap_mem_event *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->ts = ap_cur__u64(&c);
	e->pid = ap_cur__u32(&c);
	e->tid = ap_cur__u32(&c);
	e->cpu = ap_cur__u32(&c);
	e->kind = ap_cur__u32(&c);
	e->source = ap_cur__u32(&c);
	e->access = ap_cur__u32(&c);
	e->ip = ap_cur__u64(&c);
	e->addr = ap_cur__u64(&c);
	e->data_src = ap_cur__u64(&c);
	e->period = ap_cur__u64(&c);
	e->lost = ap_cur__u64(&c);
	e->stack_id = ap_cur__u32(&c);
	e->flags = ap_cur__u32(&c);
	e->latency = ap_cur__u32(&c);
	e->width = ap_cur__u32(&c);
	return c.err;
}

const char *ap_mem_source__name(uint32_t source)
{
	switch (source) {
	case AP_MEM_SRC_IBS_OP:
		return "ibs_op";
	case AP_MEM_SRC_PAGE_FAULT:
		return "page-fault";
	}
	return "?";
}

/*
 * IBS: the op's registers, sent raw by the BPF program, decoded here;
 * the kernel's own data source (6.1+) knows more families
 */
static void ibs_fields(const struct ap_ev_mem *m, struct ap_mem_event *e)
{
	struct ap_ev_mem d;
	struct ap_ibs_op op;
	union perf_mem_data_src k = { .val = m->data_src };

	if (ap_ibs_op__parse(m->raw, m->raw_size < sizeof(m->raw) ?
			     m->raw_size : sizeof(m->raw), &op))
		return;
	memcpy(&d, m, offsetof(struct ap_ev_mem, st));
	ap_ibs_op__decode(&op, &d);
	if (m->data_src && k.mem_op != PERF_MEM_OP_NA)
		d.data_src = m->data_src;
	e->access = d.access;
	e->addr = d.addr;
	e->data_src = d.data_src;
	e->flags = d.flags;
	e->latency = d.latency;
	e->width = d.width;
}

int ap_rec_mem(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_mem *m = data;
	struct ap_mem_event e;
	char comm[AP_COMM_MAX];
	int err;

	/* samples come cut after their last frame */
	if (!ap_stacks__whole(m, size, offsetof(struct ap_ev_mem, st)))
		return 0;
	memset(&e, 0, sizeof(e));
	e.ts = m->hdr.ts;
	e.kind = m->kind;
	e.source = m->source;
	e.period = m->period;
	e.lost = m->lost;
	if (m->kind == AP_MEM_KIND_PERIOD) {
		/* the losses themselves are the BPF ring buffer's drops,
		 * in the file's drop counters with every sensor's */
		ap_mem_event__encode(&e, ap_recorder__buf(r));
		return ap_recorder__buf(r)->err;
	}
	memcpy(comm, m->comm, sizeof(comm));
	comm[AP_COMM_MAX - 1] = '\0';
	err = ap_recorder__touch(r, m->hdr.pid, m->hdr.tid, comm);
	if (err)
		return err;
	e.pid = m->hdr.pid;
	e.tid = m->hdr.tid;
	e.cpu = m->hdr.cpu;
	e.access = m->access;
	e.ip = m->ip;
	e.addr = m->addr;
	e.data_src = m->data_src;
	e.flags = m->flags;
	e.latency = m->latency;
	e.width = m->width;
	if (m->source == AP_MEM_SRC_IBS_OP && m->raw_size)
		ibs_fields(m, &e);
	/* a data address outside the known mappings: an mmap or brk since
	 * the last scan; rescanned before the frame so that a reader meets
	 * the mapping first */
	if (e.flags & AP_MEM_F_ADDR)
		ap_recorder__need_addr(r, m->hdr.pid, e.addr);
	e.stack_id = ap_recorder__stack(r, m->hdr.pid, &m->st);
	ap_mem_event__encode(&e, ap_recorder__buf(r));
	return ap_recorder__buf(r)->err;
}

/* one frame as a generic record for script and the timeline (event.h) */
int ap_mem__evdec(struct ap_evdec *d, const struct ap_frame *f,
		  struct ap_evrec *r)
{
	struct ap_mem_event e;

	if (ap_mem_event__decode(f->payload, f->len, &e))
		return -EBADMSG;
	if (e.kind != AP_MEM_KIND_SAMPLE)
		return -ENOMSG;
	snprintf(r->name, sizeof(r->name), "%s",
		 e.access == AP_MEM_ACC_STORE ? "store" :
		 e.access == AP_MEM_ACC_LOAD ? "load" : "access");
	r->ts = e.ts;
	r->pid = e.pid;
	r->tid = e.tid;
	r->cpu = e.cpu;
	r->stack_id = e.stack_id;
	ap_evrec__field(r, "source", 0, "%s", ap_mem_source__name(e.source));
	ap_evrec__field(r, "addr", 0, "0x%" PRIx64, e.addr);
	ap_evrec__field(r, "ip", 0, "0x%" PRIx64, e.ip);
	ap_evrec__field(r, "period", 1, "%" PRIu64, e.period);
	if (e.latency)
		ap_evrec__field(r, "latency", 1, "%u", e.latency);
	return 0;
}
