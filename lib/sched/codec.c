// SPDX-License-Identifier: GPL-2.0
/*
 * AP_TAG_SCHED frames.  Payload (little-endian), man/aperture-file.5:
 *
 *   u32 kind = 1 (interval): u64 ts, u32 pid, u32 tid, u32 cpu, u32 state,
 *	u64 off_ns, u64 wakeup_ns, u32 stack_id, u32 out_cpu, u32 waker_pid,
 *	u32 waker_tid, u32 flags, u32 prev_state, u64 start_ticks (1.7)
 *   u32 kind = 2 (thread): u64 ts, u32 pid, u32 tid, u32 cpu, u32 flags,
 *	u64 on_ns, blocked_ns, runnable_ns, vol, invol, wakeups,
 *	wakeup_total_ns, wakeup_max_ns, migrations, short_nr, short_ns,
 *	u32 nwords, nwords x u64 cpu mask, u64 start_ticks (1.7)
 */
#include "sched/codec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "aperture.h"
#include "format/format.h"
#include "record/procfs.h"
#include "record/recorder.h"
#include "sched.h"
#include "format/reader.h"
#include "report/evdump.h"

void ap_sched_iv__encode(const struct ap_sched_iv *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_SCHED, &mark);
	ap_buf__u32(b, AP_SCHED_IV);
	ap_event_head__encode(b, e->ts, e->pid, e->tid);
	ap_buf__u32(b, e->cpu);
	ap_buf__u32(b, e->state);
	ap_buf__u64(b, e->off_ns);
	ap_buf__u64(b, e->wakeup_ns);
	ap_buf__u32(b, e->stack_id);
	ap_buf__u32(b, e->out_cpu);
	ap_buf__u32(b, e->waker_pid);
	ap_buf__u32(b, e->waker_tid);
	ap_buf__u32(b, e->flags);
	ap_buf__u32(b, e->prev_state);
	ap_buf__u64(b, e->start_ticks);
	ap_frame__end(b, mark);
}

void ap_sched_thr__encode(const struct ap_sched_thr *e, struct ap_buf *b)
{
	size_t mark;
	int i;

	ap_frame__begin(b, AP_TAG_SCHED, &mark);
	ap_buf__u32(b, AP_SCHED_THR);
	ap_event_head__encode(b, e->ts, e->pid, e->tid);
	ap_buf__u32(b, e->cpu);
	ap_buf__u32(b, e->flags);
	ap_buf__u64(b, e->on_ns);
	ap_buf__u64(b, e->blocked_ns);
	ap_buf__u64(b, e->runnable_ns);
	ap_buf__u64(b, e->vol);
	ap_buf__u64(b, e->invol);
	ap_buf__u64(b, e->wakeups);
	ap_buf__u64(b, e->wakeup_total_ns);
	ap_buf__u64(b, e->wakeup_max_ns);
	ap_buf__u64(b, e->migrations);
	ap_buf__u64(b, e->short_nr);
	ap_buf__u64(b, e->short_ns);
	ap_buf__u32(b, AP_SCHED_MASK_WORDS);
	for (i = 0; i < AP_SCHED_MASK_WORDS; i++)
		ap_buf__u64(b, e->cpus[i]);
	ap_buf__u64(b, e->start_ticks);
	ap_frame__end(b, mark);
}

static void decode_iv(struct ap_cur *c, struct ap_sched_iv *e)
{
	ap_event_head__decode(c, &e->ts, &e->pid, &e->tid);
	e->cpu = ap_cur__u32(c);
	e->state = ap_cur__u32(c);
	e->off_ns = ap_cur__u64(c);
	e->wakeup_ns = ap_cur__u64(c);
	e->stack_id = ap_cur__u32(c);
	e->out_cpu = ap_cur__u32(c);
	e->waker_pid = ap_cur__u32(c);
	e->waker_tid = ap_cur__u32(c);
	e->flags = ap_cur__u32(c);
	e->prev_state = ap_cur__u32(c);
	/* absent before 1.7: nothing there is a file of 1.6 or older */
	if (!c->err && ap_cur__left(c))
		e->start_ticks = ap_cur__u64(c);
}

