/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory access records handed from the mem sensor to the recorder.
 *
 * Unlike the other sensors' records these are built in user space: the
 * samples come from perf ring buffers (AMD IBS op, or software page faults
 * where there is no IBS) that the sensor decodes in its poll op, and are
 * delivered with ap_collector__deliver().  They keep the layout rules of
 * aperture.h all the same (fixed-size fields, explicit padding), so that
 * the recorder treats them like any other record.
 */
#ifndef APERTURE_BPF_MEM_H
#define APERTURE_BPF_MEM_H

#include "aperture.h"

/* ap_ev_mem.kind */
#define AP_MEM_KIND_SAMPLE	0
#define AP_MEM_KIND_PERIOD	1	/* samples were lost: new period */

/* ap_ev_mem.source */
#define AP_MEM_SRC_IBS_OP	1
#define AP_MEM_SRC_PAGE_FAULT	2

/* ap_ev_mem.access */
#define AP_MEM_ACC_UNKNOWN	0
#define AP_MEM_ACC_LOAD		1
#define AP_MEM_ACC_STORE	2

/* ap_ev_mem.flags */
#define AP_MEM_F_ADDR		(1u << 0)	/* addr is valid */
#define AP_MEM_F_DC_MISS	(1u << 1)	/* IBS: L1 data cache miss */
#define AP_MEM_F_L2_MISS	(1u << 2)	/* IBS: L2 miss */
#define AP_MEM_F_TLB_MISS	(1u << 3)	/* IBS: L1 DTLB miss */
#define AP_MEM_F_L2TLB_MISS	(1u << 4)	/* IBS: L2 DTLB miss */
#define AP_MEM_F_LOCKED		(1u << 5)	/* IBS: locked operation */
#define AP_MEM_F_KERNEL_IP	(1u << 6)	/* ip is a kernel address */

struct ap_ev_mem {
	struct ap_ev_hdr hdr;	/* hdr.type = AP_EV_MEM */
	__u32 kind;		/* AP_MEM_KIND_* */
	__u32 source;		/* AP_MEM_SRC_* */
	__u32 access;		/* AP_MEM_ACC_* */
	__u32 flags;		/* AP_MEM_F_* */
	__u64 ip;
	__u64 addr;		/* data (virtual) address */
	__u64 data_src;		/* union perf_mem_data_src; 0: unknown */
	__u64 period;		/* weight of the sample; PERIOD: the new one */
	__u64 lost;		/* PERIOD: samples lost so far, cumulative */
	__u32 latency;		/* IBS: data cache miss latency, cycles */
	__u32 width;		/* IBS: access width, bytes; 0: unknown */
	char comm[AP_COMM_LEN];	/* "": unknown (taken from /proc) */
	struct ap_stacks st;	/* from PERF_SAMPLE_CALLCHAIN */
};

/*
 * User stacks of mem samples, unwound by bpf/mem.bpf.c (CFI) in the
 * overflow handler of each sample's perf event, just before the kernel
 * writes the sample.  Each CPU has AP_MEM_SLOTS slots in the mmap'ed
 * ap_mem_ustacks array, written round in the order of that CPU's samples
 * (the order of its perf ring).  The sensor finds a sample's stack from
 * where the previous one was, by the sample's tid, ip and address; seq is
 * written last (~0 while the slot is written).
 */
#define AP_MEM_SLOTS		256

struct ap_mem_ustack {
	__u64 seq;		/* the CPU's sample count; ~0: being written */
	__u32 tid;
	__s32 ustack_sz;	/* bytes */
	__u64 ip;		/* as the sample's PERF_SAMPLE_IP */
	__u64 addr;		/* as its PERF_SAMPLE_ADDR */
	__u32 uflags;		/* AP_USTACK_* */
	__u32 pad;
	__u64 ips[AP_MAX_USTACK];
};

#endif /* APERTURE_BPF_MEM_H */
