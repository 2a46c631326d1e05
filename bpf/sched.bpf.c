// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling of the target threads: on-CPU time, off-CPU time split into
 * blocked and runnable, voluntary and involuntary switches, wakeup
 * latency, CPUs used, and off-CPU intervals with the stacks at switch-out.
 *
 * The per-switch cost is kept low: sched_switch does two hash lookups and,
 * for a target thread leaving the CPU, one stack capture straight into its
 * sched_stk slot.  A ring buffer record is only sent when an interval of
 * at least ap_sched_min_block_ns ends (at switch-in, when its length is
 * known) and when a thread exits; shorter intervals only add to the
 * thread's totals (short_nr, short_ns), which user space reads from
 * sched_thr periodically and at the end.  With ap_sched_totals (stat -e
 * sched) no interval is sent and no stack taken: the totals only.
 */
/* the unwinder's cache of a thread's last user stack, used here */
#define AP_UW_CACHE_IMPL
#define AP_PY_IMPL
#include "common.bpf.h"
#include "sched.h"

#define TASK_RUNNING_STATE	0x0000
#define TASK_DEAD_STATE		0x0080
#define PF_EXITING_FLAG		0x00000004

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_SCHED_MAX_THREADS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);			/* tid */
	__type(value, struct ap_sched_thread);
} sched_thr SEC(".maps");

/* the next off-CPU record of each thread, its stacks filled in at
 * switch-out and the rest at switch-in; 2 KB each, allocated per thread on
 * its first switch-out, not up front */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_SCHED_MAX_THREADS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);			/* tid */
	__type(value, struct ap_ev_sched_off);
} sched_stk SEC(".maps");

/* slot 0: all zero, to create sched_stk entries from (too large for the
 * BPF stack); slot 1: scratch for a record without stacks */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct ap_ev_sched_off);
} sched_zero SEC(".maps");

/* each thread's last user stack, to take again without a walk when it
 * blocks where it blocked before (unwind.bpf.h) */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ap_uw_cache);
} sched_uw SEC(".maps");

const volatile __u64 ap_sched_min_block_ns = 1000;
/* set before load (stat): the totals only, no intervals, no stacks */
const volatile __u8 ap_sched_totals = 0;
/* set by user space just before attaching: a thread first seen leaving
 * the CPU has been on it since then */
__u64 ap_sched_t0 = 0;

static __always_inline void set_cpu(struct ap_sched_thread *t, __u32 cpu)
{
	if (cpu < AP_SCHED_CPU_WORDS * 64)
		t->cpus[(cpu >> 6) & (AP_SCHED_CPU_WORDS - 1)] |=
			1ull << (cpu & 63);
	else
		t->flags |= AP_SCHED_T_CPU_OVER;
}

static __always_inline struct ap_sched_thread *
new_thread(struct task_struct *task, __u32 tid, __u32 tgid, __u32 flags,
	   __u64 in_ts, __u64 wake_ts, __u32 cpu)
{
	struct ap_sched_thread z;

	__builtin_memset(&z, 0, sizeof(z));
	z.pid = tgid;
	/* a pid taken again by another process: user space tells the two
	 * apart by start time */
	z.start_ns = BPF_CORE_READ(task, group_leader, start_boottime);
	/* on-CPU time is what the kernel measured from here on; off the
	 * CPU until now, or new, nothing is missed */
	z.rt_base = BPF_CORE_READ(task, se.sum_exec_runtime);
	z.flags = flags;
	z.in_ts = in_ts;
	z.wake_ts = wake_ts;
	z.last_cpu = cpu;
	if (cpu != (__u32)-1)
		set_cpu(&z, cpu);
	if (bpf_map_update_elem(&sched_thr, &tid, &z, BPF_NOEXIST)) {
		ap_count_task(AP_STAT_SCHED_TABLE_FULL, task);
		return NULL;
	}
	return bpf_map_lookup_elem(&sched_thr, &tid);
}

/* on-CPU time is the kernel's own count (what /proc/TID/schedstat shows),
 * right even when switches went unreported */
