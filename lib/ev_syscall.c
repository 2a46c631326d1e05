// SPDX-License-Identifier: GPL-2.0
/* Syscall frames: encoder, decoder, and the recorder's BPF record handler. */
#include "ev_syscall.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "aperture.h"
#include "format.h"
#include "recorder.h"
#include "syscall.h"

/* the BPF flags travel into the file unchanged */
_Static_assert(AP_SC_INFLIGHT == AP_SYSCALL_INFLIGHT, "flag values");
_Static_assert(AP_SC_NORETURN == AP_SYSCALL_NORETURN, "flag values");

void ap_syscall__encode(const struct ap_syscall *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_SYSCALL, &mark);
	ap_buf__u64(b, e->ts);
	ap_buf__u32(b, e->pid);
	ap_buf__u32(b, e->tid);
	ap_buf__u32(b, e->id);
	ap_buf__u64(b, e->duration_ns);
	ap_buf__u64(b, (uint64_t)e->ret);
	ap_buf__u32(b, e->stack_id);
	ap_buf__u32(b, e->cpu);
	ap_buf__u32(b, e->flags);
	ap_frame__end(b, mark);
}

int ap_syscall__decode(const void *p, size_t len, struct ap_syscall *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	e->ts = ap_cur__u64(&c);
	e->pid = ap_cur__u32(&c);
	e->tid = ap_cur__u32(&c);
	e->id = ap_cur__u32(&c);
	e->duration_ns = ap_cur__u64(&c);
	e->ret = (int64_t)ap_cur__u64(&c);
	e->stack_id = ap_cur__u32(&c);
	e->cpu = ap_cur__u32(&c);
	e->flags = ap_cur__u32(&c);
	return c.err;
}

int ap_rec_syscall(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_syscall *e = data;
	struct ap_syscall s;
	char comm[AP_COMM_MAX];
	int err;

	if (size < sizeof(*e))
		return 0;
	memcpy(comm, e->comm, sizeof(comm));
	comm[AP_COMM_MAX - 1] = '\0';
	err = ap_recorder__touch(r, e->hdr.pid, e->hdr.tid, comm);
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
