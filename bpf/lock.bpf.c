// SPDX-License-Identifier: GPL-2.0
/*
 * Lock contention, three sources:
 *  - futex waits (syscalls:sys_enter/exit_futex): the user lock address,
 *    the time spent waiting, the result and the waiter's stacks;
 *  - kernel lock contention (lock:contention_begin/end): lock address,
 *    LCB_F_* flags, wait time and stacks;
 *  - pthread mutexes (uprobes on glibc's slow paths, opt-in): the wait of
 *    each acquisition that waited, and how long it then held the mutex.
 * A wait is kept per thread between its two halves; a full table is
 * counted in AP_STAT_LOCK_TABLE_FULL, never silently dropped.
 */
#include "common.bpf.h"
#include "lock.h"

/* from linux/futex.h: the commands that block the caller */
#define FUTEX_WAIT		0
#define FUTEX_LOCK_PI		6
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_LOCK_PI2		13
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_CMD_MASK		(~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME))

#define KSTACK_SKIP		2

struct wait_start {
	__u64 ts;
	__u64 addr;
	__u32 flags;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_LOCK_INFLIGHT);
	__type(key, __u32);			/* tid */
	__type(value, struct wait_start);
} lock_futex_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_LOCK_INFLIGHT);
	__type(key, __u32);			/* tid */
	__type(value, struct wait_start);
} lock_kernel_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_LOCK_INFLIGHT);
	__type(key, __u32);			/* tid */
	__type(value, struct wait_start);
} lock_pthread_start SEC(".maps");

struct held_key {
	__u32 tid;
	__u32 pad;
	__u64 addr;
};

/* a pthread mutex taken after a wait: when (its hold ends at the
 * unlock's wake-up of the next waiter) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_LOCK_HELD_MAX);
	__type(key, struct held_key);
	__type(value, __u64);
} lock_held SEC(".maps");

/* set before load (stat): waits only summed in ap_lock_sums */
const volatile __u8 ap_lock_summed = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AP_LOCK_SUM_KINDS);
	__type(key, __u32);
	__type(value, struct ap_lock_sum);
} ap_lock_sums SEC(".maps");

/* a wait added to its kind's totals, in this CPU's slot: atomic adds,
 * as a program preempted on its CPU may meet another of its kind */
static __always_inline void sum_wait(__u32 kind, __u64 ns, int result)
{
	struct ap_lock_sum *s = bpf_map_lookup_elem(&ap_lock_sums, &kind);

	if (!s)
		return;
	__sync_fetch_and_add(&s->waits, 1);
	__sync_fetch_and_add(&s->wait_ns, ns);
	if (ns > s->max_ns)
		s->max_ns = ns;
	if (result < 0)
		__sync_fetch_and_add(&s->errors, 1);
}

static __always_inline int wait_begin(void *map, __u64 addr, __u32 flags)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct wait_start w = {};

	if (!ap_is_target(id >> 32))
		return 0;
	w.ts = bpf_ktime_get_ns();
	w.addr = addr;
	w.flags = flags;
	if (bpf_map_update_elem(map, &tid, &w, BPF_ANY))
		ap_count(AP_STAT_LOCK_TABLE_FULL);
	return 0;
}

static __always_inline struct ap_ev_lock *
lock_record(__u32 kind, __u64 addr, __u64 wait_ns, __u32 flags, int result)
{
	struct ap_ev_lock *e = ap_reserve_st(sizeof(*e));

	if (!e)
		return NULL;
	ap_fill_hdr(&e->hdr, AP_EV_LOCK);
	e->lock_addr = addr;
	e->wait_ns = wait_ns;
	e->hold_ns = 0;
	e->kind = kind;
	e->flags = flags;
	e->result = result;
	e->cls = AP_EVLOCK_CLS_NONE;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

SEC("tp/syscalls/sys_enter_futex")
int ap_lock_futex_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u32 op = (__u32)ctx->args[1];

	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_WAIT_REQUEUE_PI:
		return wait_begin(&lock_futex_start, ctx->args[0], op);
	}
	return 0;
}

SEC("tp/syscalls/sys_exit_futex")
int ap_lock_futex_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wait_start *w = bpf_map_lookup_elem(&lock_futex_start, &tid);
	struct ap_ev_lock *e;
	struct wait_start s;

	if (!w)
		return 0;
	s = *w;
	bpf_map_delete_elem(&lock_futex_start, &tid);
	if (ap_lock_summed) {
		sum_wait(AP_EVLOCK_FUTEX, bpf_ktime_get_ns() - s.ts,
			 (int)ctx->ret);
		return 0;
	}
	e = lock_record(AP_EVLOCK_FUTEX, s.addr, bpf_ktime_get_ns() - s.ts,
			s.flags, (int)ctx->ret);
	if (!e)
		return 0;
	ap_get_stacks(ctx, &e->st, 0, 1);
	ap_submit_st(e);
	return 0;
}

SEC("tp_btf/contention_begin")
int BPF_PROG(ap_lock_kernel_begin, void *lock, unsigned int flags)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wait_start *w = bpf_map_lookup_elem(&lock_kernel_start, &tid);

	/* a mutex spins (LCB_F_SPIN) then sleeps on the same lock: one
	 * contention, timed from the first begin; a begin nested under
	 * another lock's wait is not timed (the outer one is) */
	if (w) {
		if (w->addr == (__u64)lock)
			w->flags |= flags;
		return 0;
	}
	return wait_begin(&lock_kernel_start, (__u64)lock, flags);
}

