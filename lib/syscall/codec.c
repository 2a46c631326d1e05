// SPDX-License-Identifier: GPL-2.0
/* Syscall frames: encoder, decoder, and the recorder's BPF record handler. */
#include "syscall/codec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "aperture.h"
#include "format/format.h"
#include "record/recorder.h"
#include "syscall.h"
#include "format/reader.h"
#include "report/evdump.h"

/* the BPF flags travel into the file unchanged */
_Static_assert(AP_SC_INFLIGHT == AP_SYSCALL_INFLIGHT, "flag values");
_Static_assert(AP_SC_NORETURN == AP_SYSCALL_NORETURN, "flag values");
_Static_assert(AP_SC_HIST == AP_HIST_BUCKETS, "histogram buckets");
_Static_assert(AP_SC_SUM_ERRS == AP_SYSCALL_SUM_ERRS, "errnos per summary");

void ap_syscall__encode(const struct ap_syscall *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_SYSCALL, &mark);
	ap_event_head__encode(b, e->ts, e->pid, e->tid);
	ap_buf__u32(b, e->id);
	ap_buf__u64(b, e->duration_ns);
	ap_buf__u64(b, (uint64_t)e->ret);
	ap_buf__u32(b, e->stack_id);
	ap_buf__u32(b, e->cpu);
	ap_buf__u32(b, e->flags);
	if (e->flags & AP_SYSCALL_SUMMARY) {
		uint32_t i, nb = 0;

		ap_buf__u64(b, e->calls);
		ap_buf__u64(b, e->noreturn);
		ap_buf__u64(b, e->max_ns);
		for (i = 0; i < AP_HIST_BUCKETS; i++)
			nb += !!e->hist[i];
		ap_buf__u32(b, nb);
		for (i = 0; i < AP_HIST_BUCKETS; i++) {
			if (!e->hist[i])
				continue;
			ap_buf__u32(b, i);
			ap_buf__u64(b, e->hist[i]);
		}
		ap_buf__u32(b, e->nr_errs);
		for (i = 0; i < e->nr_errs && i < AP_SYSCALL_SUM_ERRS; i++) {
			ap_buf__u32(b, e->errs[i].err);
			ap_buf__u64(b, e->errs[i].count);
		}
	}
	ap_frame__end(b, mark);
}

int ap_syscall__decode(const void *p, size_t len, struct ap_syscall *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	ap_event_head__decode(&c, &e->ts, &e->pid, &e->tid);
	e->id = ap_cur__u32(&c);
	e->duration_ns = ap_cur__u64(&c);
	e->ret = (int64_t)ap_cur__u64(&c);
	e->stack_id = ap_cur__u32(&c);
	e->cpu = ap_cur__u32(&c);
	e->flags = ap_cur__u32(&c);
	if (!c.err && (e->flags & AP_SYSCALL_SUMMARY)) {
		uint32_t i, n, k;
		uint64_t v;

		e->calls = ap_cur__u64(&c);
		e->noreturn = ap_cur__u64(&c);
		e->max_ns = ap_cur__u64(&c);
		n = ap_cur__u32(&c);
		for (i = 0; i < n && !c.err; i++) {
			k = ap_cur__u32(&c);
			v = ap_cur__u64(&c);
			if (k >= AP_HIST_BUCKETS)
				return -EBADMSG;
			e->hist[k] += v;
		}
		n = ap_cur__u32(&c);
		if (n > AP_SYSCALL_SUM_ERRS)
			return -EBADMSG;
		e->nr_errs = n;
		for (i = 0; i < n && !c.err; i++) {
			e->errs[i].err = ap_cur__u32(&c);
			e->errs[i].count = ap_cur__u64(&c);
		}
	}
	return c.err;
}

