// SPDX-License-Identifier: GPL-2.0
/*
 * AP_TAG_LOCK frames: encoder, decoder, names, and the recorder handler.
 * Kernel lock addresses are named at record time from the data symbols of
 * /proc/kallsyms (a static lock such as rtnl_mutex), because a report may
 * run on another machine or after a reboot; user lock addresses are named
 * at report time from the ELF files (lib/symbols/datasym.c).
 */
#include "lock/codec.h"

#include <inttypes.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "aperture.h"
#include "format/format.h"
#include "lock.h"
#include "record/recorder.h"
#include "symbols/symbolizer.h"
#include "format/reader.h"
#include "report/evdump.h"

void ap_lock_event__encode(const struct ap_lock_event *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_LOCK, &mark);
	ap_event_head__encode(b, e->ts, e->pid, e->tid);
	ap_buf__u64(b, e->lock_addr);
	ap_buf__u64(b, e->hold_ns);
	ap_buf__u64(b, e->wait_ns);
	ap_buf__u32(b, e->stack_id);
	ap_buf__u32(b, e->kind);
	ap_buf__u32(b, e->flags);
	ap_buf__u32(b, (uint32_t)e->result);
	ap_buf__u32(b, e->cpu);
	ap_buf__strn(b, e->sym, sizeof(e->sym));
	ap_frame__end(b, mark);
}

int ap_lock_event__decode(const void *p, size_t len, struct ap_lock_event *e)
{
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	ap_event_head__decode(&c, &e->ts, &e->pid, &e->tid);
	e->lock_addr = ap_cur__u64(&c);
	e->hold_ns = ap_cur__u64(&c);
	e->wait_ns = ap_cur__u64(&c);
	e->stack_id = ap_cur__u32(&c);
	e->kind = ap_cur__u32(&c);
	e->flags = ap_cur__u32(&c);
	e->result = (int32_t)ap_cur__u32(&c);
	e->cpu = ap_cur__u32(&c);
	ap_cur__str(&c, e->sym, sizeof(e->sym));
	return c.err;
}

const char *ap_lock__kind_name(uint32_t kind)
{
	switch (kind) {
	case AP_LOCK_FUTEX:
		return "futex";
	case AP_LOCK_KERNEL:
		return "kernel";
	case AP_LOCK_PTHREAD:
		return "pthread";
	}
	return "?";
}

const char *ap_lock__kernel_type(uint32_t flags)
{
	/* perf's lock_type_table (tools/perf/builtin-lock.c); a mutex that
	 * spun before sleeping carries both MUTEX and SPIN */
	static const struct {
		uint32_t flags;
		const char *name;
	} types[] = {
		{ AP_LCB_F_SPIN, "spinlock" },
		{ AP_LCB_F_SPIN | AP_LCB_F_READ, "rwlock:R" },
		{ AP_LCB_F_SPIN | AP_LCB_F_WRITE, "rwlock:W" },
		{ AP_LCB_F_READ, "rwsem:R" },
		{ AP_LCB_F_WRITE, "rwsem:W" },
		{ AP_LCB_F_RT, "rtmutex" },
		{ AP_LCB_F_RT | AP_LCB_F_READ, "rwlock-rt:R" },
		{ AP_LCB_F_RT | AP_LCB_F_WRITE, "rwlock-rt:W" },
		{ AP_LCB_F_PERCPU | AP_LCB_F_READ, "pcpu-sem:R" },
		{ AP_LCB_F_PERCPU | AP_LCB_F_WRITE, "pcpu-sem:W" },
		{ AP_LCB_F_MUTEX, "mutex" },
		{ AP_LCB_F_MUTEX | AP_LCB_F_SPIN, "mutex" },
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].flags == flags)
			return types[i].name;
	/* a rwsem or rwlock whose spin and sleep phases were merged */
	if (flags & AP_LCB_F_MUTEX)
		return "mutex";
	if ((flags & (AP_LCB_F_READ | AP_LCB_F_WRITE)) && !(flags & AP_LCB_F_RT))
		return flags & AP_LCB_F_WRITE ? "rwsem:W" : "rwsem:R";
	return "unknown";
}

const char *ap_lock__futex_op(uint32_t op)
{
	switch (op & 0x7f) {	/* FUTEX_CMD_MASK */
	case 0:
		return "wait";
	case 6:
		return "lock_pi";
	case 9:
		return "wait_bitset";
	case 11:
		return "wait_requeue_pi";
	case 13:
		return "lock_pi2";
	}
	return "other";
}

static const char *const class_names[AP_LOCK_NR_CLS] = {
	"mutex", "cond", "join", "other",
};

const char *ap_lock__class_name(unsigned cls)
{
	return cls < AP_LOCK_NR_CLS ? class_names[cls] : "?";
}

