/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Below common.bpf.h and unwind.bpf.h, included by both: the drop
 * counters (stats, losses by process) and the per-CPU scratch pools.
 * Like common.bpf.h's, the maps are __weak: one instance after linking.
 */
#ifndef APERTURE_BASE_BPF_H
#define APERTURE_BASE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "aperture.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AP_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps") __weak;

/*
 * Per-CPU scratch buffers come in pools of AP_NEST_SLOTS, one buffer a
 * program in flight on the CPU.  Programs of one CPU do nest: a
 * perf_event program (the cpu-clock interrupt, an NMI) or a tracepoint
 * in an interrupt runs inside a tp_btf program (which takes no global
 * guard), and a uprobe program can be preempted.  With one buffer a
 * CPU the inner program overwrote the outer one's record: a syscall
 * record went out as a CPU sample, or with another record's fields.
 */
#define AP_NEST_SLOTS		4
#define AP_POOL_REC		0	/* ap_rec_scratch */
#define AP_POOL_UW		1	/* ap_uw_scratch */
#define AP_POOL_LOSS		2	/* ap_loss_scratch */
#define AP_POOL_PY		3	/* ap_py_scratch */

/* how many programs hold, or are trying for, each buffer of a pool */
struct ap_pool {
	__u64 used[AP_NEST_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct ap_pool);
} ap_pools SEC(".maps") __weak;

/*
 * A free buffer of pool on this CPU, or AP_NEST_SLOTS when all are taken.
 * Add, then look: a count of 1 means no other program holds or is taking
 * the buffer, whether it interrupted this one or preempted it (the BPF
 * instruction set built for has atomic adds, not compare-and-swap).
 */
static __always_inline __u32 ap_slot_take(__u32 pool)
{
	struct ap_pool *p = bpf_map_lookup_elem(&ap_pools, &pool);
	__u32 i;

	if (!p)
		return AP_NEST_SLOTS;
	for (i = 0; i < AP_NEST_SLOTS; i++) {
		__sync_fetch_and_add(&p->used[i], 1);
		if (*(volatile __u64 *)&p->used[i] == 1)
			return i;
		__sync_fetch_and_add(&p->used[i], -1);
	}
	return AP_NEST_SLOTS;
}

static __always_inline void ap_slot_give(__u32 pool, __u32 slot)
{
	struct ap_pool *p = bpf_map_lookup_elem(&ap_pools, &pool);

	if (p && slot < AP_NEST_SLOTS)
		__sync_fetch_and_add(&p->used[slot], -1);
}

/* losses by process (aperture.h); a new entry is built in
 * ap_loss_scratch, not on the BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_LOSS_PROCS);
	__type(key, struct ap_loss_key);
	__type(value, struct ap_loss);
} ap_loss_procs SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ap_loss);
} ap_loss_over SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AP_NEST_SLOTS);
	__type(key, __u32);
	__type(value, struct ap_loss);
} ap_loss_scratch SEC(".maps") __weak;

/* count loss idx (< AP_LOSS_NR) against the process of task */
static __noinline void ap_lose(__u32 idx, __u64 task)
{
	struct task_struct *t = (struct task_struct *)task;
	struct task_struct *leader;
	struct ap_loss_key k;
	struct ap_loss *v, *z;
	__u32 zero = 0, slot;
	int i;

	if (idx >= AP_LOSS_NR || !t)
		return;
	leader = BPF_CORE_READ(t, group_leader);
	k.tgid = BPF_CORE_READ(t, tgid);
	k.pad = 0;
	k.start_ns = leader ? BPF_CORE_READ(leader, start_boottime) : 0;
	v = bpf_map_lookup_elem(&ap_loss_procs, &k);
	if (!v) {
		slot = ap_slot_take(AP_POOL_LOSS);
		z = slot < AP_NEST_SLOTS ?
			bpf_map_lookup_elem(&ap_loss_scratch, &slot) : NULL;
		if (z) {
			for (i = 0; i < AP_LOSS_NR; i++)
				z->n[i] = 0;
			z->comm[0] = 0;
			if (leader)
				BPF_CORE_READ_STR_INTO(&z->comm, leader, comm);
			/* -EEXIST: another CPU added it first; -E2BIG: full */
			bpf_map_update_elem(&ap_loss_procs, &k, z, BPF_NOEXIST);
			v = bpf_map_lookup_elem(&ap_loss_procs, &k);
		}
		ap_slot_give(AP_POOL_LOSS, slot);
		if (!v)
			v = bpf_map_lookup_elem(&ap_loss_over, &zero);
		if (!v)
			return;
	}
	__sync_fetch_and_add(&v->n[idx], 1);
}

/* ap_count() of a loss that belongs to task's process, not current's */
static __always_inline void ap_count_task(__u32 idx, void *task)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	/* atomic even per CPU: a program that interrupts this one may count
	 * the same counter */
	if (v)
		__sync_fetch_and_add(v, 1);
	if (idx < AP_LOSS_NR && idx != AP_STAT_IDLE)
		ap_lose(idx, (__u64)task);
}

static __always_inline void ap_count(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		__sync_fetch_and_add(v, 1);	/* as in ap_count_task() */
	if (idx < AP_LOSS_NR && idx != AP_STAT_IDLE)
		ap_lose(idx, bpf_get_current_task());
}

#endif /* APERTURE_BASE_BPF_H */
