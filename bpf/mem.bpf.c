// SPDX-License-Identifier: GPL-2.0
/*
 * Memory samples (bpf/mem.h): a perf_event program on each of the mem
 * sensor's perf events (AMD IBS op, or page faults) sends every sample of
 * a target as one AP_EV_MEM record, with the kernel and user stacks taken
 * in the same overflow: nothing is paired later, so nothing can drift.
 * It returns 0: the perf rings get nothing.
 */
#include "common.bpf.h"
#include "mem.h"

/* AP_MEM_SRC_* of the events, set by user space before it enables them
 * (which source opens is known only after load) */
volatile __u32 ap_mem_source;

/* mem records lost on this CPU (ring full, buffers busy): user space
 * doubles the period on them */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} ap_mem_lost SEC(".maps");

static __always_inline void mem_lose(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&ap_mem_lost, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * IBS: the op's registers reach only the sample's raw data, and the
 * kernel's own data source (6.1+) only its data_src: both read from the
 * perf_sample_data the kernel built for this overflow.
 */
static __always_inline void mem_ibs(struct bpf_perf_event_data *ctx,
				    struct ap_ev_mem *e)
{
	struct bpf_perf_event_data_kern *k = (void *)ctx;
	struct perf_sample_data *d = BPF_CORE_READ(k, data);
	struct perf_raw_record *raw;
	__u64 have = ~0ull;		/* before 6.1: every field is set */
	const void *src;
	__u32 size;

	if (!d)
		return;
	if (bpf_core_field_exists(d->sample_flags))
		have = BPF_CORE_READ(d, sample_flags);
	if (have & PERF_SAMPLE_DATA_SRC)
		e->data_src = BPF_CORE_READ(d, data_src.val);
	if (!(have & PERF_SAMPLE_RAW))
		return;
	raw = BPF_CORE_READ(d, raw);
	if (!raw)
		return;
	src = BPF_CORE_READ(raw, frag.data);
	size = BPF_CORE_READ(raw, frag.size);
	if (size > AP_MEM_RAW_MAX)
		size = AP_MEM_RAW_MAX;
	if (src && !bpf_probe_read_kernel(e->raw, size, src))
		e->raw_size = size;
}

SEC("perf_event")
int ap_mem_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), avail, size;
	struct ap_ev_mem *e;

	/* per CPU (-a, IBS without per-task events): the targets alone */
	if (!ap_is_target(id >> 32))
		return 0;
	e = ap_reserve_st(sizeof(*e));
	if (!e) {
		mem_lose();
		return 0;
	}
	ap_fill_hdr(&e->hdr, AP_EV_MEM);
	e->kind = AP_MEM_KIND_SAMPLE;
	e->source = ap_mem_source;
	e->access = AP_MEM_ACC_UNKNOWN;
	e->ip = PT_REGS_IP(&ctx->regs);
	e->flags = e->ip >= 0xffff800000000000ull ? AP_MEM_F_KERNEL_IP : 0;
	e->data_src = 0;
	e->period = ctx->sample_period;
	e->lost = 0;
	e->latency = 0;
	e->width = 0;
	e->raw_size = 0;
	e->pad = 0;
	/* IBS: the address is the op's, decoded with its registers */
	e->addr = 0;
	if (e->source == AP_MEM_SRC_IBS_OP) {
		mem_ibs(ctx, e);
	} else {
		e->addr = ctx->addr;
		if (e->addr)
			e->flags |= AP_MEM_F_ADDR;
	}
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	ap_get_stacks(ctx, &e->st, 1, 1);
	/* ap_submit_st(), but a loss is mem's too */
	size = __builtin_offsetof(struct ap_ev_mem, st.ips) +
	       (__u64)(__u32)e->st.kstack_sz + (__u64)(__u32)e->st.ustack_sz +
	       (__u64)e->st.py_n * 16;
	if (size > AP_REC_MAX)
		size = AP_REC_MAX;
	avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	if (bpf_ringbuf_output(&events, e, size, ap_wakeup_flags(avail, size))) {
		ap_count(AP_STAT_RB_DROP);
		mem_lose();
	}
	ap_release_st(e);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