SEC("tp_btf/contention_end")
int BPF_PROG(ap_lock_kernel_end, void *lock, int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wait_start *w = bpf_map_lookup_elem(&lock_kernel_start, &tid);
	struct task_struct *task;
	struct mm_struct *mm;
	struct sighand_struct *sh;
	struct ap_ev_lock *e;
	struct wait_start s;
	long ksz;
	__u32 nk;

	if (!w || w->addr != (__u64)lock)
		return 0;
	s = *w;
	bpf_map_delete_elem(&lock_kernel_start, &tid);
	if (ap_lock_summed) {
		sum_wait(AP_EVLOCK_KERNEL, bpf_ktime_get_ns() - s.ts, ret);
		return 0;
	}
	e = lock_record(AP_EVLOCK_KERNEL, s.addr, bpf_ktime_get_ns() - s.ts,
			s.flags, ret);
	if (!e)
		return 0;
	/* locks inside per-task objects have no symbol: name the two that
	 * matter most, as perf lock contention does */
	task = (struct task_struct *)bpf_get_current_task();
	mm = BPF_CORE_READ(task, mm);
	sh = BPF_CORE_READ(task, sighand);
	if (mm && (__u64)&mm->mmap_lock == s.addr)
		e->cls = AP_EVLOCK_CLS_MMAP;
	else if (sh && (__u64)&sh->siglock == s.addr)
		e->cls = AP_EVLOCK_CLS_SIGHAND;
	/* the first two kernel frames are this program and
	 * bpf_trace_run2: skip them, the lock's slow path comes next */
	ksz = bpf_get_stack(ctx, e->st.ips, AP_MAX_KSTACK * sizeof(__u64),
			    KSTACK_SKIP & BPF_F_SKIP_FIELD_MASK);
	if (ksz < 0) {
		ap_count(AP_STAT_KSTACK_ERR);
		ksz = 0;
	}
	nk = (__u32)ksz / sizeof(__u64);
	if (nk > AP_MAX_KSTACK)
		nk = AP_MAX_KSTACK;
	e->st.kstack_sz = nk * sizeof(__u64);
	e->st.uflags = 0;
	e->st.py_n = 0;
	e->st.ustack_sz = ap_user_stack(ctx, &e->st.ips[nk], AP_MAX_USTACK,
					&e->st.uflags);
	ap_submit_st(e);
	return 0;
}

/*
 * pthread mutexes, slow paths only (libbpf 1.1 has no BPF_UPROBE: the
 * kprobe macros read the same pt_regs).  glibc's pthread_mutex_lock calls
 * __lll_lock_wait(futex, private) only when its compare-and-swap failed,
 * and returns from it owning the mutex with the word at 2 ("waiters"), so
 * that its unlock calls __lll_lock_wake(futex, private): an uncontended
 * acquisition runs no probe at all.  The futex word is the first member
 * of pthread_mutex_t: its address is the mutex's.
 */
SEC("uprobe")
int BPF_KPROBE(ap_lock_pthread_wait, void *futex)
{
	return wait_begin(&lock_pthread_start, (__u64)futex, 0);
}

SEC("uretprobe")
int BPF_KRETPROBE(ap_lock_pthread_wait_ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wait_start *w = bpf_map_lookup_elem(&lock_pthread_start, &tid);
	struct held_key k = {};
	struct ap_ev_lock *e;
	struct wait_start s;
	__u64 now;

	if (!w)
		return 0;
	s = *w;
	bpf_map_delete_elem(&lock_pthread_start, &tid);
	now = bpf_ktime_get_ns();
	if (ap_lock_summed) {
		sum_wait(AP_EVLOCK_PTHREAD, now - s.ts, 0);
		return 0;
	}
	k.tid = tid;
	k.addr = s.addr;
	if (bpf_map_update_elem(&lock_held, &k, &now, BPF_ANY))
		ap_count(AP_STAT_LOCK_TABLE_FULL);
	e = lock_record(AP_EVLOCK_PTHREAD, s.addr, now - s.ts, 0, 0);
	if (!e)
		return 0;
	/* from the return into pthread_mutex_lock: the leaf is a return
	 * address, its caller's frame pointer untouched */
	ap_get_stacks(ctx, &e->st, 0, 1);
	ap_submit_st(e);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(ap_lock_pthread_wake, void *futex)
{
	struct held_key k = {};
	struct ap_ev_lock *e;
	__u64 *acquired, now;

	k.tid = (__u32)bpf_get_current_pid_tgid();
	k.addr = (__u64)futex;
	/* woken by a thread not seen waiting for it: nothing to time */
	acquired = bpf_map_lookup_elem(&lock_held, &k);
	if (!acquired)
		return 0;
	now = bpf_ktime_get_ns();
	e = lock_record(AP_EVLOCK_PTHREAD, k.addr, 0, AP_EVLOCK_F_HOLD, 0);
	if (e) {
		e->hold_ns = now - *acquired;
		e->st.kstack_sz = 0;
		e->st.ustack_sz = 0;
		e->st.uflags = 0;
		e->st.py_n = 0;
		ap_submit_st(e);
	}
	bpf_map_delete_elem(&lock_held, &k);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
