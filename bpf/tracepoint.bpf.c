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

/* each tracepoint's fixed fields: the bytes its record has at least (set
 * by user space before load, by the cookie) */
const volatile __u32 ap_tp_size[AP_TP_MAX] = { 0 };

SEC("tracepoint")
int ap_tp(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ap_ev_tp *e;
	__u32 size;

	if (!ap_is_target(id >> 32))
		return 0;
	e = ap_reserve_st(sizeof(*e));
	if (!e)
		return 0;
	ap_fill_hdr(&e->hdr, AP_EV_TP);
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->idx = (__u32)bpf_get_attach_cookie(ctx);
	/*
	 * How long the record is the program is not told: its fixed fields
	 * and, after them, its dynamic ones (strings).  Most records lie in
	 * a per-CPU buffer of 8 KiB, where reading past a short one's end
	 * reads that buffer; a syscall's lies on the kernel stack, where it
	 * may reach past the stack's end and fault: then its fixed fields
	 * alone (a syscall's has no others).
	 */
	size = ap_tp_size[e->idx & (AP_TP_MAX - 1)];
	if (size > AP_TP_DATA_MAX)
		size = AP_TP_DATA_MAX;
	e->size = AP_TP_DATA_MAX;
	if (bpf_probe_read_kernel(e->data, AP_TP_DATA_MAX, ctx)) {
		e->size = size;
		if (!size || bpf_probe_read_kernel(e->data, size, ctx))
			e->size = 0;
	}
	ap_get_stacks(ctx, &e->st, 1, 1);
	ap_submit_st(e);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
