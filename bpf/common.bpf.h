/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every aperture BPF program shares: the ring buffer, the target set
 * and the knobs set by user space before load; the drop counters and the
 * scratch pools are in base.bpf.h, the user stack unwinder (which needs
 * only those) in unwind.bpf.h.
 *
 * Each bpf/<sensor>.bpf.c is compiled on its own and the objects are linked
 * into one with `bpftool gen object`.  The maps and globals below are
 * defined __weak with identical definitions in every unit, so the linker
 * keeps a single instance of each.
 */
#ifndef APERTURE_COMMON_BPF_H
#define APERTURE_COMMON_BPF_H

#include "base.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, AP_RINGBUF_BYTES);
} events SEC(".maps") __weak;

/* thread group ids being recorded; value unused */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_MAX_TARGETS);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps") __weak;

/* record -t: the threads recorded; value unused */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_MAX_TIDS);
	__type(key, __u32);
	__type(value, __u8);
} ap_tids SEC(".maps") __weak;

/* set by user space before load */
const volatile __u32 ap_filter_targets __weak = 1;	/* 0: -a */
const volatile __u32 ap_self_pid __weak = 0;		/* never profile ourselves */
/* record -t, -C, -u, -G: the thread an event runs for must be one of
 * ap_tids, on a CPU of ap_cpu_mask, of user ap_uid, in cgroup
 * ap_cgroup_id (level ap_cgroup_level of the cgroup v2 tree) or below */
const volatile __u32 ap_filter_tids __weak = 0;
const volatile __u32 ap_filter_cpus __weak = 0;
const volatile __u64 ap_cpu_mask[AP_MAX_CPUS / 64] __weak = { 0 };
const volatile __u32 ap_filter_uid __weak = 0;
const volatile __u32 ap_uid __weak = 0;
const volatile __u64 ap_cgroup_id __weak = 0;		/* 0: any */
const volatile __u32 ap_cgroup_level __weak = 0;
/* set by user space when recording stops: nothing new is traced, so that
 * the final drain ends under any load (calls in flight still complete) */
volatile __u32 ap_stopped __weak;
/* record -d: the window's end (bpf_ktime_get_ns), set by user space as
 * the sensors attach; 0: none.  Nothing is traced from then on, so that
 * the recording holds the window and no more however late its reader is */
volatile __u64 ap_end_ns __weak;

static __always_inline int ap_past_end(void)
{
	return ap_end_ns && bpf_ktime_get_ns() >= ap_end_ns;
}

/* is tgid one of the processes recorded (the target set alone)? */
static __always_inline int ap_in_targets(__u32 tgid)
{
	if (tgid == ap_self_pid || ap_stopped || ap_past_end())
		return 0;
	if (!ap_filter_targets)
		return 1;
	return bpf_map_lookup_elem(&targets, &tgid) != NULL;
}

/* is this CPU one of -C's (any without -C)? */
static __always_inline int ap_cpu_passes(void)
{
	__u32 cpu;

	if (!ap_filter_cpus)
		return 1;
	cpu = bpf_get_smp_processor_id();
	return cpu < AP_MAX_CPUS &&
	       (ap_cpu_mask[cpu / 64] & (1ull << (cpu % 64)));
}

/* does the current thread pass record's -t, -C, -u and -G? */
static __always_inline int ap_current_passes(__u64 pid_tgid)
{
	if (!ap_cpu_passes())
		return 0;
	if (ap_filter_tids) {
		__u32 tid = (__u32)pid_tgid;

		if (!bpf_map_lookup_elem(&ap_tids, &tid))
			return 0;
	}
	if (ap_filter_uid && (__u32)bpf_get_current_uid_gid() != ap_uid)
		return 0;
	if (ap_cgroup_id &&
	    bpf_get_current_ancestor_cgroup_id(ap_cgroup_level) != ap_cgroup_id)
		return 0;
	return 1;
}

/*
 * Is an event of tgid recorded?  It must be a target, and when it runs in
 * the current thread (most events), that thread must pass -t, -C, -u and
 * -G.  Events a thread causes in another (a wake-up, the next task of a
 * switch) are kept: its own events are filtered.
 */
static __always_inline int ap_is_target(__u32 tgid)
{
	__u64 id;

	if (!ap_in_targets(tgid))
		return 0;
	if (!ap_filter_tids && !ap_filter_cpus && !ap_filter_uid &&
	    !ap_cgroup_id)
		return 1;
	id = bpf_get_current_pid_tgid();
	return id >> 32 != tgid || ap_current_passes(id);
}

