// SPDX-License-Identifier: GPL-2.0
/* CPU samples: a perf_event program on cpu-clock (or cycles), every CPU. */
#include "common.bpf.h"

SEC("perf_event")
int ap_cpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ap_ev_cpu *e;

	if ((__u32)id == 0) {
		ap_count(AP_STAT_IDLE);
		return 0;
	}
	if (!ap_is_target(id >> 32))
		return 0;
	e = ap_reserve_st(sizeof(*e));
	if (!e)
		return 0;
	ap_fill_hdr(&e->hdr, AP_EV_CPU);
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	ap_get_stacks(ctx, &e->st, 1, 1);
	ap_submit_st(e);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
