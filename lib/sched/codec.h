/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AP_TAG_SCHED frames: what the record file stores about scheduling, and
 * the recorder handler that makes them from bpf/sched.h records.
 *
 * Two kinds share the tag, told apart by the first u32 of the payload:
 * an off-CPU interval (AP_SCHED_IV) and a thread's cumulative totals
 * (AP_SCHED_THR).  man/aperture-file.5 documents the bytes.
 */
#ifndef APERTURE_EV_SCHED_H
#define APERTURE_EV_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "format/buf.h"

struct ap_recorder;

#define AP_SCHED_IV		1	/* one off-CPU interval */
#define AP_SCHED_THR		2	/* a thread's totals so far */

/* ap_sched_iv.state */
#define AP_SCHED_ST_BLOCKED	0
#define AP_SCHED_ST_PREEMPTED	1

/* ap_sched_iv.flags */
#define AP_SCHED_IV_OPEN	0x1	/* still off when recording ended */
#define AP_SCHED_IV_NO_WAKEUP	0x2	/* its wakeup was not seen */
#define AP_SCHED_IV_CLIPPED	0x4	/* began before recording: counted
					 * from the start, stack unknown */

/* ap_sched_thr.flags */
#define AP_SCHED_THR_CPU_OVER	0x8	/* ran on CPUs beyond the mask */
#define AP_SCHED_THR_EXITED	0x10	/* final: the thread exited */
#define AP_SCHED_THR_FINAL	0x20	/* final: recording ended */
#define AP_SCHED_THR_ON_PARTIAL	0x40	/* on_ns misses run time that could
					 * not be measured (1.8) */

#define AP_SCHED_MASK_WORDS	4	/* cpus[]: CPUs 0..255 */

struct ap_sched_iv {
	uint64_t ts;			/* switch-in (or end of recording) */
	uint32_t pid;
	uint32_t tid;
	uint32_t cpu;			/* where it resumed */
	uint32_t state;			/* AP_SCHED_ST_* */
	uint64_t off_ns;
	uint64_t wakeup_ns;		/* wakeup to switch-in; 0: not seen */
	uint32_t stack_id;		/* at switch-out; 0: none */
	uint32_t out_cpu;
	uint32_t waker_pid;		/* 0: not seen */
	uint32_t waker_tid;
	uint32_t flags;			/* AP_SCHED_IV_* */
	uint32_t prev_state;		/* raw task state at switch-out */
	uint64_t start_ticks;		/* as ap_sched_thr.start_ticks */
};

struct ap_sched_thr {
	uint64_t ts;			/* when the totals were taken */
	uint32_t pid;
	uint32_t tid;
	uint32_t cpu;			/* last CPU */
	uint32_t flags;			/* AP_SCHED_THR_* */
	uint64_t on_ns;			/* the kernel's run time (1.8);
					 * before, switch-in to switch-out */
	uint64_t blocked_ns;
	uint64_t runnable_ns;
	uint64_t vol;			/* voluntary switches (blocked) */
	uint64_t invol;			/* involuntary (preempted) */
	uint64_t wakeups;
	uint64_t wakeup_total_ns;
	uint64_t wakeup_max_ns;
	uint64_t migrations;
	uint64_t short_nr;		/* intervals < min-block: no frame */
	uint64_t short_ns;
	uint64_t cpus[AP_SCHED_MASK_WORDS];
	uint64_t start_ticks;		/* with pid, the process's identity
					 * (1.7); 0: the process pid names
					 * when the frame is read */
};

struct ap_sched_ev {
	uint32_t kind;			/* AP_SCHED_IV or AP_SCHED_THR */
	union {
		struct ap_sched_iv iv;
		struct ap_sched_thr thr;
	};
};

void ap_sched_iv__encode(const struct ap_sched_iv *e, struct ap_buf *b);
void ap_sched_thr__encode(const struct ap_sched_thr *e, struct ap_buf *b);
/* either kind; -EBADMSG when short, -ENOMSG for a kind this aperture does
 * not know (written by a newer one: skip it) */
int ap_sched__decode(const void *p, size_t len, struct ap_sched_ev *e);

/* number of CPUs in a mask, and "0-3,6" into buf */
int ap_sched_cpus__count(const uint64_t *cpus);
void ap_sched_cpus__format(const uint64_t *cpus, int over, char *buf,
			   size_t len);

/* recorder handler for AP_EV_SCHED ring buffer records */
int ap_rec_sched(struct ap_recorder *r, const void *data, size_t size);

struct ap_frame;
/* one of its frames as a generic record for script and the timeline */
struct ap_evdec;
struct ap_evrec;
int ap_sched__evdec(struct ap_evdec *d, const struct ap_frame *f,
		    struct ap_evrec *r);

#endif /* APERTURE_EV_SCHED_H */