/* case-blind strstr: "Mutex" in Rust and C++ names, "mutex" in C */
static int has(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; *s; s++)
		if (!strncasecmp(s, word, n))
			return 1;
	return 0;
}

/*
 * glibc's waits, leaf first: a mutex's futex sleep is under
 * __lll_lock_wait and pthread_mutex_lock (or __pthread_mutex_cond_lock,
 * the mutex taken back on a condition variable's wake-up), a condition
 * variable's under __pthread_cond_wait_common, a join's under
 * __pthread_clockjoin_ex.  Other languages' names say the same words
 * (std::sync::Mutex, std::condition_variable::wait, thread::join).
 */
int ap_lock__frame_class(const char *sym)
{
	if (!sym)
		return -1;
	if (has(sym, "cond") && (has(sym, "wait") || has(sym, "var")))
		return AP_LOCK_CLS_COND;
	if (has(sym, "mutex") || has(sym, "lll_lock") ||
	    has(sym, "lll_clocklock") || has(sym, "rwlock") ||
	    has(sym, "mtx_lock"))
		return AP_LOCK_CLS_MUTEX;
	if (has(sym, "join") && (has(sym, "thread") || has(sym, "thrd")))
		return AP_LOCK_CLS_JOIN;
	return -1;
}

unsigned ap_lock__op_class(uint32_t op)
{
	switch (op & 0x7f) {
	case 6:		/* lock_pi: only locks wait this way */
	case 13:	/* lock_pi2 */
		return AP_LOCK_CLS_MUTEX;
	case 11:	/* wait_requeue_pi: a PI condition variable */
		return AP_LOCK_CLS_COND;
	}
	return AP_LOCK_CLS_OTHER;
}

int ap_lock__parse_classes(const char *list, unsigned *mask)
{
	const char *p = list;
	unsigned m = 0, i;

	if (!list || !*list)
		return -EINVAL;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == 3 && !strncmp(p, "all", 3)) {
			m |= (1u << AP_LOCK_NR_CLS) - 1;
		} else {
			for (i = 0; i < AP_LOCK_NR_CLS; i++)
				if (strlen(class_names[i]) == n &&
				    !strncmp(p, class_names[i], n))
					break;
			if (i == AP_LOCK_NR_CLS)
				return -EINVAL;
			m |= 1u << i;
		}
		p += n;
		if (*p == ',' && *++p == '\0')
			return -EINVAL;
	}
	*mask = m;
	return 0;
}

/* "ffffffff82a0b3c0 b rtnl_mutex\t[mod]": data and bss symbols only */
struct ap_kallsyms *ap_lock__kdata_load(const char *path, int *err)
{
	return ap_kallsyms__load_types(path, "dDbB", err);
}

/* section and region bounds, not objects: "__start_init_stack",
 * "__bss_stop", "_edata" */
