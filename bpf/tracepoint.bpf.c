// SPDX-License-Identifier: GPL-2.0
/*
 * Any tracepoint (-e CAT:NAME): one program, attached by user space to
 * each tracepoint asked for with the tracepoint's index as the link's
 * cookie (bpf_get_attach_cookie: kernel 5.15), sends the raw trace record
 * with the kernel and user stacks of the task it fires in.  A filter
 * (record --filter) is applied in user space: the kernel's ftrace filters
 * do not apply to BPF programs.
 */
#include "common.bpf.h"
#include "tracepoint.h"

SEC("tracepoint")
int ap_tp(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ap_ev_tp *e;

	if (!ap_is_target(id >> 32))
		return 0;
	e = ap_reserve_st(sizeof(*e));
	if (!e)
		return 0;
	ap_fill_hdr(&e->hdr, AP_EV_TP);
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->idx = (__u32)bpf_get_attach_cookie(ctx);
	/* the trace record lies in a per-CPU buffer of 8 KiB: reading past
	 * a short record's end reads that buffer, never faults */
	e->size = AP_TP_DATA_MAX;
	if (bpf_probe_read_kernel(e->data, AP_TP_DATA_MAX, ctx))
		e->size = 0;
	ap_get_stacks(ctx, &e->st, 1, 1);
	ap_submit_st(e);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