int ap_rec_syscall(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_syscall *e = data;
	struct ap_syscall s;
	int err;

	if (size < sizeof(*e))
		return 0;
	err = ap_recorder__touch_ev(r, &e->hdr, e->comm, NULL);
	if (err)
		return err;
	s.ts = e->hdr.ts;
	s.pid = e->hdr.pid;
	s.tid = e->hdr.tid;
	s.id = e->id;
	s.duration_ns = e->duration_ns;
	s.ret = e->ret;
	s.cpu = e->hdr.cpu;
	s.flags = e->flags;
	s.stack_id = 0;
	if (ap_stacks__whole(data, size,
			     offsetof(struct ap_ev_syscall_stack, st))) {
		const struct ap_ev_syscall_stack *es = data;

		s.stack_id = ap_recorder__stack(r, e->hdr.pid, &es->st);
	}
	ap_syscall__encode(&s, ap_recorder__buf(r));
	return 0;
}

int ap_rec_syscall_sum(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_syscall_sum *e = data;
	struct ap_syscall s;
	uint32_t i;
	int err;

	if (size < sizeof(*e) || e->nr_errs > AP_SC_SUM_ERRS)
		return 0;
	err = ap_recorder__touch_ev(r, &e->hdr, e->sum.comm, NULL);
	if (err)
		return err;
	memset(&s, 0, sizeof(s));
	s.ts = e->hdr.ts;
	s.pid = e->hdr.pid;
	s.tid = e->hdr.tid;
	s.id = e->id;
	s.duration_ns = e->sum.total_ns;
	s.cpu = e->hdr.cpu;
	s.flags = AP_SYSCALL_SUMMARY;
	s.calls = e->sum.calls;
	s.noreturn = e->sum.noreturn;
	s.max_ns = e->sum.max_ns;
	memcpy(s.hist, e->sum.hist, sizeof(s.hist));
	s.nr_errs = e->nr_errs;
	for (i = 0; i < e->nr_errs; i++) {
		s.errs[i].err = e->errs[i].err;
		s.errs[i].count = e->errs[i].count;
	}
	ap_syscall__encode(&s, ap_recorder__buf(r));
	/* the calls it sums are the events, as their records would be */
	ap_recorder__count(r, AP_TAG_SYSCALL, e->sum.calls);
	return 0;
}

/* one frame as a generic record for script and the timeline (event.h) */
int ap_syscall__evdec(struct ap_evdec *d, const struct ap_frame *f,
		      struct ap_evrec *r)
{
	struct ap_syscall e;
	char buf[32];

	if (ap_syscall__decode(f->payload, f->len, &e))
		return -EBADMSG;
	snprintf(r->name, sizeof(r->name), "%s",
		 ap_syscall__name(e.id, buf, sizeof(buf)));
	r->ts = e.ts;
	r->pid = e.pid;
	r->tid = e.tid;
	r->stack_id = e.stack_id;
	if (e.flags & AP_SYSCALL_SUMMARY) {
		uint64_t errs = 0;
		uint32_t i;

		/* the totals of many calls, as they were read: no slice of
		 * time of their own (a timeline would draw one as long as
		 * their sum) */
		r->summed = 1;
		for (i = 0; i < e.nr_errs && i < AP_SYSCALL_SUM_ERRS; i++)
			errs += e.errs[i].count;
		ap_evrec__field(r, "calls", 1, "%" PRIu64, e.calls);
		ap_evrec__field(r, "errors", 1, "%" PRIu64, errs);
		ap_evrec__field(r, "total_ns", 1, "%" PRIu64, e.duration_ns);
		ap_evrec__field(r, "max_ns", 1, "%" PRIu64, e.max_ns);
		return 0;
	}
	r->dur_ns = e.duration_ns;
	r->slice = 1;
	r->cpu = e.cpu;
	ap_evrec__field(r, "ret", 1, "%" PRId64, e.ret);
	if (e.ret < 0 && e.ret >= -4095)
		ap_evrec__field(r, "errno", 0, "%s", strerrorname_np((int)-e.ret) ?
		      strerrorname_np((int)-e.ret) : "?");
	ap_evrec__field(r, "duration_ns", 1, "%" PRIu64, e.duration_ns);
	if (e.flags & AP_SYSCALL_INFLIGHT)
		ap_evrec__field(r, "inflight", 1, "1");
	return 0;
}
