// SPDX-License-Identifier: GPL-2.0
/*
 * Syscalls of the targets: raw_syscalls sys_enter stores the entry time per
 * thread in an in-flight table, sys_exit takes it out and emits one record
 * with the duration and return value.  Only targets enter the table, so
 * sys_exit needs no target check: a miss (or an entry with ts 0, between
 * calls) is a call that began before the recording (or that did not fit in
 * the table, counted at entry).
 */
#include "common.bpf.h"
#include "syscall.h"
#include "syscall_maps.bpf.h"

/* set by user space before load (lib/syscall/sensor.c) */
const volatile __u32 ap_sc_stacks = 0;		/* --syscall-stacks */
/* per-call records (syscall:calls or stacks); else in-kernel totals */
const volatile __u32 ap_sc_calls = 0;
/* syscall numbers of this architecture, from <sys/syscall.h> */
const volatile __s64 ap_sc_nr_exit = -1;
const volatile __s64 ap_sc_nr_exit_group = -1;
const volatile __s64 ap_sc_nr_execve = -1;
const volatile __s64 ap_sc_nr_execveat = -1;

/*
 * set by user space after load: the command that record forked and holds
 * until the probes are attached.  Until its execve returns, its calls are
 * aperture's own (the wait for the go signal), not the command's.
 */
__u32 ap_sc_preexec_tgid = 0;

/*
 * set by user space before load: 0 with --max-inflight, whose bound is on
 * calls in flight.  Else a thread's entry in ap_sc_inflight stays from one
 * call to the next (ts 0 between calls) and is freed when the thread exits
 * (ap_task_exit): an update at entry and a delete at exit cost 40 % of the
 * two programs' run time, a look-up and a store in place a fraction.
 */
const volatile __u32 ap_sc_reuse = 1;

/* totals: sized by user space (1 entry when unused) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_SC_SUMS_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ap_sc_key);
	__type(value, struct ap_sc_sum);
} ap_sc_sums SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_SC_ERRS_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ap_sc_key);
	__type(value, __u64);
} ap_sc_errs SEC(".maps");

/* an all-zero entry to create ap_sc_sums entries from (too large for the
 * BPF stack) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ap_sc_sum);
} ap_sc_zero SEC(".maps");

static __always_inline __u32 ilog2(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

/* ap_hist__bucket() of lib/syscall/syscalls.c */
static __always_inline __u32 hist_bucket(__u64 ns)
{
	__u32 k;

	if (ns < 64)
		return 0;
	if (ns < 1000)
		return ilog2(ns) - 5;
	k = 5 + ilog2(ns / 1000);
	return k < AP_SC_HIST ? k : AP_SC_HIST - 1;
}

/*
 * Adds one call to the totals.  Returns 0, or -1 when its entry does not
 * fit: the caller sends it as a record instead.
 */
static __always_inline int sum_add(__u64 pid_tgid, __u32 id, __u64 dur,
				   __s64 ret, int noreturn)
{
	struct ap_sc_key k = { pid_tgid >> 32, (__u32)pid_tgid, id, 0 };
	struct ap_sc_sum *s = bpf_map_lookup_elem(&ap_sc_sums, &k);
	__u32 zero = 0;
	__u64 one = 1, *n;

	if (!s) {
		struct ap_sc_sum *z = bpf_map_lookup_elem(&ap_sc_zero, &zero);

		if (!z)
			return -1;
		bpf_get_current_comm(z->comm, sizeof(z->comm));
		bpf_map_update_elem(&ap_sc_sums, &k, z, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&ap_sc_sums, &k);
		if (!s)
			return -1;
	}
	if (ret < 0 && ret >= -4095) {
		k.err = (__u32)-ret;
		n = bpf_map_lookup_elem(&ap_sc_errs, &k);
		if (n)
			(*n)++;
		else if (bpf_map_update_elem(&ap_sc_errs, &k, &one,
					     BPF_NOEXIST))
			return -1;
	}
	s->calls++;
	if (noreturn) {
		s->noreturn++;
		return 0;
	}
	s->total_ns += dur;
	if (dur > s->max_ns)
		s->max_ns = dur;
	k.id = hist_bucket(dur);
	if (k.id < AP_SC_HIST)
		s->hist[k.id]++;
	return 0;
}

