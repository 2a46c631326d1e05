/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AP_TAG_SYSCALL frame: one syscall of a target.  Payload (all
 * little-endian; man/aperture-file.5):
 *
 *	u64 ts		entry time, CLOCK_MONOTONIC ns
 *	u32 pid, tid
 *	u32 id		syscall number of the recording machine
 *	u64 duration_ns	entry to exit (in flight: entry to end of recording)
 *	i64 ret		raw return value, -errno on error
 *	u32 stack_id	user stack at entry (0: none)
 *	u32 cpu		CPU the call returned on
 *	u32 flags	AP_SYSCALL_*
 *
 * With AP_SYSCALL_SUMMARY (format 1.1) the frame is the totals of many
 * calls of one thread: duration_ns is their total, ts when they were
 * read, cpu UINT32_MAX, and these follow:
 *
 *	u64 calls	finished calls, noreturn included
 *	u64 noreturn
 *	u64 max_ns	longest call so far
 *	u32 nr_buckets, then nr_buckets x { u32 bucket, u64 count }
 *			latency histogram (ap_hist__bucket) of the timed calls
 *	u32 nr_errs, then nr_errs x { u32 errno, u64 count }
 */
#ifndef APERTURE_EV_SYSCALL_H
#define APERTURE_EV_SYSCALL_H

#include <stddef.h>
#include <stdint.h>

#include "format/buf.h"
#include "syscall/syscalls.h"

struct ap_recorder;

#define AP_SYSCALL_PAYLOAD_LEN	48

/* ap_syscall.flags */
#define AP_SYSCALL_INFLIGHT	1	/* still running when recording stopped */
#define AP_SYSCALL_NORETURN	2	/* exit, exit_group: duration 0 */
#define AP_SYSCALL_SUMMARY	4	/* the totals of many calls */

#define AP_SYSCALL_SUM_ERRS	16	/* errnos in one summary */

struct ap_syscall {
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	uint32_t id;
	uint64_t duration_ns;
	int64_t ret;
	uint32_t stack_id;
	uint32_t cpu;
	uint32_t flags;
	/* AP_SYSCALL_SUMMARY only */
	uint64_t calls;
	uint64_t noreturn;
	uint64_t max_ns;
	uint64_t hist[AP_HIST_BUCKETS];
	uint32_t nr_errs;
	struct {
		uint32_t err;
		uint64_t count;
	} errs[AP_SYSCALL_SUM_ERRS];
};

void ap_syscall__encode(const struct ap_syscall *e, struct ap_buf *b);
/* 0, or -EBADMSG when the payload is short */
int ap_syscall__decode(const void *p, size_t len, struct ap_syscall *e);

/* recorder handler of AP_EV_SYSCALL ring buffer records */
int ap_rec_syscall(struct ap_recorder *r, const void *data, size_t size);
/* and of the AP_EV_SYSCALL_SUM records the sensor builds from the totals */
int ap_rec_syscall_sum(struct ap_recorder *r, const void *data, size_t size);

struct ap_frame;
/* one of its frames as a generic record for script and the timeline */
struct ap_evdec;
struct ap_evrec;
int ap_syscall__evdec(struct ap_evdec *d, const struct ap_frame *f,
		      struct ap_evrec *r);

#endif /* APERTURE_EV_SYSCALL_H */
