// SPDX-License-Identifier: GPL-2.0
/*
 * Address spaces in time: versions that share mappings, the session's
 * choice of the version live at an event's time (a library loaded over
 * another one, exec, fork), the thread contexts the views key on, and the
 * kernel's side-band records (PERF_RECORD_MMAP2, COMM exec, FORK).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

#include "aperture.h"
#include "format/buf.h"
#include "report/ctxtab.h"
#include "sched/codec.h"
#include "format/format.h"
#include "record/perf_decode.h"
#include "record/procfs.h"
#include "record/recorder.h"
#include "sched.h"
#include "report/session.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"

static struct ap_mmap *mapping(uint32_t pid, uint64_t ts, uint64_t start,
			       uint64_t end, const char *path)
{
	static struct ap_mmap m;

	memset(&m, 0, sizeof(m));
	m.ts = ts;
	m.pid = pid;
	m.prot = PROT_READ | PROT_EXEC;
	m.start = start;
	m.end = end;
	snprintf(m.path, sizeof(m.path), "%s", path);
	return &m;
}

/* ---- versions ---- */

START_TEST(test_clone_shares_then_diverges)
{
	struct ap_symbolizer *s = ap_symbolizer__new(NULL);
	struct ap_addrspace *as = ap_symbolizer__addrspace(s, 7, 1), *v, *e;

	ck_assert_int_eq(ap_addrspace__add_mapping(as,
		mapping(7, 0, 0x1000, 0x2000, "/lib/a.so")), 0);
	ck_assert_int_eq(ap_addrspace__add_mapping(as,
		mapping(7, 0, 0x5000, 0x6000, "/bin/x")), 0);
	v = ap_addrspace__clone(as, 1);
	e = ap_addrspace__clone(as, 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_ne(v, as);
	ck_assert_uint_eq(ap_addrspace__count(v), 2);
	ck_assert_uint_eq(ap_addrspace__count(e), 0);
	/* b.so over a.so in the clone: the original keeps a.so */
	ck_assert_int_eq(ap_addrspace__add_mapping(v,
		mapping(7, 0, 0x1000, 0x2000, "/lib/b.so")), 0);
	ck_assert_str_eq(ap_addrspace__find(v, 0x1800)->path, "/lib/b.so");
	ck_assert_str_eq(ap_addrspace__find(as, 0x1800)->path, "/lib/a.so");
	/* resetting the original leaves the clone whole */
	ap_addrspace__reset(as);
	ck_assert_ptr_null(ap_addrspace__find(as, 0x5800));
	ck_assert_str_eq(ap_addrspace__find(v, 0x5800)->path, "/bin/x");
	ck_assert(ap_addrspace__overlaps(v, 0x1fff, 0x3000));
	ck_assert(!ap_addrspace__overlaps(v, 0x2000, 0x5000));
	ck_assert_int_eq(ap_addrspace__copy(as, v), 0);
	ck_assert_uint_eq(ap_addrspace__count(as), 2);
	ck_assert_str_eq(ap_addrspace__at(as, 0)->path, "/lib/b.so");
	ap_symbolizer__free(s);
}
END_TEST

/* ---- the session ---- */

struct fixture {
	struct ap_symbolizer *sym;
	struct ap_session *s;
	struct ap_buf b;
};

static void fx_init(struct fixture *fx)
{
	fx->sym = ap_symbolizer__new(NULL);
	fx->s = ap_session__new(fx->sym);
	ck_assert_ptr_nonnull(fx->s);
	ap_buf__init(&fx->b);
}

static void fx_free(struct fixture *fx)
{
	ap_session__free(fx->s);
	ap_symbolizer__free(fx->sym);
	ap_buf__free(&fx->b);
}

/* feeds what was encoded since the last call */
static void feed(struct fixture *fx)
{
	size_t off = 0;

	while (off + AP_FRAME_HDR_LEN <= fx->b.len) {
		struct ap_frame f;

		f.tag = ap_get_le32(fx->b.data + off);
		f.len = ap_get_le32(fx->b.data + off + 4);
		f.payload = fx->b.data + off + AP_FRAME_HDR_LEN;
		ck_assert_int_ge(ap_session__feed(fx->s, &f), 0);
		off += AP_FRAME_HDR_LEN + f.len;
	}
	ap_buf__reset(&fx->b);
}

static void task(struct fixture *fx, uint32_t kind, uint32_t pid,
		 uint32_t ppid, uint64_t ts)
{
	struct ap_task t;

	memset(&t, 0, sizeof(t));
	t.ts = ts;
	t.pid = pid;
	t.ppid = ppid;
	t.start_ticks = 100 + pid;
	t.kind = kind;
	ap_task__encode(&t, &fx->b);
	feed(fx);
}

static void mmap_at(struct fixture *fx, uint32_t pid, uint64_t ts,
		    uint64_t start, uint64_t end, const char *path)
{
	ap_mmap__encode(mapping(pid, ts, start, end, path), &fx->b);
	feed(fx);
}

static void sample(struct fixture *fx, uint32_t pid, uint64_t ts)
{
	struct ap_cpu_sample e = { ts, pid, pid, 0, 0 };

	ap_cpu_sample__encode(&e, &fx->b);
	feed(fx);
}

static const char *path_at(struct fixture *fx, uint32_t pid, uint64_t ts,
			   uint64_t addr)
{
	const struct ap_mmap *m =
		ap_addrspace__find(ap_session__addrspace(fx->s, pid, ts), addr);

	return m ? m->path : "(none)";
}

START_TEST(test_session_library_over_library)
{
	struct fixture fx;
	struct ap_addrspace *before;

	fx_init(&fx);
	task(&fx, AP_TASK_SNAPSHOT, 10, 1, 0);
	mmap_at(&fx, 10, 100, 0x7000, 0x8000, "/p/alpha.so");
	sample(&fx, 10, 150);
	before = ap_session__event_as(fx.s, 10);
	/* dlclose, dlopen at the same address */
	mmap_at(&fx, 10, 200, 0x7000, 0x8000, "/p/gamma.so");
	ck_assert_str_eq(path_at(&fx, 10, 150, 0x7100), "/p/alpha.so");
	ck_assert_str_eq(path_at(&fx, 10, 250, 0x7100), "/p/gamma.so");
	ck_assert_str_eq(ap_addrspace__find(before, 0x7100)->path,
			 "/p/alpha.so");
	/* a sample written after the new mapping but taken before it */
	sample(&fx, 10, 180);
	ck_assert_ptr_eq(ap_session__event_as(fx.s, 10), before);
	sample(&fx, 10, 260);
	ck_assert_ptr_ne(ap_session__event_as(fx.s, 10), before);
	/* a mapping over nothing goes into the version of its time */
	mmap_at(&fx, 10, 300, 0x9000, 0xa000, "/p/other.so");
	ck_assert_str_eq(path_at(&fx, 10, 250, 0x9100), "/p/other.so");
	ck_assert_str_eq(path_at(&fx, 10, 150, 0x9100), "(none)");
	/* the same mapping again (a rescan): no new version */
	before = ap_session__addrspace(fx.s, 10, 400);
	mmap_at(&fx, 10, 400, 0x7000, 0x8000, "/p/gamma.so");
	ck_assert_ptr_eq(ap_session__addrspace(fx.s, 10, 500), before);
	fx_free(&fx);
}
END_TEST

START_TEST(test_session_exec_and_fork)
{
	struct fixture fx;

	fx_init(&fx);
	task(&fx, AP_TASK_SNAPSHOT, 20, 1, 0);
	mmap_at(&fx, 20, 10, 0x1000, 0x2000, "/bin/sh");
	mmap_at(&fx, 20, 10, 0x7000, 0x8000, "/lib/libc.so");
	/* a child forked at 50: its parent's mappings of then */
	task(&fx, AP_TASK_NEW, 21, 20, 50);
	mmap_at(&fx, 20, 60, 0x7000, 0x8000, "/lib/libother.so");
	ck_assert_str_eq(path_at(&fx, 21, 55, 0x1100), "/bin/sh");
	ck_assert_str_eq(path_at(&fx, 21, 70, 0x7100), "/lib/libc.so");
	ck_assert_str_eq(path_at(&fx, 20, 70, 0x7100), "/lib/libother.so");
	/* the child execs at 80: nothing of the old image after it */
	task(&fx, AP_TASK_EXECED, 21, 20, 80);
	mmap_at(&fx, 21, 81, 0x4000, 0x5000, "/bin/child");
	ck_assert_str_eq(path_at(&fx, 21, 79, 0x1100), "/bin/sh");
	ck_assert_str_eq(path_at(&fx, 21, 90, 0x1100), "(none)");
	ck_assert_str_eq(path_at(&fx, 21, 90, 0x4100), "/bin/child");
	ck_assert_str_eq(path_at(&fx, 21, 79, 0x4100), "(none)");
	ck_assert_ptr_null(ap_session__addrspace(fx.s, 99, 0));
	fx_free(&fx);
}
END_TEST

/* thousands of children of one parent: the table of processes moves as
 * it grows, and each child still starts with its parent's mappings (the
 * parent was looked up before the move: report of a recording of 5,000
 * short processes crashed) */
START_TEST(test_session_many_children)
{
	struct fixture fx;
	uint32_t pid;

	fx_init(&fx);
	task(&fx, AP_TASK_SNAPSHOT, 20, 1, 0);
	mmap_at(&fx, 20, 10, 0x1000, 0x2000, "/bin/sh");
	for (pid = 1000; pid < 6000; pid++)
		task(&fx, AP_TASK_NEW, pid, 20, 50 + pid);
	for (pid = 1000; pid < 6000; pid += 499)
		ck_assert_str_eq(path_at(&fx, pid, 60 + pid, 0x1100),
				 "/bin/sh");
	fx_free(&fx);
}
END_TEST

/* thread stacks and their guard pages (data over data) make no versions:
 * 17,000 of them made as many copies of every mapping */
START_TEST(test_session_data_over_data)
{
	struct fixture fx;
	struct ap_addrspace *first;
	struct ap_mmap *m;
	uint64_t i, base = 0x7f0000000000ull;

	fx_init(&fx);
	task(&fx, AP_TASK_SNAPSHOT, 60, 1, 0);
	mmap_at(&fx, 60, 10, 0x1000, 0x2000, "/bin/x");
	first = ap_session__addrspace(fx.s, 60, 10);
	for (i = 0; i < 5000; i++) {
		m = mapping(60, 20 + i, base + i * 0x20000,
			    base + i * 0x20000 + 0x10000, "");
		m->prot = PROT_READ | PROT_WRITE;
		ap_mmap__encode(m, &fx.b);
		m = mapping(60, 20 + i, base + i * 0x20000,
			    base + i * 0x20000 + 0x1000, "");
		m->prot = PROT_NONE;
		ap_mmap__encode(m, &fx.b);
		feed(&fx);
	}
	ck_assert_ptr_eq(ap_session__addrspace(fx.s, 60, 100000), first);
	ck_assert_uint_eq(ap_addrspace__count(first), 1 + 2 * 5000);
	/* code over code still makes one */
	mmap_at(&fx, 60, 200000, 0x1000, 0x2000, "/bin/y");
	ck_assert_ptr_ne(ap_session__addrspace(fx.s, 60, 200001), first);
	ck_assert_str_eq(path_at(&fx, 60, 100000, 0x1100), "/bin/x");
	fx_free(&fx);
}
END_TEST

/* a process that took the pid of one that exited execs: a new process,
 * not the old one calling exec (identity is pid and start time) */
START_TEST(test_session_pid_reuse_exec)
{
	struct fixture fx;
	const struct ap_proc_info *p;
	struct ap_task t;

	fx_init(&fx);
	task(&fx, AP_TASK_SNAPSHOT, 40, 1, 0);		/* start 140 */
	mmap_at(&fx, 40, 10, 0x1000, 0x2000, "/bin/old");
	/* its exit was never written; another process has pid 40 now */
	memset(&t, 0, sizeof(t));
	t.ts = 100;
	t.pid = 40;
	t.ppid = 1;
	t.start_ticks = 999;
	t.kind = AP_TASK_EXECED;
	ap_task__encode(&t, &fx.b);
	feed(&fx);
	p = ap_session__proc(fx.s, 40);
	ck_assert_uint_eq(p->start_ticks, 999);
	ck_assert_uint_eq(p->generation, 0);
	ck_assert_str_eq(path_at(&fx, 40, 50, 0x1100), "(none)");
	/* the same identity execing is an exec */
	t.ts = 200;
	ap_task__encode(&t, &fx.b);
	feed(&fx);
	ck_assert_uint_eq(ap_session__proc(fx.s, 40)->generation, 1);
	fx_free(&fx);
}
END_TEST

/* what the recorder writes for pid reuse, from the task events' start
 * times (a pid /proc does not have: only the events say who it is) */
struct rsink {
	struct ap_buf b;
};

static int rsink_put(void *ctx, const void *frames, size_t len)
{
	ap_buf__put(&((struct rsink *)ctx)->b, frames, len);
	return 0;
}

static void rec_task(struct ap_recorder *r, uint32_t kind, uint32_t pid,
		     uint64_t start_ns, uint64_t ts)
{
	struct ap_ev_task e;

	memset(&e, 0, sizeof(e));
	e.hdr.type = AP_EV_TASK;
	e.hdr.pid = pid;
	e.hdr.tid = pid;
	e.hdr.ts = ts;
	e.kind = kind;
	e.ppid = 1;
	e.start_ns = start_ns;
	strcpy(e.comm, "x");
	ck_assert_int_eq(ap_recorder__event(r, &e, sizeof(e)), 0);
}

START_TEST(test_recorder_pid_reuse)
{
	const uint32_t pid = 4194305;	/* over PID_MAX_LIMIT: no /proc */
	uint64_t s1 = 5000000000ull, s2 = 9000000000ull;
	char got[256] = "";
	struct rsink sk;
	struct ap_recorder *r;
	size_t off = 0;

	ap_buf__init(&sk.b);
	r = ap_recorder__new(rsink_put, &sk);
	ck_assert_ptr_nonnull(r);
	rec_task(r, AP_TASK_EXEC, pid, s1, 10);
	/* another process under the pid (the first one's exit missed) */
	rec_task(r, AP_TASK_EXEC, pid, s2, 20);
	/* the first one's exit, late: not the second one's */
	rec_task(r, AP_TASK_EXIT, pid, s1, 30);
	rec_task(r, AP_TASK_EXIT, pid, s2, 40);
	ck_assert_int_eq(ap_recorder__flush(r), 0);
	while (off + AP_FRAME_HDR_LEN <= sk.b.len) {
		uint32_t tag = ap_get_le32(sk.b.data + off);
		uint32_t len = ap_get_le32(sk.b.data + off + 4);
		struct ap_task t;
		size_t n = strlen(got);

		if (tag == AP_TAG_TASK) {
			ck_assert_int_eq(ap_task__decode(sk.b.data + off + 8,
							 len, &t), 0);
			snprintf(got + n, sizeof(got) - n, "%u:%llu ", t.kind,
				 (unsigned long long)t.start_ticks);
		}
		off += AP_FRAME_HDR_LEN + len;
	}
	{
		char want[256];
		unsigned long long t1 = ap_ns_to_ticks(s1);
		unsigned long long t2 = ap_ns_to_ticks(s2);

		snprintf(want, sizeof(want), "%u:%llu %u:%llu %u:%llu %u:%llu %u:%llu ",
			 AP_TASK_SNAPSHOT, t1, AP_TASK_EXECED, t1,
			 AP_TASK_SNAPSHOT, t2, AP_TASK_EXECED, t2,
			 AP_TASK_EXITED, t2);
		ck_assert_str_eq(got, want);
	}
	ap_recorder__free(r);
	ap_buf__free(&sk.b);
}
END_TEST

static void lost_proc(struct fixture *fx, uint32_t pid, uint64_t start,
		      uint32_t flags, uint32_t tag, uint64_t count)
{
	struct ap_lost_proc l;

	memset(&l, 0, sizeof(l));
	l.pid = pid;
	l.flags = flags;
	l.start_ticks = start;
	l.source = AP_LOST_TABLE;
	l.tag = tag;
	l.count = count;
	strcpy(l.comm, "loser");
	ap_lost_proc__encode(&l, &fx->b);
	feed(fx);
}

/* losses by process: one entry per (pid, start, source, tag), the latest
 * cumulative count kept; a pid reused is another process; a file that
 * claims more entries than a writer makes is bounded */
START_TEST(test_session_lost_procs)
{
	const struct ap_lost_proc *l;
	struct fixture fx;
	uint32_t i;

	fx_init(&fx);
	lost_proc(&fx, 42, 1000, 0, AP_TAG_SYSCALL, 10);
	lost_proc(&fx, 42, 1000, 0, AP_TAG_SYSCALL, 7);
	lost_proc(&fx, 42, 1000, 0, AP_TAG_SCHED, 3);
	lost_proc(&fx, 42, 2000, 0, AP_TAG_SYSCALL, 5);
	lost_proc(&fx, 0, 0, AP_LOST_PROC_OTHERS, AP_TAG_SYSCALL, 9);
	ck_assert_uint_eq(ap_session__lost_procs(fx.s, &l), 4);
	ck_assert_uint_eq(l[0].pid, 42);
	ck_assert_uint_eq(l[0].count, 10);
	ck_assert_uint_eq(l[1].tag, AP_TAG_SCHED);
	ck_assert_uint_eq(l[2].start_ticks, 2000);
	ck_assert_uint_eq(l[2].count, 5);
	ck_assert_uint_eq(l[3].flags, AP_LOST_PROC_OTHERS);
	ck_assert_uint_eq(l[3].count, 9);
	for (i = 0; i < 100000; i++)
		lost_proc(&fx, 100 + i, i, 0, AP_TAG_IO, 1);
	ck_assert_uint_eq(ap_session__lost_procs(fx.s, &l), 64 * 1024);
	fx_free(&fx);
}
END_TEST

static void rec_sched_thr(struct ap_recorder *r, uint32_t pid,
			  uint64_t start_ns, uint64_t ts, uint32_t flags)
{
	struct ap_ev_sched_thread e;

	memset(&e, 0, sizeof(e));
	e.hdr.type = AP_EV_SCHED;
	e.hdr.pid = pid;
	e.hdr.tid = pid;
	e.hdr.ts = ts;
	e.kind = AP_SCHED_EV_THREAD;
	e.t.pid = pid;
	e.t.flags = flags;
	e.t.start_ns = start_ns;
	strcpy(e.comm, "x");
	ck_assert_int_eq(ap_recorder__event(r, &e, sizeof(e)), 0);
}

static void rec_sched_off(struct ap_recorder *r, uint32_t pid,
			  uint64_t start_ns, uint64_t ts)
{
	struct ap_ev_sched_off *e = calloc(1, sizeof(*e));

	ck_assert_ptr_nonnull(e);
	e->hdr.type = AP_EV_SCHED;
	e->hdr.pid = pid;
	e->hdr.tid = pid;
	e->hdr.ts = ts;
	e->kind = AP_SCHED_EV_OFF;
	e->off_ns = 1000;
	e->start_ns = start_ns;
	strcpy(e->comm, "x");
	ck_assert_int_eq(ap_recorder__event(r, e, AP_SCHED_OFF_HDR_SIZE), 0);
	free(e);
}

/* sched totals say whose they are: a later start learns the process that
 * took the pid; an older one's totals, late, keep their start and learn
 * nothing */
START_TEST(test_recorder_sched_identity)
{
	const uint32_t pid = 4194305;	/* over PID_MAX_LIMIT: no /proc */
	uint64_t s1 = 5000000000ull, s2 = 9000000000ull;
	unsigned long long t1 = ap_ns_to_ticks(s1), t2 = ap_ns_to_ticks(s2);
	char got[256] = "", want[256];
	struct rsink sk;
	struct ap_recorder *r;
	size_t off = 0;

	ap_buf__init(&sk.b);
	r = ap_recorder__new(rsink_put, &sk);
	ck_assert_ptr_nonnull(r);
	rec_task(r, AP_TASK_EXEC, pid, s1, 10);
	rec_sched_thr(r, pid, s1, 12, 0);
	/* a snapshot of the table that has the next process's thread */
	rec_sched_thr(r, pid, s2, 20, 0);
	/* the first one's last interval, exit totals and exit, late */
	rec_sched_off(r, pid, s1, 14);
	rec_sched_thr(r, pid, s1, 15, AP_SCHED_T_EXITED);
	rec_task(r, AP_TASK_EXIT, pid, s1, 16);
	/* no start said: the process the pid names */
	rec_sched_thr(r, pid, 0, 30, 0);
	ck_assert_int_eq(ap_recorder__flush(r), 0);
	while (off + AP_FRAME_HDR_LEN <= sk.b.len) {
		uint32_t tag = ap_get_le32(sk.b.data + off);
		uint32_t len = ap_get_le32(sk.b.data + off + 4);
		const uint8_t *pl = sk.b.data + off + AP_FRAME_HDR_LEN;
		struct ap_sched_ev ev;
		struct ap_task t;
		size_t n = strlen(got);

		if (tag == AP_TAG_TASK) {
			ck_assert_int_eq(ap_task__decode(pl, len, &t), 0);
			snprintf(got + n, sizeof(got) - n, "t%u:%llu ", t.kind,
				 (unsigned long long)t.start_ticks);
		} else if (tag == AP_TAG_SCHED) {
			ck_assert_int_eq(ap_sched__decode(pl, len, &ev), 0);
			snprintf(got + n, sizeof(got) - n, "%c:%llu ",
				 ev.kind == AP_SCHED_IV ? 'i' : 's',
				 (unsigned long long)(ev.kind == AP_SCHED_IV ?
						      ev.iv.start_ticks :
						      ev.thr.start_ticks));
		}
		off += AP_FRAME_HDR_LEN + len;
	}
	snprintf(want, sizeof(want),
		 "t%u:%llu t%u:%llu s:%llu t%u:%llu s:%llu i:%llu s:%llu s:%llu ",
		 AP_TASK_SNAPSHOT, t1, AP_TASK_EXECED, t1, t1,
		 AP_TASK_SNAPSHOT, t2, t2, t1, t1, t2);
	ck_assert_str_eq(got, want);
	ap_recorder__free(r);
	ap_buf__free(&sk.b);
}
END_TEST

START_TEST(test_ctxtab_keys_on_version)
{
	struct ap_strtab *strs = ap_strtab__new();
	struct ap_ctxtab t;
	struct fixture fx;
	long a, b, c;

	fx_init(&fx);
	ap_ctxtab__init(&t, strs);
	task(&fx, AP_TASK_SNAPSHOT, 30, 1, 0);
	mmap_at(&fx, 30, 100, 0x7000, 0x8000, "/p/alpha.so");
	sample(&fx, 30, 150);
	a = ap_ctxtab__index(&t, fx.s, 30, 30);
	mmap_at(&fx, 30, 200, 0x7000, 0x8000, "/p/gamma.so");
	sample(&fx, 30, 250);
	b = ap_ctxtab__index(&t, fx.s, 30, 30);
	sample(&fx, 30, 160);
	c = ap_ctxtab__index(&t, fx.s, 30, 30);
	ck_assert_int_ge(a, 0);
	/* one stack id under two versions: two keys, never merged */
	ck_assert_int_ne(a, b);
	ck_assert_int_eq(a, c);
	ck_assert_str_eq(ap_addrspace__find(ap_ctxtab__get(&t, a)->as,
					    0x7100)->path, "/p/alpha.so");
	ck_assert_str_eq(ap_addrspace__find(ap_ctxtab__get(&t, b)->as,
					    0x7100)->path, "/p/gamma.so");
	ap_ctxtab__free(&t);
	ap_strtab__free(strs);
	fx_free(&fx);
}
END_TEST

/* ---- the kernel's records ---- */

static size_t put_hdr(uint8_t *p, uint32_t type, uint16_t misc, size_t size)
{
	ap_put_le32(p, type);
	ap_put_le16(p + 4, misc);
	ap_put_le16(p + 6, size);
	return 8;
}

static void put_id(uint8_t *end, uint32_t pid, uint64_t time)
{
	ap_put_le32(end - 16, pid);
	ap_put_le32(end - 12, pid);
	ap_put_le64(end - 8, time);
}

START_TEST(test_perf_sb_parse)
{
	uint8_t rec[256];
	struct ap_perf_sb sb;
	struct ap_mmap *m = malloc(sizeof(*m));
	size_t off, size;
	int i;

	/* MMAP2 with the build-id flag another program's event left set
	 * (the kernel's doing), yet device and inode in the record:
	 * "/usr/lib/libz.so\0" padded to 24 */
	memset(rec, 0, sizeof(rec));
	size = 8 + 8 + 24 + 24 + 8 + 24 + 16;
	off = put_hdr(rec, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID,
		      size);
	ap_put_le32(rec + off, 42);
	ap_put_le32(rec + off + 4, 43);
	ap_put_le64(rec + off + 8, 0x7f0000001000ull);
	ap_put_le64(rec + off + 16, 0x3000);
	ap_put_le64(rec + off + 24, 0x1000);
	ap_put_le32(rec + off + 32, 254);		/* maj */
	ap_put_le32(rec + off + 36, 1);			/* min */
	ap_put_le64(rec + off + 40, 0x123456);		/* ino */
	for (i = 0; i < 8; i++)
		rec[off + 48 + i] = i + 1;		/* ino_generation */
	ap_put_le32(rec + off + 56, PROT_READ | PROT_EXEC);
	memcpy(rec + off + 64, "/usr/lib/libz.so", 17);
	put_id(rec + size, 42, 123456789);
	ck_assert_int_eq(ap_perf_sb__parse(rec, size, &sb, m), 0);
	ck_assert_uint_eq(sb.kind, AP_PERF_SB_MMAP);
	ck_assert_uint_eq(sb.time, 123456789);
	ck_assert_uint_eq(m->pid, 42);
	ck_assert_uint_eq(m->ts, 123456789);
	ck_assert_uint_eq(m->start, 0x7f0000001000ull);
	ck_assert_uint_eq(m->end, 0x7f0000004000ull);
	ck_assert_uint_eq(m->pgoff, 0x1000);
	ck_assert_uint_eq(m->build_id_len, 0);
	ck_assert_uint_eq(m->inode, 0x123456);
	ck_assert_uint_eq(m->prot, PROT_READ | PROT_EXEC);
	ck_assert_str_eq(m->path, "/usr/lib/libz.so");
	/* cut short: never misread */
	ck_assert_int_eq(ap_perf_sb__parse(rec, size - 8, &sb, m), -EBADMSG);

	/* anonymous code is "" as in /proc/PID/maps */
	memset(rec + off + 64, 0, 24);
	memcpy(rec + off + 64, "//anon", 7);
	ck_assert_int_eq(ap_perf_sb__parse(rec, size, &sb, m), 0);
	ck_assert_str_eq(m->path, "");

	/* COMM: exec yes, a rename no */
	memset(rec, 0, sizeof(rec));
	size = 8 + 8 + 16 + 16;
	off = put_hdr(rec, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, size);
	ap_put_le32(rec + off, 50);
	ap_put_le32(rec + off + 4, 50);
	memcpy(rec + off + 8, "shortlived", 11);
	put_id(rec + size, 50, 77);
	ck_assert_int_eq(ap_perf_sb__parse(rec, size, &sb, m), 0);
	ck_assert_uint_eq(sb.kind, AP_PERF_SB_EXEC);
	ck_assert_str_eq(sb.comm, "shortlived");
	ck_assert_uint_eq(sb.time, 77);
	put_hdr(rec, PERF_RECORD_COMM, 0, size);
	ck_assert_int_eq(ap_perf_sb__parse(rec, size, &sb, m), -ENOENT);

	/* FORK: a process yes, a thread no */
	memset(rec, 0, sizeof(rec));
	size = 8 + 16 + 8 + 16;
	off = put_hdr(rec, PERF_RECORD_FORK, 0, size);
	ap_put_le32(rec + off, 61);
	ap_put_le32(rec + off + 4, 60);
	ap_put_le32(rec + off + 8, 61);
	ap_put_le32(rec + off + 12, 60);
	put_id(rec + size, 61, 88);
	ck_assert_int_eq(ap_perf_sb__parse(rec, size, &sb, m), 0);
	ck_assert_uint_eq(sb.kind, AP_PERF_SB_FORK);
	ck_assert_uint_eq(sb.pid, 61);
	ck_assert_uint_eq(sb.ppid, 60);
	ap_put_le32(rec + off + 4, 61);
	ck_assert_int_eq(ap_perf_sb__parse(rec, size, &sb, m), -ENOENT);
	free(m);
}
END_TEST

static Suite *addrspace_suite(void)
{
	Suite *s = suite_create("addrspace");
	TCase *tc = tcase_create("versions");

	tcase_add_test(tc, test_clone_shares_then_diverges);
	tcase_add_test(tc, test_session_library_over_library);
	tcase_add_test(tc, test_session_exec_and_fork);
	tcase_add_test(tc, test_session_many_children);
	tcase_add_test(tc, test_session_data_over_data);
	tcase_add_test(tc, test_session_pid_reuse_exec);
	tcase_add_test(tc, test_recorder_pid_reuse);
	tcase_add_test(tc, test_session_lost_procs);
	tcase_add_test(tc, test_recorder_sched_identity);
	tcase_add_test(tc, test_ctxtab_keys_on_version);
	tcase_add_test(tc, test_perf_sb_parse);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(addrspace_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
