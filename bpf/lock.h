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

#endif /* APERTURE_BPF_LOCK_H */
