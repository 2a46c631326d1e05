/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring buffer records of the syscall sensor (bpf/syscall.bpf.c), read by
 * lib/ev_syscall.c.  Kernel/user ABI only: fixed-size integers and
 * explicit padding, as in aperture.h.
 */
#ifndef APERTURE_BPF_SYSCALL_H
#define APERTURE_BPF_SYSCALL_H

#include "aperture.h"

/* ap_ev_syscall.flags */
#define AP_SC_INFLIGHT		1	/* not finished when recording stopped */
#define AP_SC_NORETURN		2	/* exit, exit_group: never returns */

/* entries of the in-flight table: one per thread inside a syscall */
#define AP_SC_INFLIGHT_MAX	16384

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