/* the cgroup v2 id of t's ancestor at ap_cgroup_level (itself at its
 * own level), as bpf_get_current_ancestor_cgroup_id gives current's; 0
 * when t is not that deep */
static __always_inline __u64 ap_task_ancestor_cgroup_id(struct task_struct *t)
{
	struct cgroup *cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);
	struct cgroup *anc = NULL;

	if (!cg || BPF_CORE_READ(cg, level) < (int)ap_cgroup_level)
		return 0;
	if (bpf_probe_read_kernel(&anc, sizeof(anc), (void *)cg +
				  bpf_core_field_offset(struct cgroup,
							ancestors) +
				  (__u64)ap_cgroup_level * sizeof(anc)) ||
	    !anc)
		return 0;
	return BPF_CORE_READ(anc, kn, id);
}

/*
 * ap_is_target for an event of thread t (tid, of process tgid), which
 * need not be the current one: the next task of a switch, the thread a
 * wakeup wakes.  -t, -u and -G are checked on t itself, not on the thread
 * that caused the event (another user's, under -u: its switches and
 * wakeups would make everyone's threads the sched view's); -C on the CPU
 * it happens on, this one.
 */
static __always_inline int ap_task_is_target(struct task_struct *t,
					     __u32 tgid, __u32 tid)
{
	if (!ap_in_targets(tgid))
		return 0;
	if (!ap_filter_tids && !ap_filter_cpus && !ap_filter_uid &&
	    !ap_cgroup_id)
		return 1;
	if (!ap_cpu_passes())
		return 0;
	if (ap_filter_tids && !bpf_map_lookup_elem(&ap_tids, &tid))
		return 0;
	if (ap_filter_uid && BPF_CORE_READ(t, cred, uid.val) != ap_uid)
		return 0;
	if (ap_cgroup_id && ap_task_ancestor_cgroup_id(t) != ap_cgroup_id)
		return 0;
	return 1;
}

static __always_inline void ap_fill_hdr(struct ap_ev_hdr *h, __u32 type)
{
	__u64 id = bpf_get_current_pid_tgid();

	h->type = type;
	h->pid = id >> 32;
	h->tid = (__u32)id;
	h->cpu = bpf_get_smp_processor_id();
	h->ts = bpf_ktime_get_ns();
}

/* reserve a ring buffer record, counting the drop when it is full */
static __always_inline void *ap_reserve(__u64 size)
{
	void *p = bpf_ringbuf_reserve(&events, size, 0);

	if (!p)
		ap_count(AP_STAT_RB_DROP);
	return p;
}

/*
 * Waking the reader on every record costs an interrupt per record (a
 * self-IPI, a VM exit under virtualisation): more than the tracing itself
 * at high rates.  The reader consumes the ring at least every 100 ms
 * anyway, so it is woken only when the data waiting crosses this mark:
 * once per half MiB at most, an eighth of the ring when it is smaller
 * (set by user space with the ring's size, record -m).
 */
const volatile __u64 ap_wakeup_bytes __weak = 512 * 1024;

/* the flags for a record of size bytes when avail bytes were waiting
 * before it (each record adds an 8-byte header) */
