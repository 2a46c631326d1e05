/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI between aperture's BPF programs and user space: the records that
 * travel through the BPF ring buffer and the indexes of the shared maps.
 *
 * Only fixed-size integers and explicit padding: no pointers, enums or bool,
 * so that clang -target bpf and gcc lay the structs out identically.  This
 * is not the record file format (lib/format.h): the file stores decoded
 * events, so changing a struct here never breaks old files.
 */
#ifndef APERTURE_BPF_ABI_H
#define APERTURE_BPF_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define AP_MAX_STACK		127	/* frames per stack, kernel and user each */
#define AP_COMM_LEN		16
#define AP_RINGBUF_BYTES	(16 * 1024 * 1024)
#define AP_MAX_TARGETS		16384

/* ap_ev_hdr.type: one per kind of ring buffer record */
#define AP_EV_CPU		0
#define AP_EV_LOCK		1
#define AP_EV_SYSCALL		2
#define AP_EV_GPU		3
#define AP_EV_MEM		4
#define AP_EV_SCHED		5
#define AP_EV_IO		6
#define AP_EV_TASK		16

/* counters in the per-CPU "stats" array map */
#define AP_STAT_RB_DROP		0	/* ring buffer full: record lost */
#define AP_STAT_KSTACK_ERR	1	/* bpf_get_stack(kernel) failed */
#define AP_STAT_USTACK_ERR	2	/* bpf_get_stack(user) failed */
#define AP_STAT_IDLE		3	/* cpu samples of the idle task, skipped */
#define AP_STAT_TARGET_FULL	4	/* a forked child did not fit in targets */
#define AP_STAT_SYSCALL_TABLE_FULL 5	/* syscalls in flight table full */
#define AP_STAT_LOCK_TABLE_FULL	6	/* lock waits in flight table full */
#define AP_STAT_GPU_TABLE_FULL	7	/* gpu launches in flight table full */
#define AP_STAT_SCHED_TABLE_FULL 8
#define AP_STAT_IO_UNRESOLVED	9
#define AP_STAT_IO_TABLE_FULL	10	/* io syscalls in flight table full */
#define AP_STAT_NR		16

struct ap_ev_hdr {
	__u32 type;		/* AP_EV_* */
	__u32 pid;		/* thread group id */
	__u32 tid;
	__u32 cpu;
	__u64 ts;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
};

/*
 * A stack pair as bpf_get_stack() fills it: kernel frames in ips[0..],
 * user frames in ips[AP_MAX_STACK..].  Sizes are in bytes, negative on
 * error (-errno from the helper).
 */
struct ap_stacks {
	__s32 kstack_sz;
	__s32 ustack_sz;
	__u64 ips[2 * AP_MAX_STACK];
};

struct ap_ev_cpu {
	struct ap_ev_hdr hdr;
	char comm[AP_COMM_LEN];
	struct ap_stacks st;
};

/* ap_ev_task.kind */
#define AP_TASK_FORK		1	/* a new process (not a thread) */
#define AP_TASK_EXEC		2
#define AP_TASK_EXIT		3	/* the whole thread group is gone */
#define AP_TASK_COMM		4	/* prctl(PR_SET_NAME) or pthread_setname */

struct ap_ev_task {
	struct ap_ev_hdr hdr;
	__u32 kind;
	__u32 ppid;
	__u64 start_ns;		/* task->group_leader->start_boottime */
	__s32 exit_code;
	__u32 pad;
	char comm[AP_COMM_LEN];
};

#endif /* APERTURE_BPF_ABI_H */
