// SPDX-License-Identifier: GPL-2.0
#include "cpu/codec.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "aperture.h"
#include "format/format.h"
#include "record/recorder.h"
#include "report/evdump.h"

int ap_rec_cpu(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_cpu *e = data;
	struct ap_cpu_sample s;

	if (!ap_stacks__whole(e, size, offsetof(struct ap_ev_cpu, st)))
		return 0;
	ap_recorder__touch_ev(r, &e->hdr, e->comm, NULL);
	s.ts = e->hdr.ts;
	s.pid = e->hdr.pid;
	s.tid = e->hdr.tid;
	s.cpu = e->hdr.cpu;
	s.stack_id = ap_recorder__sample_stack(r, e->hdr.pid, &e->st);
	ap_recorder__count_sample(r, e->st.ustack_sz <= 0);
	ap_cpu_sample__encode(&s, ap_recorder__buf(r));
	return 0;
}

/* one frame as a generic record for script and the timeline (event.h) */
int ap_cpu__evdec(struct ap_evdec *d, const struct ap_frame *f,
		  struct ap_evrec *r)
{
	struct ap_cpu_sample e;

	if (ap_cpu_sample__decode(f->payload, f->len, &e))
		return -EBADMSG;
	snprintf(r->name, sizeof(r->name), "cpu-clock");
	r->ts = e.ts;
	r->pid = e.pid;
	r->tid = e.tid;
	r->cpu = e.cpu;
	r->stack_id = e.stack_id;
	return 0;
}