static int is_marker(const char *name)
{
	static const char *const prefixes[] = {
		"__start", "__stop", "__end", "__bss_", "__per_cpu_",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return (name[0] == '_' && (name[1] == 's' || name[1] == 'e') &&
		strlen(name) <= 8);
}

/* fewer data symbols than this: a kernel without CONFIG_KALLSYMS_ALL,
 * whose few data symbols bound nothing */
#define KDATA_ALL_MIN	1000

void ap_lock__kernel_name(struct ap_kallsyms *syms, uint64_t addr,
			  char *buf, size_t len)
{
	const struct ap_kallsym *k = syms ? ap_kallsyms__find(syms, addr) : NULL;

	buf[0] = '\0';
	if (!k)
		return;
	if (addr == k->addr) {
		snprintf(buf, len, "%s", k->name);
		return;
	}
	/* kallsyms has no sizes: an offset is believed only where the
	 * table is dense (objects bound each other), the symbol is an
	 * object, and the offset is one a static object could have */
	if (ap_kallsyms__count(syms) < KDATA_ALL_MIN || is_marker(k->name) ||
	    addr - k->addr >= 65536)
		return;
	snprintf(buf, len, "%.100s+0x%llx", k->name,
		 (unsigned long long)(addr - k->addr));
}

/* the recorder keeps the data symbols for this handler; loaded once,
 * before the probes attach (ap_rec_lock__prepare) */
struct kdata {
	struct ap_kallsyms *syms;
	int tried;
};

static void kdata_free(void *p)
{
	struct kdata *kd = p;

	if (!kd)
		return;
	ap_kallsyms__free(kd->syms);
	free(kd);
}

/* the data symbols, read on the first call, tried once */
static struct kdata *kdata_get(struct ap_recorder *r)
{
	void **slot = ap_recorder__priv(r, AP_TAG_LOCK, kdata_free);
	struct kdata *kd;

	if (!slot)
		return NULL;
	kd = *slot;
	if (!kd) {
		kd = calloc(1, sizeof(*kd));
		if (!kd)
			return NULL;
		*slot = kd;
	}
	if (!kd->tried) {
		kd->tried = 1;
		kd->syms = ap_lock__kdata_load("/proc/kallsyms", NULL);
	}
	return kd;
}

/*
 * Reading /proc/kallsyms (120,000 lines) takes 40 ms, 130 ms on a busy
 * machine: done on the first kernel lock record, it stalled the reader
 * while a burst of futex waits overflowed the ring (test 39 lost 5,000
 * to 10,000 of 200,000).  Done here, before the probes attach.
 */
void ap_rec_lock__prepare(struct ap_recorder *r)
{
	kdata_get(r);
}

static void kernel_lock_name(struct ap_recorder *r, const struct ap_ev_lock *e,
			     char *buf, size_t len)
{
	struct kdata *kd;

	buf[0] = '\0';
	if (e->cls == AP_EVLOCK_CLS_MMAP) {
		snprintf(buf, len, "mmap_lock");
		return;
	}
	if (e->cls == AP_EVLOCK_CLS_SIGHAND) {
		snprintf(buf, len, "siglock");
		return;
	}
	kd = kdata_get(r);
	if (kd)
		ap_lock__kernel_name(kd->syms, e->lock_addr, buf, len);
}

int ap_rec_lock(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_lock *e = data;
	struct ap_lock_event ev;
	int err;

	if (!ap_stacks__whole(e, size, offsetof(struct ap_ev_lock, st)))
		return 0;
	err = ap_recorder__touch_ev(r, &e->hdr, e->comm, NULL);
	if (err)
		return err;
	memset(&ev, 0, sizeof(ev));
	ev.ts = e->hdr.ts;
	ev.pid = e->hdr.pid;
	ev.tid = e->hdr.tid;
	ev.cpu = e->hdr.cpu;
	ev.lock_addr = e->lock_addr;
	ev.wait_ns = e->wait_ns;
	ev.hold_ns = e->hold_ns;
	ev.flags = e->flags;
	ev.result = e->result;
	switch (e->kind) {
	case AP_EVLOCK_FUTEX:
		ev.kind = AP_LOCK_FUTEX;
		break;
	case AP_EVLOCK_KERNEL:
		ev.kind = AP_LOCK_KERNEL;
		kernel_lock_name(r, e, ev.sym, sizeof(ev.sym));
		break;
	case AP_EVLOCK_PTHREAD:
		ev.kind = AP_LOCK_PTHREAD;
		ev.flags = (e->flags & AP_EVLOCK_F_TRYLOCK ? AP_LOCK_F_TRYLOCK : 0) |
			   (e->flags & AP_EVLOCK_F_HOLD ? AP_LOCK_F_HOLD : 0);
		break;
	default:
		return 0;
	}
	ev.stack_id = ap_recorder__stack(r, e->hdr.pid, &e->st);
	ap_lock_event__encode(&ev, ap_recorder__buf(r));
	return 0;
}

/* one frame as a generic record for script and the timeline (event.h) */
int ap_lock__evdec(struct ap_evdec *d, const struct ap_frame *f,
		   struct ap_evrec *r)
{
	struct ap_lock_event e;
	uint64_t end;

	if (ap_lock_event__decode(f->payload, f->len, &e))
		return -EBADMSG;
	/* ts is the end of the wait; for pthread, of the hold after it */
	end = e.ts - (e.kind == AP_LOCK_PTHREAD ? e.hold_ns : 0);
	if (e.sym[0])
		snprintf(r->name, sizeof(r->name), "%s:%s",
			 ap_lock__kind_name(e.kind), e.sym);
	else
		snprintf(r->name, sizeof(r->name), "%s:0x%" PRIx64,
			 ap_lock__kind_name(e.kind), e.lock_addr);
	r->ts = end - e.wait_ns;
	r->dur_ns = e.wait_ns;
	r->slice = 1;
	r->pid = e.pid;
	r->tid = e.tid;
	r->cpu = e.cpu;
	r->stack_id = e.stack_id;
	ap_evrec__field(r, "kind", 0, "%s", ap_lock__kind_name(e.kind));
	ap_evrec__field(r, "addr", 0, "0x%" PRIx64, e.lock_addr);
	ap_evrec__field(r, "wait_ns", 1, "%" PRIu64, e.wait_ns);
	if (e.hold_ns)
		ap_evrec__field(r, "hold_ns", 1, "%" PRIu64, e.hold_ns);
	if (e.kind == AP_LOCK_KERNEL)
		ap_evrec__field(r, "type", 0, "%s", ap_lock__kernel_type(e.flags));
	if (e.result)
		ap_evrec__field(r, "result", 1, "%d", e.result);
	return 0;
}