static __always_inline void set_on(struct task_struct *task,
				   struct ap_sched_thread *t)
{
	__u64 rt = BPF_CORE_READ(task, se.sum_exec_runtime);

	if (rt >= t->rt_base)
		t->on_ns = rt - t->rt_base;
}

/* a switch no tracepoint reported, found from the state the previous one
 * left; a thread seeded from /proc (CLIPPED) may have switched before the
 * programs attached: not a loss */
static __always_inline void unseen_switch(struct task_struct *task,
					  struct ap_sched_thread *t)
{
	if (!(t->flags & AP_SCHED_T_CLIPPED))
		ap_count_task(AP_STAT_SCHED_UNSEEN, task);
}

/* a switch-in not reported, found when the thread leaves the CPU again or
 * exits (some kernels trace nothing while certain tasks run, a VM's agent
 * here, so a switch away from one goes unreported): the time blocked up
 * to a wake-up seen is still known, the wait for a CPU after it is not */
static __always_inline void unseen_switch_in(struct task_struct *task,
					     struct ap_sched_thread *t)
{
	unseen_switch(task, t);
	if ((t->flags & AP_SCHED_T_OFF) && (t->flags & AP_SCHED_T_WOKEN) &&
	    t->out_state == AP_SCHED_BLOCKED && t->wake_ts >= t->out_ts)
		t->blocked_ns += t->wake_ts - t->out_ts;
}

static __always_inline void switch_out(void *ctx, struct task_struct *prev,
				       __u32 tgid, __u32 tid, int preempt,
				       __u32 prev_state, __u64 now, __u32 cpu)
{
	struct ap_sched_thread *t = bpf_map_lookup_elem(&sched_thr, &tid);
	struct ap_ev_sched_off *rec;
	__u32 zero = 0;

	if (!t) {
		/* an exiting thread whose totals were already sent */
		if ((prev_state & TASK_DEAD_STATE) ||
		    (BPF_CORE_READ(prev, flags) & PF_EXITING_FLAG))
			return;
		/* how long it ran before is not known */
		t = new_thread(prev, tid, tgid,
			       AP_SCHED_T_ON | AP_SCHED_T_RT_PARTIAL,
			       ap_sched_t0, 0, cpu);
		if (!t)
			return;
	}
	set_on(prev, t);
	/* off-CPU again with no switch-in seen since: the kernel ran the
	 * thread without reporting it (bpftrace sees the same) */
	if (!(t->flags & AP_SCHED_T_ON))
		unseen_switch_in(prev, t);
	/* preempted while getting ready to sleep still counts as runnable:
	 * the scheduler does not dequeue a preempted task */
	if (preempt || prev_state == TASK_RUNNING_STATE) {
		t->out_state = AP_SCHED_PREEMPTED;
		t->invol++;
	} else {
		t->out_state = AP_SCHED_BLOCKED;
		t->vol++;
	}
	t->flags = (t->flags & ~(AP_SCHED_T_ON | AP_SCHED_T_WOKEN |
				 AP_SCHED_T_CLIPPED)) | AP_SCHED_T_OFF;
	t->out_ts = now;
	t->out_cpu = cpu;
	t->prev_state = prev_state;
	t->waker_pid = 0;
	t->waker_tid = 0;
	if (ap_sched_totals)
		return;

	rec = bpf_map_lookup_elem(&sched_stk, &tid);
	if (!rec) {
		struct ap_ev_sched_off *z = bpf_map_lookup_elem(&sched_zero,
								&zero);

		if (!z || bpf_map_update_elem(&sched_stk, &tid, z, BPF_NOEXIST)) {
			ap_count(AP_STAT_SCHED_TABLE_FULL);
			return;
		}
		rec = bpf_map_lookup_elem(&sched_stk, &tid);
		if (!rec)
			return;
	}
	/* sched_switch runs in prev's context: these are its stacks */
	ap_get_stacks_c(ctx, &rec->st, 1, 1, &sched_uw);
}

