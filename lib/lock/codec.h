/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock contention events in the record file (AP_TAG_LOCK): the decoded
 * frame, its encoder and decoder (man/aperture-file.5 has the bytes), the
 * names of lock kinds and kernel lock types, and the recorder handler that
 * turns bpf/lock.h records into frames.
 */
#ifndef APERTURE_EV_LOCK_H
#define APERTURE_EV_LOCK_H

#include <stddef.h>
#include <stdint.h>

#include "format/buf.h"

struct ap_recorder;
struct ap_kallsyms;

/* ap_lock_event.kind */
#define AP_LOCK_FUTEX		1	/* futex wait on a user address */
#define AP_LOCK_KERNEL		2	/* kernel lock (lock:contention_*) */
#define AP_LOCK_PTHREAD		3	/* pthread mutex, wait and hold */

/* ap_lock_event.flags of AP_LOCK_KERNEL: the kernel's LCB_F_* bits */
#define AP_LCB_F_SPIN		(1u << 0)
#define AP_LCB_F_READ		(1u << 1)
#define AP_LCB_F_WRITE		(1u << 2)
#define AP_LCB_F_RT		(1u << 3)
#define AP_LCB_F_PERCPU		(1u << 4)
#define AP_LCB_F_MUTEX		(1u << 5)
/* ap_lock_event.flags of AP_LOCK_PTHREAD */
#define AP_LOCK_F_TRYLOCK	(1u << 0)	/* older files */
#define AP_LOCK_F_HOLD		(1u << 1)	/* no wait: hold_ns of one that
						 * waited, at its unlock */
/* ap_lock_event.flags of AP_LOCK_FUTEX: the futex op word as passed */

#define AP_LOCK_SYM_MAX		128

struct ap_lock_event {
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	uint64_t lock_addr;
	uint64_t hold_ns;		/* 0: unknown (futex, kernel) */
	uint64_t wait_ns;
	uint32_t stack_id;		/* 0: none */
	uint32_t kind;			/* AP_LOCK_* */
	uint32_t flags;
	int32_t result;			/* 0 or -errno */
	uint32_t cpu;
	/* kernel locks: the static variable or the per-task lock it is,
	 * resolved at record time; "" when not known */
	char sym[AP_LOCK_SYM_MAX];
};

void ap_lock_event__encode(const struct ap_lock_event *e, struct ap_buf *b);
int ap_lock_event__decode(const void *p, size_t len, struct ap_lock_event *e);

/* what a futex wait waited for, from its waiter's frames */
#define AP_LOCK_CLS_MUTEX	0	/* mutexes, rwlocks, lock words */
#define AP_LOCK_CLS_COND	1	/* condition variables */
#define AP_LOCK_CLS_JOIN	2	/* thread joins */
#define AP_LOCK_CLS_OTHER	3	/* anything else: semaphores, idle... */
#define AP_LOCK_NR_CLS		4

/* "mutex", "cond", "join", "other" */
const char *ap_lock__class_name(unsigned cls);
/* the class a frame's function names (leaf first, the first that names
 * one wins), or -1 when it names none */
int ap_lock__frame_class(const char *sym);
/* the class of a futex wait whose frames named none, from its op word */
unsigned ap_lock__op_class(uint32_t op);
/* "mutex,cond" or "all" into a mask of 1u << AP_LOCK_CLS_*; -EINVAL */
int ap_lock__parse_classes(const char *list, unsigned *mask);

/* "futex", "kernel", "pthread" or "?" */
const char *ap_lock__kind_name(uint32_t kind);
/* the lock type as perf lock contention names it from LCB_F_* flags:
 * "spinlock", "rwlock:R", "rwsem:W", "mutex", "rtmutex", "pcpu-sem:R"...;
 * "unknown" for a combination it does not know */
const char *ap_lock__kernel_type(uint32_t flags);
/* the futex command of an op word: "wait", "wait_bitset", "lock_pi"... */
const char *ap_lock__futex_op(uint32_t op);

/* the data and bss symbols of a kallsyms file (static kernel locks);
 * NULL and *err = -errno when none could be read */
struct ap_kallsyms *ap_lock__kdata_load(const char *path, int *err);
/* The name of the static kernel lock at addr ("tasklist_lock",
 * "obj+0x40") into buf, or "" when no symbol is known to contain it: the
 * report then prints the address rather than a guess */
void ap_lock__kernel_name(struct ap_kallsyms *syms, uint64_t addr,
			  char *buf, size_t len);

/* recorder handler of AP_EV_LOCK records */
int ap_rec_lock(struct ap_recorder *r, const void *data, size_t size);
/* what ap_rec_lock reads once (the kernel's data symbols), read now:
 * before the probes attach, not in the reader while records wait */
void ap_rec_lock__prepare(struct ap_recorder *r);

struct ap_frame;
/* one of its frames as a generic record for script and the timeline */
struct ap_evdec;
struct ap_evrec;
int ap_lock__evdec(struct ap_evdec *d, const struct ap_frame *f,
		   struct ap_evrec *r);

#endif /* APERTURE_EV_LOCK_H */