static void decode_thr(struct ap_cur *c, struct ap_sched_thr *e)
{
	uint32_t i, n;

	ap_event_head__decode(c, &e->ts, &e->pid, &e->tid);
	e->cpu = ap_cur__u32(c);
	e->flags = ap_cur__u32(c);
	e->on_ns = ap_cur__u64(c);
	e->blocked_ns = ap_cur__u64(c);
	e->runnable_ns = ap_cur__u64(c);
	e->vol = ap_cur__u64(c);
	e->invol = ap_cur__u64(c);
	e->wakeups = ap_cur__u64(c);
	e->wakeup_total_ns = ap_cur__u64(c);
	e->wakeup_max_ns = ap_cur__u64(c);
	e->migrations = ap_cur__u64(c);
	e->short_nr = ap_cur__u64(c);
	e->short_ns = ap_cur__u64(c);
	n = ap_cur__u32(c);
	/* a wider mask from a bigger machine: keep what fits, say so */
	for (i = 0; i < n && !c->err; i++) {
		uint64_t w = ap_cur__u64(c);

		if (i < AP_SCHED_MASK_WORDS)
			e->cpus[i] = w;
		else if (w)
			e->flags |= AP_SCHED_THR_CPU_OVER;
	}
	/* absent before 1.7: nothing there is a file of 1.6 or older */
	if (!c->err && ap_cur__left(c))
		e->start_ticks = ap_cur__u64(c);
}

int ap_sched__decode(const void *p, size_t len, struct ap_sched_ev *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->kind = ap_cur__u32(&c);
	switch (e->kind) {
	case AP_SCHED_IV:
		decode_iv(&c, &e->iv);
		break;
	case AP_SCHED_THR:
		decode_thr(&c, &e->thr);
		break;
	default:
		return c.err ? c.err : -ENOMSG;
	}
	return c.err;
}

int ap_sched_cpus__count(const uint64_t *cpus)
{
	int i, n = 0;

	for (i = 0; i < AP_SCHED_MASK_WORDS; i++)
		n += __builtin_popcountll(cpus[i]);
	return n;
}

static int cpu_set(const uint64_t *cpus, int cpu)
{
	return cpu < AP_SCHED_MASK_WORDS * 64 &&
	       (cpus[cpu / 64] >> (cpu % 64) & 1);
}

void ap_sched_cpus__format(const uint64_t *cpus, int over, char *buf,
			   size_t len)
{
	size_t off = 0;
	int cpu, first;

	if (!len)
		return;
	buf[0] = '\0';
	for (cpu = 0; cpu < AP_SCHED_MASK_WORDS * 64 && off < len; cpu++) {
		if (!cpu_set(cpus, cpu))
			continue;
		first = cpu;
		while (cpu_set(cpus, cpu + 1))
			cpu++;
		if (first == cpu)
			off += snprintf(buf + off, len - off, "%s%d",
					off ? "," : "", cpu);
		else
			off += snprintf(buf + off, len - off, "%s%d-%d",
					off ? "," : "", first, cpu);
	}
	if (over && off < len)
		snprintf(buf + off, len - off, "%s+", off ? "," : "");
	if (!buf[0])
		snprintf(buf, len, "-");
}

static int rec_off(struct ap_recorder *r, const struct ap_ev_sched_off *e,
		   size_t size)
{
	uint64_t start = e->start_ns ? ap_ns_to_ticks(e->start_ns) : 0;
	struct ap_sched_iv iv;

	/* a record cut short of its frames is ignored, not read past */
	if (!ap_stacks__whole(e, size, offsetof(struct ap_ev_sched_off, st)))
		return 0;
	/* whose it is, when /proc has another process under the pid by
	 * the time the recorder reads it */
	ap_recorder__touch_ev(r, &e->hdr, e->comm, &start);
	memset(&iv, 0, sizeof(iv));
	iv.start_ticks = start;
	iv.ts = e->hdr.ts;
	iv.pid = e->hdr.pid;
	iv.tid = e->hdr.tid;
	iv.cpu = e->hdr.cpu;
	iv.state = e->state == AP_SCHED_PREEMPTED ? AP_SCHED_ST_PREEMPTED :
						    AP_SCHED_ST_BLOCKED;
	iv.off_ns = e->off_ns;
	iv.wakeup_ns = e->wakeup_ns;
	iv.stack_id = ap_recorder__stack(r, e->hdr.pid, &e->st);
	iv.out_cpu = e->out_cpu;
	iv.waker_pid = e->waker_pid;
	iv.waker_tid = e->waker_tid;
	iv.flags = (e->flags & AP_SCHED_F_OPEN ? AP_SCHED_IV_OPEN : 0) |
		   (e->flags & AP_SCHED_F_NO_WAKEUP ? AP_SCHED_IV_NO_WAKEUP : 0) |
		   (e->flags & AP_SCHED_F_CLIPPED ? AP_SCHED_IV_CLIPPED : 0);
	iv.prev_state = e->prev_state;
	ap_sched_iv__encode(&iv, ap_recorder__buf(r));
	return 0;
}