static __always_inline void emit_off(struct task_struct *next,
				     struct ap_sched_thread *t, __u32 tid,
				     __u64 now, __u32 cpu, __u64 off,
				     __u64 wake_lat, __u32 flags)
{
	struct ap_ev_sched_off *e = bpf_map_lookup_elem(&sched_stk, &tid);
	__u32 one = 1;
	__u64 size;

	if (!e) {
		/* no stacks (off since before recording began, or the
		 * table was full at switch-out): send the times */
		e = bpf_map_lookup_elem(&sched_zero, &one);
		if (!e)
			return;
		e->st.kstack_sz = 0;
		e->st.ustack_sz = 0;
		e->st.uflags = 0;
		e->st.py_n = 0;
	}
	e->hdr.type = AP_EV_SCHED;
	e->hdr.pid = t->pid;
	e->hdr.tid = tid;
	e->hdr.cpu = cpu;
	e->hdr.ts = now;
	e->kind = AP_SCHED_EV_OFF;
	e->state = t->out_state;
	e->off_ns = off;
	e->wakeup_ns = wake_lat;
	e->out_cpu = t->out_cpu;
	e->prev_state = t->prev_state;
	e->waker_pid = t->waker_pid;
	e->waker_tid = t->waker_tid;
	e->flags = flags;
	e->pad = 0;
	e->start_ns = t->start_ns;
	BPF_CORE_READ_STR_INTO(&e->comm, next, comm);
	/* only the frames travel */
	size = AP_SCHED_OFF_HDR_SIZE + (__u64)(__u32)e->st.kstack_sz +
	       (__u64)(__u32)e->st.ustack_sz + (__u64)e->st.py_n * 16;
	if (size > sizeof(*e))
		size = sizeof(*e);
	/* no wake-up per record: the reader it would wake preempts the
	 * target (on a busy machine), and every preemption is another
	 * interval; the reader takes the ring on every pass anyway */
	ap_output_task(e, size, next);
}

static __always_inline void switch_in(struct task_struct *next, __u32 tgid,
				      __u32 tid, __u64 now, __u32 cpu)
{
	struct ap_sched_thread *t = bpf_map_lookup_elem(&sched_thr, &tid);
	__u64 off, wake_lat = 0;
	__u32 flags = 0;

	if (!t) {
		/* off-CPU since before recording began, in an unknown state:
		 * accounting starts now */
		if (BPF_CORE_READ(next, flags) & PF_EXITING_FLAG)
			return;
		new_thread(next, tid, tgid, AP_SCHED_T_ON, now, 0, cpu);
		return;
	}
	/* the same for a switch-out never reported */
	if (t->flags & AP_SCHED_T_ON)
		unseen_switch(next, t);
	if (t->last_cpu != (__u32)-1 && t->last_cpu != cpu)
		t->migrations++;
	t->last_cpu = cpu;
	set_cpu(t, cpu);
	if ((t->flags & AP_SCHED_T_WOKEN) && now >= t->wake_ts) {
		wake_lat = now - t->wake_ts;
		t->wakeups++;
		t->wakeup_total_ns += wake_lat;
		if (wake_lat > t->wakeup_max_ns)
			t->wakeup_max_ns = wake_lat;
	}
	if ((t->flags & AP_SCHED_T_OFF) && now >= t->out_ts) {
		off = now - t->out_ts;
		if (t->flags & AP_SCHED_T_CLIPPED)
			flags |= AP_SCHED_F_CLIPPED;
		if (t->out_state == AP_SCHED_PREEMPTED) {
			t->runnable_ns += off;
		} else if ((t->flags & AP_SCHED_T_WOKEN) &&
			   t->wake_ts >= t->out_ts) {
			t->blocked_ns += t->wake_ts - t->out_ts;
			t->runnable_ns += wake_lat;
		} else {
			t->blocked_ns += off;
			flags |= AP_SCHED_F_NO_WAKEUP;
		}
		if (off >= ap_sched_min_block_ns && !ap_sched_totals) {
			emit_off(next, t, tid, now, cpu, off, wake_lat,
				 flags);
		} else {
			t->short_nr++;
			t->short_ns += off;
		}
	} else if (t->flags & AP_SCHED_T_WOKEN) {
		/* a new thread's first run: it waited for a CPU */
		t->runnable_ns += wake_lat;
	}
	t->flags = (t->flags & ~(AP_SCHED_T_OFF | AP_SCHED_T_WOKEN |
				 AP_SCHED_T_CLIPPED)) | AP_SCHED_T_ON;
	t->in_ts = now;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ap_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 tgid, tid;

	/* plain loads: prev and next are BTF pointers (a probe read each
	 * cost more than the loads it guarded) */
	tid = prev->pid;
	tgid = prev->tgid;
	if (tid && ap_is_target(tgid))
		switch_out(ctx, prev, tgid, tid, preempt, prev_state, now, cpu);
	/* next is not current: filtered on itself */
	tid = next->pid;
	tgid = next->tgid;
	if (tid && ap_task_is_target(next, tgid, tid))
		switch_in(next, tgid, tid, now, cpu);
	return 0;
}

