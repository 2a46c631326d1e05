/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring buffer records of the syscall sensor (bpf/syscall.bpf.c), read by
 * lib/syscall/codec.c.  Kernel/user ABI only: fixed-size integers and
 * explicit padding, as in aperture.h.
 */
#ifndef APERTURE_BPF_SYSCALL_H
#define APERTURE_BPF_SYSCALL_H

#include "aperture.h"

/* ap_ev_syscall.flags */
#define AP_SC_INFLIGHT		1	/* not finished when recording stopped */
#define AP_SC_NORETURN		2	/* exit, exit_group: never returns */

/* entries of the in-flight table: one per thread inside a syscall, as
 * many as the machine can have threads (lib/syscall/sensor.c); up to
 * this many preallocated */
#define AP_SC_INFLIGHT_MAX	65536

/*
 * In-kernel totals (the default, without per-call records): one entry
 * per (process, thread, syscall) in ap_sc_sums, one per (process,
 * thread, syscall, errno) in ap_sc_errs.  A call whose entry does not fit
 * goes through the ring buffer as a per-call record instead, so the
 * counts stay exact.  User space reads both tables every second and at
 * the end and writes the differences.
 */
#define AP_SC_SUMS_MAX		16384
#define AP_SC_ERRS_MAX		4096
/* latency buckets, those of report --hist (lib/syscall/syscalls.c): [0, 64 ns),
 * then doublings to 1 us, then doublings of 1 us; the last takes the rest */
#define AP_SC_HIST		48


struct ap_sc_key {
	__u32 pid;
	__u32 tid;
	__u32 id;
	__u32 err;		/* ap_sc_errs: errno; ap_sc_sums: 0 */
};

/* only the calling thread writes its entries: plain adds are exact */
struct ap_sc_sum {
	__u64 calls;		/* finished calls, exit and exit_group included */
	__u64 noreturn;		/* exit, exit_group: no duration */
	__u64 total_ns;
	__u64 max_ns;
	char comm[AP_COMM_LEN];	/* at the thread's first call */
	__u64 hist[AP_SC_HIST];	/* durations of the timed calls */
};

/* user-space record built from the totals (never from BPF) */
#define AP_EV_SYSCALL_SUM	0x104
#define AP_SC_SUM_ERRS		16	/* errnos per record; more: more records */

struct ap_ev_syscall_sum {
	struct ap_ev_hdr hdr;	/* ts: when the totals were read */
	__u32 id;
	__u32 nr_errs;
	struct ap_sc_sum sum;	/* since the last record of this key; max_ns:
				 * since the start */
	struct {
		__u32 err;
		__u32 pad;
		__u64 count;
	} errs[AP_SC_SUM_ERRS];
};

/* in-flight table value, keyed by tid */
struct ap_sc_start {
	__u64 ts;		/* entry, bpf_ktime_get_ns() */
	__u32 id;		/* syscall number */
	__u32 tgid;
};

/*
 * One finished call.  hdr.ts is the entry time, hdr.cpu the CPU it
 * returned on.  ret is the raw return value (-errno for errors).
 */
struct ap_ev_syscall {
	struct ap_ev_hdr hdr;
	__u64 duration_ns;
	__s64 ret;
	__u32 id;
	__u32 flags;		/* AP_SC_* */
	char comm[AP_COMM_LEN];
};

/* with --syscall-stacks: the same record followed by the user stack */
struct ap_ev_syscall_stack {
	struct ap_ev_syscall sc;
	struct ap_stacks st;
};

#endif /* APERTURE_BPF_SYSCALL_H */