static int rec_thread(struct ap_recorder *r,
		      const struct ap_ev_sched_thread *e)
{
	const struct ap_sched_thread *t = &e->t;
	uint64_t start = t->start_ns ? ap_ns_to_ticks(t->start_ns) : 0;
	struct ap_sched_thr s;
	int i;

	_Static_assert(AP_SCHED_MASK_WORDS == AP_SCHED_CPU_WORDS,
		       "cpu mask width");
	/* a snapshot of the table, or a thread's exit, may come before or
	 * after the records of another process that took its pid: it says
	 * whose it is */
	ap_recorder__touch_ev(r, &e->hdr, e->comm, &start);
	memset(&s, 0, sizeof(s));
	s.start_ticks = start;
	s.ts = e->hdr.ts;
	s.pid = e->hdr.pid;
	s.tid = e->hdr.tid;
	s.cpu = e->hdr.cpu;
	s.flags = t->flags & (AP_SCHED_T_CPU_OVER | AP_SCHED_T_EXITED |
			      AP_SCHED_T_FINAL);
	if (t->flags & AP_SCHED_T_RT_PARTIAL)
		s.flags |= AP_SCHED_THR_ON_PARTIAL;
	s.on_ns = t->on_ns;
	s.blocked_ns = t->blocked_ns;
	s.runnable_ns = t->runnable_ns;
	s.vol = t->vol;
	s.invol = t->invol;
	s.wakeups = t->wakeups;
	s.wakeup_total_ns = t->wakeup_total_ns;
	s.wakeup_max_ns = t->wakeup_max_ns;
	s.migrations = t->migrations;
	s.short_nr = t->short_nr;
	s.short_ns = t->short_ns;
	for (i = 0; i < AP_SCHED_MASK_WORDS; i++)
		s.cpus[i] = t->cpus[i];
	ap_sched_thr__encode(&s, ap_recorder__buf(r));
	return 0;
}

int ap_rec_sched(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_sched_off *off = data;

	if (size < offsetof(struct ap_ev_sched_off, kind) + sizeof(off->kind))
		return 0;
	switch (off->kind) {
	case AP_SCHED_EV_OFF:
		if (size < AP_SCHED_OFF_HDR_SIZE)
			return 0;
		return rec_off(r, off, size);
	case AP_SCHED_EV_THREAD:
		if (size < sizeof(struct ap_ev_sched_thread))
			return 0;
		return rec_thread(r, data);
	}
	return 0;
}

/* one frame as a generic record for script and the timeline (event.h) */
int ap_sched__evdec(struct ap_evdec *d, const struct ap_frame *f,
		    struct ap_evrec *r)
{
	struct ap_sched_ev ev;
	const struct ap_sched_iv *e = &ev.iv;
	int err = ap_sched__decode(f->payload, f->len, &ev);

	if (err == -ENOMSG || (!err && ev.kind != AP_SCHED_IV))
		return -ENOMSG;
	if (err)
		return -EBADMSG;
	snprintf(r->name, sizeof(r->name), "%s",
		 e->state == AP_SCHED_ST_PREEMPTED ? "runnable" : "blocked");
	r->ts = e->ts - e->off_ns;
	r->dur_ns = e->off_ns;
	r->slice = 1;
	r->pid = e->pid;
	r->tid = e->tid;
	r->cpu = e->out_cpu;
	r->stack_id = e->stack_id;
	ap_evrec__field(r, "off_ns", 1, "%" PRIu64, e->off_ns);
	if (e->wakeup_ns)
		ap_evrec__field(r, "wakeup_ns", 1, "%" PRIu64, e->wakeup_ns);
	if (e->waker_pid) {
		ap_evrec__field(r, "waker_pid", 1, "%u", e->waker_pid);
		ap_evrec__field(r, "waker_tid", 1, "%u", e->waker_tid);
	}
	ap_evrec__field(r, "in_cpu", 1, "%u", e->cpu);
	if (e->flags & AP_SCHED_IV_OPEN)
		ap_evrec__field(r, "open", 1, "1");
	if (e->flags & AP_SCHED_IV_CLIPPED)
		ap_evrec__field(r, "clipped", 1, "1");
	return 0;
}
