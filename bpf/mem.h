/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory access records handed from the mem sensor to the recorder.
 *
 * Samples (AMD IBS op, or software page faults where there is no IBS)
 * are sent by bpf/mem.bpf.c, run on each overflow of the sensor's perf
 * events, with their stacks; IBS's registers travel raw and are decoded
 * by the recorder (lib/mem/codec.c).  PERIOD records are built by the
 * sensor in user space and delivered with ap_collector__deliver().
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

/* IBS raw data: u32 caps, then up to 9 registers (op control, RIP, data
 * 1 to 3, linear and physical address, branch target, data 4) */
#define AP_MEM_RAW_MAX		80

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
	__u32 raw_size;		/* IBS: bytes of raw; 0: none */
	__u32 pad;
	__u8 raw[AP_MEM_RAW_MAX];	/* IBS: the sample's raw data */
	struct ap_stacks st;	/* taken with the sample */
};

#endif /* APERTURE_BPF_MEM_H */
