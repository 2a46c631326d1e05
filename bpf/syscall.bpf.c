// SPDX-License-Identifier: GPL-2.0
/*
 * Syscalls of the targets: raw_syscalls sys_enter stores the entry time per
 * thread in an in-flight table, sys_exit takes it out and emits one record
 * with the duration and return value.  Only targets enter the table, so
 * sys_exit needs no target check: a miss is a call that began before the
 * recording (or that did not fit in the table, counted at entry).
 */
#include "common.bpf.h"
#include "syscall.h"

/* set by user space before load (lib/sensor_syscall.c) */
const volatile __u32 ap_sc_stacks = 0;		/* --syscall-stacks */
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

/* tid -> entry; sized by user space (1 entry when the sensor is off) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_SC_INFLIGHT_MAX);
	__type(key, __u32);
	__type(value, struct ap_sc_start);
} ap_sc_inflight SEC(".maps");

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
	__u32 tid = (__u32)pid_tgid;
	struct ap_sc_start s;

	if (!ap_is_target(pid_tgid >> 32))
		return 0;
	if (ap_sc_preexec_tgid == pid_tgid >> 32 && id != ap_sc_nr_execve &&
	    id != ap_sc_nr_execveat)
		return 0;
	s.ts = bpf_ktime_get_ns();
	if (id == ap_sc_nr_exit || id == ap_sc_nr_exit_group) {
		/* no sys_exit will come: the call is recorded now, so that
		 * the table does not keep a dead thread's entry */
		struct ap_ev_syscall *e = ap_reserve(sizeof(*e));

		if (e) {
			fill(e, pid_tgid, s.ts, 0, 0, (__u32)id,
			     AP_SC_NORETURN);
			ap_submit(e, sizeof(*e));
		}
		return 0;
	}
	s.id = (__u32)id;
	s.tgid = pid_tgid >> 32;
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
	if (!s)
		return 0;
	start = *s;
	bpf_map_delete_elem(&ap_sc_inflight, &tid);
	if (ret == 0 && start.tgid == ap_sc_preexec_tgid)
		ap_sc_preexec_tgid = 0;		/* the command runs */

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
