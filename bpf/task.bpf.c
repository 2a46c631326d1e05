// SPDX-License-Identifier: GPL-2.0
/*
 * Task life cycle of the targets: new processes forked by a target become
 * targets themselves; exec, exit and renames are reported so that user space
 * re-reads mappings and comm and knows when every target is gone.
 */
#include "common.bpf.h"
#include "syscall_maps.bpf.h"

static __always_inline __u64 group_start_ns(struct task_struct *t)
{
	return BPF_CORE_READ(t, group_leader, start_boottime);
}

static __always_inline void emit_task(__u32 kind, __u32 pid, __u32 tid,
				      __u32 ppid, struct task_struct *t,
				      int exit_code)
{
	struct ap_ev_task *e = ap_reserve(sizeof(*e));

	if (!e)
		return;
	ap_fill_hdr(&e->hdr, AP_EV_TASK);
	e->hdr.pid = pid;
	e->hdr.tid = tid;
	e->kind = kind;
	e->ppid = ppid;
	e->start_ns = group_start_ns(t);
	e->exit_code = exit_code;
	e->pad = 0;
	BPF_CORE_READ_STR_INTO(&e->comm, t, comm);
	/* rare, and the reader reads the new process's mappings on it:
	 * until then its stacks unwind without the mirror */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(ap_task_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = BPF_CORE_READ(parent, tgid);
	__u32 cpid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (cpid == ppid)	/* a new thread: covered by its tgid */
		return 0;
	if (!ap_filter_targets || !ap_in_targets(ppid))
		return 0;
	if (bpf_map_update_elem(&targets, &cpid, &one, BPF_ANY))
		ap_count(AP_STAT_TARGET_FULL);
	emit_task(AP_TASK_FORK, cpid, BPF_CORE_READ(child, pid), ppid, child, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(ap_task_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	__u32 old_tid = old_pid;

	if (!ap_in_targets(tgid))
		return 0;
	/* a thread that execs takes its leader's tid: its own tid's
	 * syscall entry is freed here (the leader's went at its exit) */
	if (old_tid != BPF_CORE_READ(p, pid))
		bpf_map_delete_elem(&ap_sc_inflight, &old_tid);
	/* the unwinder's mirror of the old image: until user space has
	 * read the new one, stacks fall back to frame pointers, counted */
	bpf_map_delete_elem(&ap_uw_procs, &tgid);
	emit_task(AP_TASK_EXEC, tgid, BPF_CORE_READ(p, pid),
		  BPF_CORE_READ(p, real_parent, tgid), p, 0);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(ap_task_exit, struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	__u32 tid = BPF_CORE_READ(p, pid);
	int live;

	if (!ap_in_targets(tgid))
		return 0;
	/* the syscall sensor keeps a thread's entry between its calls */
	bpf_map_delete_elem(&ap_sc_inflight, &tid);
	/* the last thread out reports the group's exit */
	live = BPF_CORE_READ(p, signal, live.counter);
	if (live > 0)
		return 0;
	emit_task(AP_TASK_EXIT, tgid, BPF_CORE_READ(p, pid),
		  BPF_CORE_READ(p, real_parent, tgid), p,
		  BPF_CORE_READ(p, signal, group_exit_code));
	if (ap_filter_targets)
		bpf_map_delete_elem(&targets, &tgid);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(ap_task_rename, struct task_struct *t, const char *comm)
{
	__u32 tgid = BPF_CORE_READ(t, tgid);

	if (!ap_in_targets(tgid))
		return 0;
	emit_task(AP_TASK_COMM, tgid, BPF_CORE_READ(t, pid), 0, t, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
