/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding what perf_event_open(2) writes: records copied out of its
 * mmap'd ring buffer (wrap-around included), PERF_RECORD_LOST/LOST_SAMPLES
 * counts and the side-band records (lib/record/kmaps.c), and for the mem
 * sensor the IBS op registers of PERF_SAMPLE_RAW (which bpf/mem.bpf.c
 * sends raw) and the sampling-period policy.
 *
 * No system calls here: everything is testable on crafted bytes, on a
 * machine without IBS.
 */
#ifndef APERTURE_PERF_DECODE_H
#define APERTURE_PERF_DECODE_H

#include <stddef.h>
#include <stdint.h>

struct ap_ev_mem;
struct ap_mmap;

/* Copies the next record of a perf ring into buf.  data is the ring
 * (size: a power of two), *tail our read position, head the kernel's.
 * Returns the record size, 0 when the ring is empty, or -EBADMSG for a
 * record that cannot be right (then *tail jumps to head: what is left is
 * dropped, never misread). */
int ap_perf_ring__read(const uint8_t *data, uint64_t size, uint64_t *tail,
		       uint64_t head, void *buf, size_t buflen);

/* PERF_RECORD_LOST or PERF_RECORD_LOST_SAMPLES: the count lost; 0 or
 * -EBADMSG (-EINVAL for another record type) */
int ap_perf_lost__parse(const void *rec, size_t size, uint64_t *lost);

/*
 * The side-band records of a dummy event opened with mmap2, comm,
 * comm_exec, task, build_id and sample_id_all (sample_type TID | TIME):
 * what the kernel says a process did to its address space, and when.
 */
#define AP_PERF_SB_MMAP		1	/* PERF_RECORD_MMAP2 */
#define AP_PERF_SB_EXEC		2	/* PERF_RECORD_COMM from an exec */
#define AP_PERF_SB_FORK		3	/* PERF_RECORD_FORK of a process */

struct ap_perf_sb {
	uint32_t kind;			/* AP_PERF_SB_* */
	uint32_t pid, tid;
	uint32_t ppid;			/* FORK */
	uint64_t time;			/* from sample_id */
	char comm[16];			/* EXEC */
};

/* Parses one side-band record; m (MMAP only) gets the mapping: path ""
 * for anonymous memory ("//anon"), prot from the record, the build-id
 * when the kernel put one in.  0; -ENOENT for a record of no interest (a
 * rename, a new thread, another type); -EBADMSG when it cannot be right. */
int ap_perf_sb__parse(const void *rec, size_t size, struct ap_perf_sb *sb,
		      struct ap_mmap *m);

/* The IBS op registers as the kernel puts them in PERF_SAMPLE_RAW:
 * u32 caps, then IbsOpCtl, IbsOpRip, IbsOpData, IbsOpData2, IbsOpData3,
 * IbsDcLinAd, IbsDcPhysAd (and, per caps, IbsBrTarget, IbsOpData4). */
struct ap_ibs_op {
	uint32_t caps;
	int nr_regs;
	uint64_t ctl, rip, data, data2, data3, dc_lin_addr, dc_phys_addr;
};

/* 0, or -EBADMSG when raw holds less than caps + IbsOpCtl..IbsOpData3 */
int ap_ibs_op__parse(const uint8_t *raw, uint32_t size, struct ap_ibs_op *op);

/* IbsOpData3 bits, as in the AMD PPR (and perf's amd-ibs.h) */
#define AP_IBS_LD_OP		(1ull << 0)
#define AP_IBS_ST_OP		(1ull << 1)
#define AP_IBS_DC_L1TLB_MISS	(1ull << 2)
#define AP_IBS_DC_L2TLB_MISS	(1ull << 3)
#define AP_IBS_DC_MISS		(1ull << 7)
#define AP_IBS_DC_LOCKED_OP	(1ull << 15)
#define AP_IBS_DC_LIN_ADDR_VALID (1ull << 17)
#define AP_IBS_DC_PHY_ADDR_VALID (1ull << 18)
#define AP_IBS_L2_MISS		(1ull << 20)
#define AP_IBS_OP_MEM_WIDTH(d3)	(((d3) >> 22) & 0xf)
#define AP_IBS_DC_MISS_LAT(d3)	(((d3) >> 32) & 0xffff)
/* IbsOpData2: data source of a load that missed, lo 3 bits and (Zen 4)
 * hi 2 bits at 6..7 */
#define AP_IBS_DATA_SRC(d2)	(((d2) & 7) | ((((d2) >> 6) & 3) << 3))
/* IbsOpData2 bit 4: the source is on another node */
#define AP_IBS_RMT_NODE		(1ull << 4)

/* Fills access, flags, latency, width, data_src (a perf_mem_data_src
 * value) and, when the hardware says the linear address is valid and e
 * has none, addr, from the IBS op registers. */
void ap_ibs_op__decode(const struct ap_ibs_op *op, struct ap_ev_mem *e);

/* "L1", "L2", "L3", "RAM", "remote RAM", "peer cache", "I/O", ... for a
 * perf_mem_data_src value; "-" when it says nothing */
const char *ap_mem_data_src__level(uint64_t data_src);

/* Sampling periods.  IBS op counts dispatched ops (cnt_ctl=1) and needs a
 * multiple of 16 up to AP_IBS_MAX_PERIOD; page faults count faults. */
#define AP_IBS_MIN_PERIOD	0x90ull
#define AP_IBS_MAX_PERIOD	0xffff0ull
#define AP_FAULT_MAX_PERIOD	65536ull
/* the largest period a recording of the source holds (an unknown
 * source: the largest of any) */
uint64_t ap_mem_period_max(uint32_t source);
/* source: AP_MEM_SRC_*; density 0 low, 1 default, 2 high; user: -c (0:
 * none).  The result is always valid for the source. */
uint64_t ap_mem_period(uint32_t source, int density, uint64_t user);
/* after samples were lost: double, up to the bound; returns the old
 * period when it is already at the bound */
uint64_t ap_mem_period_after_loss(uint32_t source, uint64_t period);

#endif /* APERTURE_PERF_DECODE_H */
