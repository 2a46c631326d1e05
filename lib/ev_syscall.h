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
 */
#ifndef APERTURE_EV_SYSCALL_H
#define APERTURE_EV_SYSCALL_H

#include <stddef.h>
#include <stdint.h>

#include "codec.h"

struct ap_recorder;

#define AP_SYSCALL_PAYLOAD_LEN	48

/* ap_syscall.flags */
#define AP_SYSCALL_INFLIGHT	1	/* still running when recording stopped */
#define AP_SYSCALL_NORETURN	2	/* exit, exit_group: duration 0 */

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
};

void ap_syscall__encode(const struct ap_syscall *e, struct ap_buf *b);
/* 0, or -EBADMSG when the payload is short */
int ap_syscall__decode(const void *p, size_t len, struct ap_syscall *e);

/* recorder handler of AP_EV_SYSCALL ring buffer records */
int ap_rec_syscall(struct ap_recorder *r, const void *data, size_t size);

#endif /* APERTURE_EV_SYSCALL_H */
