// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks for the mem sensor's samples (bpf/mem.h): a perf_event
 * program on each of its perf events unwinds the sampled task from CFI
 * into the slot of the sample's sequence number on its CPU.  The samples
 * themselves still go through the perf rings (IBS's registers reach only
 * PERF_SAMPLE_RAW); the program keeps every sample (returns 1).
 */
#include "common.bpf.h"
#include "mem.h"

/* entries: ncpus * AP_MEM_SLOTS, set by user space before load */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct ap_mem_ustack);
} ap_mem_ustacks SEC(".maps");

/* samples seen per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} ap_mem_seq SEC(".maps");

SEC("perf_event")
int ap_mem_stack(struct bpf_perf_event_data *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0, key;
	struct ap_mem_ustack *slot;
	__u64 *seqp, seq;

	seqp = bpf_map_lookup_elem(&ap_mem_seq, &zero);
	if (!seqp)
		return 1;
	seq = (*seqp)++;
	key = cpu * AP_MEM_SLOTS + (__u32)(seq & (AP_MEM_SLOTS - 1));
	slot = bpf_map_lookup_elem(&ap_mem_ustacks, &key);
	if (!slot)
		return 1;
	slot->seq = ~0ull;
	asm volatile("" ::: "memory");
	slot->tid = (__u32)bpf_get_current_pid_tgid();
	slot->ip = PT_REGS_IP(&ctx->regs);
	slot->addr = ctx->addr;
	slot->uflags = 0;
	slot->pad = 0;
	slot->ustack_sz = 0;
	/* a sample of another process (IBS per CPU, filtered by the sensor)
	 * keeps its place in the order, without a stack */
	if (ap_is_target(bpf_get_current_pid_tgid() >> 32))
		slot->ustack_sz = ap_user_stack(ctx, slot->ips, AP_MAX_USTACK,
						&slot->uflags);
	/* the sensor reads seq, the slot, then seq again (x86: stores in
	 * program order; the barrier keeps the compiler's order) */
	asm volatile("" ::: "memory");
	slot->seq = seq;
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
