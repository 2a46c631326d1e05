/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock contention records of bpf/lock.bpf.c (AP_EV_LOCK): futex waits,
 * kernel lock contention (lock:contention_begin/end) and pthread mutex
 * wait and hold times (uprobes).  Only fixed-size integers, as in
 * aperture.h; lib/lock/codec.c turns them into AP_TAG_LOCK frames.
 */
#ifndef APERTURE_BPF_LOCK_H
#define APERTURE_BPF_LOCK_H

#include "aperture.h"

/* ap_ev_lock.kind */
#define AP_EVLOCK_FUTEX		1	/* a futex wait, user lock address */
#define AP_EVLOCK_KERNEL	2	/* lock:contention_begin/end */
#define AP_EVLOCK_PTHREAD	3	/* pthread mutex: a wait, or a hold */

/* ap_ev_lock.cls: kernel locks recognised in BPF, as perf lock does */
#define AP_EVLOCK_CLS_NONE	0
#define AP_EVLOCK_CLS_MMAP	1	/* current->mm->mmap_lock */
#define AP_EVLOCK_CLS_SIGHAND	2	/* current->sighand->siglock */

/* ap_ev_lock.flags for AP_EVLOCK_PTHREAD */
#define AP_EVLOCK_F_TRYLOCK	1	/* taken by pthread_mutex_trylock (old) */
#define AP_EVLOCK_F_HOLD	2	/* no wait: the hold of one that waited */

#define AP_LOCK_INFLIGHT	16384	/* waits in flight, per kind */
#define AP_LOCK_HELD_MAX	4096	/* contended mutexes held at once */

struct ap_ev_lock {
	struct ap_ev_hdr hdr;
	__u64 lock_addr;
	__u64 wait_ns;
	__u64 hold_ns;		/* pthread F_HOLD only; 0: unknown */
	__u32 kind;		/* AP_EVLOCK_* */
	__u32 flags;		/* futex: op; kernel: LCB_F_*; pthread: F_* */
	__s32 result;		/* 0 or -errno */
	__u32 cls;		/* AP_EVLOCK_CLS_* */
	char comm[AP_COMM_LEN];
	struct ap_stacks st;
};

/*
 * aperture stat -e lock: each wait added to its kind's totals in a
 * per-CPU array (ap_lock_sums, indexed by AP_EVLOCK_*), no record, no
 * stacks; user space sums the CPUs and sends an AP_EV_LOCK_SUM per kind.
 */
#define AP_LOCK_SUM_KINDS	4

struct ap_lock_sum {
	__u64 waits;
	__u64 wait_ns;
	__u64 max_ns;
	__u64 errors;		/* waits that ended with -errno */
};

/* user-space record built from the totals (never from BPF) */
#define AP_EV_LOCK_SUM		0x105

struct ap_ev_lock_sum {
	struct ap_ev_hdr hdr;	/* ts: when the totals were read */
	__u32 kind;		/* AP_EVLOCK_* */
	__u32 pad;
	struct ap_lock_sum sum;	/* since the start; max_ns: the CPUs' */
};

#endif /* APERTURE_BPF_LOCK_H */