static __always_inline __u64 ap_wakeup_flags(__u64 avail, __u64 size)
{
	if (avail < ap_wakeup_bytes && avail + size + 8 >= ap_wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void ap_submit(void *e, __u64 size)
{
	/* avail counts this record already: it is reserved */
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	bpf_ringbuf_submit(e, ap_wakeup_flags(avail - size - 8, size));
}

/* bpf_ringbuf_output() with the same wake-up rule as ap_submit() */
static __always_inline void ap_output(void *e, __u64 size)
{
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	if (bpf_ringbuf_output(&events, e, size, ap_wakeup_flags(avail, size)))
		ap_count(AP_STAT_RB_DROP);
}

/* ap_output() of task's record, sent from another thread's context (a
 * switch-in runs in the task leaving): a drop is task's loss */
static __always_inline void ap_output_task(void *e, __u64 size, void *task)
{
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	if (bpf_ringbuf_output(&events, e, size, ap_wakeup_flags(avail, size)))
		ap_count_task(AP_STAT_RB_DROP, task);
}

#include "unwind.bpf.h"
#include "python.bpf.h"

/* the Python frames of the current thread into st, right after its
 * kernel and user frames (kstack_sz and ustack_sz set) */
static __always_inline void ap_py_stacks(struct ap_stacks *st)
{
	__u32 n = ((__u32)st->kstack_sz + (__u32)st->ustack_sz) /
		  sizeof(__u64);

	if (n > AP_MAX_KSTACK + AP_MAX_USTACK)
		n = AP_MAX_KSTACK + AP_MAX_USTACK;
	asm volatile("" : "+r"(n));
	if (n <= AP_MAX_KSTACK + AP_MAX_USTACK)
		st->py_n = ap_py_stack((struct ap_py_frames *)&st->ips[n]);
}

/*
 * Fill st with the kernel stack (want_kernel) and the user stack
 * (want_user, from CFI or frame pointers) of the current task, the user
 * frames packed after the kernel ones; ctx is the program's context; cmap:
 * the task storage map of each thread's last user stack (ap_uw_cache), or
 * NULL.
 */
static __always_inline void ap_get_stacks_c(void *ctx, struct ap_stacks *st,
					    int want_kernel, int want_user,
					    void *cmap)
{
	long ksz = 0;
	__u32 nk;

	st->kstack_sz = 0;
	st->ustack_sz = 0;
	st->uflags = 0;
	st->py_n = 0;
	if (want_kernel) {
		ksz = bpf_get_stack(ctx, st->ips,
				    AP_MAX_KSTACK * sizeof(__u64), 0);
		if (ksz < 0) {
			ap_count(AP_STAT_KSTACK_ERR);
			ksz = 0;
		}
	}
	nk = (__u32)ksz / sizeof(__u64);
	if (nk > AP_MAX_KSTACK)
		nk = AP_MAX_KSTACK;
	st->kstack_sz = nk * sizeof(__u64);
	if (want_user) {
		st->ustack_sz = ap_user_stack_c(ctx, &st->ips[nk],
						AP_MAX_USTACK, &st->uflags, cmap);
		ap_py_stacks(st);
	}
}

static __always_inline void ap_get_stacks(void *ctx, struct ap_stacks *st,
					  int want_kernel, int want_user)
{
	ap_get_stacks_c(ctx, st, want_kernel, want_user, NULL);
}

/*
 * Records that carry stacks are built in a per-CPU buffer and sent cut
 * after their last frame: a full-depth record is 3 KiB, a typical one a
 * tenth of that, and the ring holds that many more.
 */
#define AP_REC_MAX		(4096 + AP_MAX_PYSTACK * 16)	/* + Python's */

struct ap_rec_buf {
	__u8 data[AP_REC_MAX];	/* the record, from the start */
	__u32 slot;		/* which buffer of the pool, to give back */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AP_NEST_SLOTS);
	__type(key, __u32);
	__type(value, struct ap_rec_buf);
} ap_rec_scratch SEC(".maps") __weak;

/*
 * A buffer for a record of size bytes; every path then sends it
 * (ap_submit_st, for one that ends with a struct ap_stacks) or gives it
 * back (ap_release_st).  With all buffers of the CPU taken (four programs
 * nested) the record is lost, counted as a ring buffer drop.
 */
static __always_inline void *ap_reserve_st(__u64 size)
{
	struct ap_rec_buf *b;
	__u32 slot;

	if (size > AP_REC_MAX)
		return NULL;
	slot = ap_slot_take(AP_POOL_REC);
	if (slot >= AP_NEST_SLOTS) {
		ap_count(AP_STAT_RB_DROP);
		return NULL;
	}
	b = bpf_map_lookup_elem(&ap_rec_scratch, &slot);
	if (!b) {
		ap_slot_give(AP_POOL_REC, slot);
		return NULL;
	}
	b->slot = slot;
	return b;
}

static __always_inline void ap_release_st(void *e)
{
	ap_slot_give(AP_POOL_REC, ((struct ap_rec_buf *)e)->slot);
}

/* send the first hdr + frames bytes of e; hdr: offset of its st.ips */
static __always_inline void ap_output_st(void *e, __u64 hdr,
					 const struct ap_stacks *st)
{
	__u64 size = hdr + (__u64)(__u32)st->kstack_sz +
		     (__u64)(__u32)st->ustack_sz + (__u64)st->py_n * 16;

	if (size > AP_REC_MAX)
		size = AP_REC_MAX;
	ap_output(e, size);
	ap_release_st(e);
}

#define ap_submit_st(e) \
	ap_output_st((e), __builtin_offsetof(typeof(*(e)), st.ips), &(e)->st)

#endif /* APERTURE_COMMON_BPF_H */
