// SPDX-License-Identifier: GPL-2.0
/* CPU samples: a perf_event program on cpu-clock (or cycles), every CPU. */
#include "common.bpf.h"

/* what the program costs on the samples it keeps, for the sensor's CPU
 * budget (lib/cpu/sensor.c): the kernel measures PMU interrupts so, but
 * not the cpu-clock timer */
__u64 ap_cpu_cost_ns;
__u64 ap_cpu_cost_n;

SEC("perf_event")
int ap_cpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ap_ev_cpu *e;
	__u64 t0;

	if ((__u32)id == 0) {
		ap_count(AP_STAT_IDLE);
		return 0;
	}
	if (!ap_is_target(id >> 32))
		return 0;
	t0 = bpf_ktime_get_ns();
	e = ap_reserve_st(sizeof(*e));
	if (e) {
		ap_fill_hdr(&e->hdr, AP_EV_CPU);
		bpf_get_current_comm(e->comm, sizeof(e->comm));
		ap_get_stacks(ctx, &e->st, 1, 1);
		ap_submit_st(e);
	}
	__sync_fetch_and_add(&ap_cpu_cost_ns, bpf_ktime_get_ns() - t0);
	__sync_fetch_and_add(&ap_cpu_cost_n, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
