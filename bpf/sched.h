/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scheduling records between bpf/sched.bpf.c and user space.
 *
 * The BPF side keeps one small accounting entry per target thread
 * (sched_thr) and the off-CPU record in the making, with the stacks of
 * its last switch-out (sched_stk), both keyed by tid.  A record travels
 * only when an off-CPU interval of at least min-block ends
 * (AP_SCHED_EV_OFF, at switch-in) and when a thread exits
 * (AP_SCHED_EV_THREAD); user space reads sched_thr for periodic and final
 * thread totals, and seeds it with the targets' threads at the start.  Same rules as aperture.h: fixed-size integers and
 * explicit padding only.
 */
#ifndef APERTURE_BPF_SCHED_H
#define APERTURE_BPF_SCHED_H

#include "aperture.h"

#define AP_SCHED_MAX_THREADS	16384	/* sched_thr and sched_stk entries */
#define AP_SCHED_CPU_WORDS	4	/* cpu masks cover CPUs 0..255 */

/* ap_ev_sched_off.kind / ap_ev_sched_thread.kind */
#define AP_SCHED_EV_OFF		1
#define AP_SCHED_EV_THREAD	2

/* how a thread left the CPU */
#define AP_SCHED_BLOCKED	0	/* prev_state != TASK_RUNNING: slept */
#define AP_SCHED_PREEMPTED	1	/* still runnable: preempted or yielded */

/* ap_sched_thread.flags */
#define AP_SCHED_T_ON		0x1	/* on a CPU since in_ts */
#define AP_SCHED_T_OFF		0x2	/* off since out_ts (stacks valid) */
#define AP_SCHED_T_WOKEN	0x4	/* woken at wake_ts, not yet running */
#define AP_SCHED_T_CPU_OVER	0x8	/* ran on a CPU >= 64 * CPU_WORDS */
#define AP_SCHED_T_EXITED	0x10	/* final totals: the thread exited */
#define AP_SCHED_T_FINAL	0x20	/* final totals: recording ended */
#define AP_SCHED_T_CLIPPED	0x40	/* off since before recording began:
					 * out_ts is the start, no stacks */
#define AP_SCHED_T_RT_PARTIAL	0x80	/* on_ns misses run time: first seen
					 * leaving a CPU, or its run time at
					 * the end could not be read */

/* ap_ev_sched_off.flags */
#define AP_SCHED_F_OPEN		0x1	/* still off-CPU when recording ended */
#define AP_SCHED_F_NO_WAKEUP	0x2	/* blocked, but its wakeup was not seen */
#define AP_SCHED_F_CLIPPED	0x4	/* began before recording: counted from
					 * the start, stacks unknown */

/* the sched_thr value: where a thread is, and its totals so far */
struct ap_sched_thread {
	__u32 pid;		/* thread group id */
	__u32 flags;		/* AP_SCHED_T_* */
	__u64 in_ts;		/* last switch-in (AP_SCHED_T_ON) */
	__u64 out_ts;		/* last switch-out (AP_SCHED_T_OFF) */
	__u64 wake_ts;		/* wakeup while off (AP_SCHED_T_WOKEN) */
	__u32 out_state;	/* AP_SCHED_BLOCKED or _PREEMPTED */
	__u32 out_cpu;
	__u32 prev_state;	/* raw task state at switch-out */
	__u32 last_cpu;		/* CPU of the last switch-in */
	__u32 waker_pid;
	__u32 waker_tid;
	__u64 on_ns;		/* time on a CPU: the kernel's run time
				 * (se.sum_exec_runtime) at the last
				 * switch-out or exit, less rt_base */
	__u64 blocked_ns;	/* asleep: switch-out to wakeup */
	__u64 runnable_ns;	/* waiting for a CPU: preempted, or woken */
	__u64 vol;		/* switch-outs while blocking */
	__u64 invol;		/* switch-outs while runnable */
	__u64 wakeups;		/* wakeups seen while off-CPU */
	__u64 wakeup_total_ns;	/* wakeup to switch-in, summed */
	__u64 wakeup_max_ns;
	__u64 migrations;	/* switch-ins on another CPU than the last */
	__u64 short_nr;		/* intervals below min-block: totals only */
	__u64 short_ns;
	__u64 cpus[AP_SCHED_CPU_WORDS];
	__u64 start_ns;		/* the process's group_leader->start_boottime:
				 * with pid, whose thread this is; 0 unknown */
	__u64 rt_base;		/* se.sum_exec_runtime when first seen */
};

/*
 * One off-CPU interval, sent at switch-in (or by user space at the end).
 * The record is cut after the last frame of its stacks, as every record
 * with stacks is (struct ap_stacks).
 */
struct ap_ev_sched_off {
	struct ap_ev_hdr hdr;	/* ts: switch-in; cpu: where it resumed */
	__u32 kind;		/* AP_SCHED_EV_OFF */
	__u32 state;		/* AP_SCHED_BLOCKED or _PREEMPTED */
	__u64 off_ns;		/* switch-out to switch-in */
	__u64 wakeup_ns;	/* wakeup to switch-in; 0 when not seen */
	__u32 out_cpu;
	__u32 prev_state;
	__u32 waker_pid;	/* 0 when not seen */
	__u32 waker_tid;
	__u32 flags;		/* AP_SCHED_F_* */
	__u32 pad;
	__u64 start_ns;		/* ap_sched_thread.start_ns */
	char comm[AP_COMM_LEN];
	struct ap_stacks st;	/* at switch-out, packed */
};

#define AP_SCHED_OFF_HDR_SIZE	__builtin_offsetof(struct ap_ev_sched_off, st.ips)

/* a thread's totals since recording began: at exit (from BPF) and
 * periodically and at the end (built by user space from sched_thr) */
struct ap_ev_sched_thread {
	struct ap_ev_hdr hdr;	/* ts: when the totals were taken */
	__u32 kind;		/* AP_SCHED_EV_THREAD */
	__u32 pad;
	char comm[AP_COMM_LEN];
	struct ap_sched_thread t;
};

#endif /* APERTURE_BPF_SCHED_H */