static __always_inline void on_wakeup(struct task_struct *p, int is_new)
{
	__u32 tgid = p->tgid;
	__u32 tid = p->pid;
	struct ap_sched_thread *t;
	__u64 now, id;

	/* woken by another thread: filtered on itself */
	if (!tid || !ap_task_is_target(p, tgid, tid))
		return;
	now = bpf_ktime_get_ns();
	id = bpf_get_current_pid_tgid();
	t = bpf_map_lookup_elem(&sched_thr, &tid);
	if (!t) {
		if (!is_new)
			return;
		t = new_thread(p, tid, tgid, AP_SCHED_T_WOKEN, 0, now,
			       (__u32)-1);
		if (t) {
			t->waker_pid = id >> 32;
			t->waker_tid = (__u32)id;
		}
		return;
	}
	/* only a sleeping thread's wakeup ends its blocked time; waking a
	 * preempted or running one changes nothing */
	if (!(t->flags & AP_SCHED_T_OFF) || (t->flags & AP_SCHED_T_WOKEN) ||
	    t->out_state != AP_SCHED_BLOCKED)
		return;
	t->wake_ts = now;
	t->flags |= AP_SCHED_T_WOKEN;
	t->waker_pid = id >> 32;
	t->waker_tid = (__u32)id;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(ap_sched_wakeup, struct task_struct *p)
{
	on_wakeup(p, 0);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(ap_sched_wakeup_new, struct task_struct *p)
{
	on_wakeup(p, 1);
	return 0;
}

/*
 * A thread exits: its final totals go out now and its entries are freed.
 * Not filtered by the target set: task.bpf.c may already have removed
 * the process, and only targets have entries anyway.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(ap_sched_exit, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct ap_ev_sched_thread *e;
	struct ap_sched_thread *t;
	__u64 now;

	t = bpf_map_lookup_elem(&sched_thr, &tid);
	if (!t)
		return 0;
	now = bpf_ktime_get_ns();
	set_on(p, t);
	/* it runs this program, so it was switched in since it left */
	if (!(t->flags & AP_SCHED_T_ON))
		unseen_switch_in(p, t);
	t->in_ts = now;
	t->flags |= AP_SCHED_T_EXITED;
	e = ap_reserve(sizeof(*e));
	if (e) {
		e->hdr.type = AP_EV_SCHED;
		e->hdr.pid = t->pid;
		e->hdr.tid = tid;
		e->hdr.cpu = bpf_get_smp_processor_id();
		e->hdr.ts = now;
		e->kind = AP_SCHED_EV_THREAD;
		e->pad = 0;
		BPF_CORE_READ_STR_INTO(&e->comm, p, comm);
		__builtin_memcpy(&e->t, t, sizeof(e->t));
		ap_submit(e, sizeof(*e));
	}
	bpf_map_delete_elem(&sched_thr, &tid);
	bpf_map_delete_elem(&sched_stk, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