static __always_inline void fill(struct ap_ev_syscall *e, __u64 pid_tgid,
				 __u64 ts, __u64 dur, __s64 ret, __u32 id,
				 __u32 flags)
{
	e->hdr.type = AP_EV_SYSCALL;
	e->hdr.pid = pid_tgid >> 32;
	e->hdr.tid = (__u32)pid_tgid;
	e->hdr.cpu = bpf_get_smp_processor_id();
	e->hdr.ts = ts;
	e->duration_ns = dur;
	e->ret = ret;
	e->id = id;
	e->flags = flags;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
}

SEC("tp_btf/sys_enter")
int BPF_PROG(ap_syscall_enter, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, tgid = pid_tgid >> 32;
	struct ap_sc_start s, *p = NULL;

	if (ap_sc_reuse)
		p = bpf_map_lookup_elem(&ap_sc_inflight, &tid);
	/*
	 * This thread's entry (its tgid's) says that it is a target: only
	 * targets get one, and a process leaves the target set when its
	 * last thread exits, which frees the entry (ap_task_exit; an exec
	 * that changes the tid, ap_task_exec).  -t, -C, -u and -G are
	 * tested on every call.
	 */
	if (p && p->tgid == tgid && !ap_filter_tids && !ap_filter_cpus &&
	    !ap_filter_uid && !ap_cgroup_id) {
		if (ap_stopped || ap_past_end())
			return 0;
	} else if (!ap_is_target(tgid)) {
		return 0;
	}
	if (ap_sc_preexec_tgid == tgid && id != ap_sc_nr_execve &&
	    id != ap_sc_nr_execveat)
		return 0;
	s.ts = bpf_ktime_get_ns();
	if (id == ap_sc_nr_exit || id == ap_sc_nr_exit_group) {
		/* no sys_exit will come: the call is recorded now, so that
		 * the table does not keep a dead thread's entry */
		struct ap_ev_syscall *e;

		if (!ap_sc_calls && !sum_add(pid_tgid, (__u32)id, 0, 0, 1))
			return 0;
		e = ap_reserve(sizeof(*e));

		if (e) {
			fill(e, pid_tgid, s.ts, 0, 0, (__u32)id,
			     AP_SC_NORETURN);
			ap_submit(e, sizeof(*e));
		}
		return 0;
	}
	s.id = (__u32)id;
	s.tgid = pid_tgid >> 32;
	if (p) {
		*p = s;			/* only this thread writes its entry */
		return 0;
	}
	if (bpf_map_update_elem(&ap_sc_inflight, &tid, &s, BPF_ANY))
		ap_count(AP_STAT_SYSCALL_TABLE_FULL);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ap_syscall_exit, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct ap_sc_start *s, start;
	__u64 now = bpf_ktime_get_ns();

	s = bpf_map_lookup_elem(&ap_sc_inflight, &tid);
	if (!s || !s->ts)
		return 0;
	start = *s;
	if (ap_sc_reuse)
		s->ts = 0;		/* no call in flight */
	else
		bpf_map_delete_elem(&ap_sc_inflight, &tid);
	if (ret == 0 && start.tgid == ap_sc_preexec_tgid)
		ap_sc_preexec_tgid = 0;		/* the command runs */
	if (!ap_sc_calls &&
	    !sum_add(pid_tgid, start.id, now - start.ts, ret, 0))
		return 0;

	/*
	 * The user stack is walked here, from the user registers saved at
	 * entry: it is the caller's stack at entry, except after an execve
	 * that succeeded, whose caller's image is gone.
	 */
	if (ap_sc_stacks &&
	    !(ret == 0 && (start.id == ap_sc_nr_execve ||
			   start.id == ap_sc_nr_execveat))) {
		struct ap_ev_syscall_stack *e = ap_reserve_st(sizeof(*e));

		if (!e)
			return 0;
		fill(&e->sc, pid_tgid, start.ts, now - start.ts, ret, start.id,
		     0);
		ap_get_stacks(ctx, &e->st, 0, 1);
		ap_submit_st(e);
	} else {
		struct ap_ev_syscall *e = ap_reserve(sizeof(*e));

		if (!e)
			return 0;
		fill(e, pid_tgid, start.ts, now - start.ts, ret, start.id, 0);
		ap_submit(e, sizeof(*e));
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
