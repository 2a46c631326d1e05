// SPDX-License-Identifier: GPL-2.0
#include "record/recorder.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "aperture.h"
#include "record/collector.h"
#include "record/bidcache.h"
#include "event/event.h"
#include "util/hmap.h"
#include "record/kmaps.h"
#include "record/procfs.h"
#include "util/safefile.h"
#include "format/stacktab.h"
#include "python/python.h"
#include "symbols/symbolizer.h"
#include "syscall.h"
#include "util/vec.h"

/* a sample outside the known mappings re-reads /proc/PID/maps (only when
 * the kernel's mapping records are not there or were lost), at most
 * this often per process; doubled after each scan that finds nothing new
 * (a stack pointing outside every mapping, on purpose or not, must not
 * make the recorder rescan for ever), up to the second cap */
#define RESCAN_INTERVAL_NS	(20 * 1000 * 1000ull)
#define RESCAN_MAX_NS		(1000 * 1000 * 1000ull)
/* kernel mapping records of processes not known yet (a child whose fork
 * record is still in the ring, or under -a one without an event yet) */
#define PEND_MAX		2048
/* exited processes kept (their exit code, their identity for records
 * still in the rings); older ones are forgotten, so that the recorder's
 * memory does not grow with every process it ever saw */
#define EXITED_KEEP		1024

struct proc {
	uint32_t pid;
	uint32_t ppid;
	uint64_t start_ticks;
	uint64_t last_scan_ns;
	uint64_t scan_interval_ns;	/* 0: RESCAN_INTERVAL_NS */
	uint64_t scans;			/* of its /proc/PID/maps */
	uint32_t generation;		/* bumped at exec */
	/* an exec is seen twice: from the kernel's mapping records (first,
	 * before the new image's mappings) and from the BPF tracepoint;
	 * whichever comes first does it */
	uint32_t exec_kmaps, exec_bpf;
	int exit_code;
	int exited;
	uint64_t exit_seq;		/* order of exit, from 1 */
	struct ap_addrspace *as;	/* NULL once exited */
	/* its perf map (/tmp/perf-PID.map, JIT code), read as it grows */
	uint64_t jit_read_ns;
	uint64_t jit_off;
	int jit_nspid;			/* the pid in its own namespace */
};

struct ap_recorder {
	ap_sink_fn sink;
	void *sink_ctx;
	struct ap_buf buf;
	struct ap_stacktab *stacks;
	struct ap_kallsyms *ksyms;
	struct ap_hmap ksym_done;	/* symbol address -> 1 */
	struct ap_symbolizer *maps;	/* used for its address spaces only */
	struct ap_collector *collector;
	struct proc *procs;
	size_t nr_procs, cap_procs;
	struct ap_hmap by_pid;		/* pid -> index in procs */
	uint64_t nr_exited, exit_seq;	/* exited in procs; exits so far */
	struct ap_hmap comm_of;		/* tid -> hash of its last comm */
	struct ap_record_counts counts;
	int vdso_done;			/* its image written */
	struct ap_bidcache *bid;	/* not owned; NULL: none */
	struct ap_hmap bid_done;	/* hash of a build-id -> 1 */
	struct ap_rec_kmap **pend;	/* oldest first, packed */
	struct ap_rec_kmap *one_kmap;	/* one of them unpacked */
	struct ap_rec_kmap *bid_kmap;	/* one given its build-id */
	size_t nr_pend, cap_pend;
	void *priv[32];			/* ap_recorder__priv, by tag */
	void (*priv_free[32])(void *);
	/* what a handler's state writes again at a new window */
	void (*priv_rewrite[32])(struct ap_recorder *, void *);
	/* the loss counters the previous window's status frames said */
	uint64_t loss_base[AP_STAT_NR];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct ap_recorder *ap_recorder__new(ap_sink_fn sink, void *sink_ctx)
{
	struct ap_recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->sink = sink;
	r->sink_ctx = sink_ctx;
	ap_buf__init(&r->buf);
	ap_hmap__init(&r->ksym_done);
	ap_hmap__init(&r->by_pid);
	ap_hmap__init(&r->comm_of);
	ap_hmap__init(&r->bid_done);
	r->stacks = ap_stacktab__new();
	r->maps = ap_symbolizer__new(NULL);
	if (!r->stacks || !r->maps) {
		ap_recorder__free(r);
		return NULL;
	}
	return r;
}

void ap_recorder__free(struct ap_recorder *r)
{
	int i;

	if (!r)
		return;
	ap_buf__free(&r->buf);
	ap_stacktab__free(r->stacks);
	ap_symbolizer__free(r->maps);
	ap_hmap__free(&r->ksym_done);
	ap_hmap__free(&r->by_pid);
	ap_hmap__free(&r->comm_of);
	ap_hmap__free(&r->bid_done);
	for (i = 0; i < 32; i++)
		if (r->priv_free[i])
			r->priv_free[i](r->priv[i]);
	while (r->nr_pend)
		free(r->pend[--r->nr_pend]);
	free(r->pend);
	free(r->one_kmap);
	free(r->bid_kmap);
	free(r->procs);
	free(r);
}

void ap_recorder__set_collector(struct ap_recorder *r,
				struct ap_collector *c)
{
	size_t i;

	r->collector = c;
	/* before the probes attach: a handler's one-time set-up costs
	 * the reader tens of milliseconds, in which the ring fills */
	for (i = 0; c && i < ap_nr_event_kinds; i++)
		if (ap_event_kinds[i]->rec_prepare &&
		    (ap_collector__events(c) &
		     AP_EVMASK(ap_event_kinds[i]->tag)))
			ap_event_kinds[i]->rec_prepare(r);
}

void ap_recorder__set_buildid_cache(struct ap_recorder *r,
				    struct ap_bidcache *c)
{
	r->bid = c;
}

void ap_recorder__set_kallsyms(struct ap_recorder *r, struct ap_kallsyms *k)
{
	r->ksyms = k;
}

struct ap_buf *ap_recorder__buf(struct ap_recorder *r)
{
	return &r->buf;
}

void **ap_recorder__priv(struct ap_recorder *r, uint32_t tag,
			 void (*free_fn)(void *))
{
	if (tag >= 32)
		return NULL;
	if (free_fn)
		r->priv_free[tag] = free_fn;
	return &r->priv[tag];
}

void ap_recorder__set_rewrite(struct ap_recorder *r, uint32_t tag,
			      void (*fn)(struct ap_recorder *, void *))
{
	if (tag < 32)
		r->priv_rewrite[tag] = fn;
}

const struct ap_record_counts *ap_recorder__counts(const struct ap_recorder *r)
{
	return &r->counts;
}

void ap_recorder__count_sample(struct ap_recorder *r, int no_ustack)
{
	r->counts.samples++;
	if (no_ustack)
		r->counts.ustack_missing++;
}

void ap_recorder__count(struct ap_recorder *r, uint32_t tag, uint64_t n)
{
	if (tag < 32)
		r->counts.by_tag[tag] += n;
	r->counts.events += n;
}

int ap_recorder__flush(struct ap_recorder *r)
{
	int err;

	if (r->buf.err)
		return r->buf.err;
	if (!r->buf.len)
		return 0;
	err = r->sink(r->sink_ctx, r->buf.data, r->buf.len);
	ap_buf__reset(&r->buf);
	return err;
}

static struct proc *find_proc(struct ap_recorder *r, uint32_t pid)
{
	uint64_t *idx = ap_hmap__find(&r->by_pid, pid);

	return idx ? &r->procs[*idx] : NULL;
}

int ap_recorder__exit_code(const struct ap_recorder *r, uint32_t pid)
{
	uint64_t *idx = ap_hmap__find(&r->by_pid, pid);

	if (!idx || !r->procs[*idx].exited)
		return -1;
	return r->procs[*idx].exit_code;
}

struct scan_ctx {
	struct ap_recorder *r;
	struct proc *p;
	int added;
};

/* the kernel's records carry a build-id or an inode, /proc an inode and
 * the build-id read from the file: compare what both have */
static int same_mapping(const struct ap_mmap *a, const struct ap_mmap *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->pgoff == b->pgoff && a->prot == b->prot &&
	       (!a->inode || !b->inode || a->inode == b->inode) &&
	       (!a->build_id_len || !b->build_id_len ||
		(a->build_id_len == b->build_id_len &&
		 !memcmp(a->build_id, b->build_id, a->build_id_len))) &&
	       !strcmp(a->path, b->path);
}

static int known_mapping(const struct proc *p, const struct ap_mmap *m)
{
	const struct ap_mmap *known = ap_addrspace__find(p->as, m->start);

	return known && same_mapping(known, m);
}

/*
 * The one place a mapping of a process is written, whatever its source
 * (the /proc snapshot, a rescan, the kernel's records): the file gets it,
 * the recorder's address space of p and the collector's sensors learn it,
 * in time order per process.
 */
/* the Python frames' state (lib/python), made on first use */
static struct ap_python *python_of(struct ap_recorder *r)
{
	void **slot = ap_recorder__priv(r, AP_TAG_PYFRAME,
					(void (*)(void *))ap_python__free);

	if (!*slot)
		*slot = ap_python__new();
	if (*slot && r->collector)
		ap_python__set_map(*slot, ap_collector__py_fd(r->collector));
	return *slot;
}

static void emit_mapping(struct ap_recorder *r, struct proc *p,
			 const struct ap_mmap *m)
{
	/* a file only the target reaches: kept by build-id while it lives */
	if (r->bid && m->build_id_len && m->path[0] == '/' &&
	    (m->prot & PROT_EXEC)) {
		uint64_t h = ap_hash_bytes(m->build_id, m->build_id_len, 7);
		int fresh;

		if (ap_hmap__upsert(&r->bid_done, h == AP_HMAP_EMPTY ? 0 : h, &fresh) && fresh)
			ap_bidcache__keep(r->bid, m);
	}
	ap_mmap__encode(m, &r->buf);
	ap_addrspace__add_mapping(p->as, m);
	if (r->collector)
		ap_collector__mapping(r->collector, m);
	ap_python__mapping(python_of(r), p->pid, m);
	r->counts.mmaps++;
}

/* before the build-id is read: a known mapping is skipped */
static int on_known(void *ctx, const struct ap_mmap *m)
{
	struct scan_ctx *sc = ctx;
	const struct ap_mmap *known = ap_addrspace__find(sc->p->as, m->start);

	return known && known->start == m->start && known->end == m->end &&
	       known->pgoff == m->pgoff && known->inode == m->inode &&
	       known->prot == m->prot && !strcmp(known->path, m->path);
}

static int on_mapping(void *ctx, const struct ap_mmap *m)
{
	struct scan_ctx *sc = ctx;
	struct ap_mmap copy;

	if (known_mapping(sc->p, m))
		return 0;
	copy = *m;
	copy.ts = now_ns();
	emit_mapping(sc->r, sc->p, &copy);
	sc->added++;
	return 0;
}

/* (re)reads the mappings of p, writing the new ones; 0 or -errno */
static int scan_maps(struct ap_recorder *r, struct proc *p)
{
	struct scan_ctx sc = { r, p, 0 };
	int err;

	p->last_scan_ns = now_ns();
	r->counts.map_scans++;
	if (++p->scans > r->counts.map_scans_max)
		r->counts.map_scans_max = p->scans;
	err = ap_proc_maps_new(p->pid, 0, on_known, on_mapping, &sc);
	if (sc.added && r->collector)
		ap_collector__target_changed(r->collector, p->pid);
	if (sc.added || !p->scan_interval_ns)
		p->scan_interval_ns = RESCAN_INTERVAL_NS;
	else if (p->scan_interval_ns < RESCAN_MAX_NS)
		p->scan_interval_ns *= 2;
	return err;
}

static int find_vdso(void *ctx, const struct ap_mmap *m)
{
	struct ap_mmap *out = ctx;

	if (!strcmp(m->path, "[vdso]"))
		*out = *m;
	return 0;
}

/* The vDSO, once: the same image in every process of this kernel (ours
 * included), so that report names "[vdso]" frames. */
static void write_vdso(struct ap_recorder *r)
{
	struct ap_image img;
	struct ap_mmap *m;

	r->vdso_done = 1;
	m = calloc(1, sizeof(*m));
	if (!m)
		return;
	if (!ap_proc_maps(getpid(), 1, find_vdso, m) && m->end > m->start &&
	    m->end - m->start <= AP_IMAGE_MAX) {
		memset(&img, 0, sizeof(img));
		img.ts = now_ns();
		snprintf(img.name, sizeof(img.name), "[vdso]");
		img.len = m->end - m->start;
		img.data = (const uint8_t *)(uintptr_t)m->start;
		ap_image__encode(&img, &r->buf);
	}
	free(m);
}

static struct proc *add_proc(struct ap_recorder *r, uint32_t pid,
			     uint64_t start_ticks)
{
	uint64_t *idx;
	struct proc *p;
	int fresh;

	if (r->nr_procs == r->cap_procs) {
		size_t cap = r->cap_procs ? r->cap_procs * 2 : 64;
		struct proc *v = realloc(r->procs, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->procs = v;
		r->cap_procs = cap;
	}
	idx = ap_hmap__upsert(&r->by_pid, pid, &fresh);
	if (!idx)
		return NULL;
	/* pid reuse: the newer process takes the pid */
	*idx = r->nr_procs;
	p = &r->procs[r->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->start_ticks = start_ticks;
	p->exit_code = -1;
	p->as = ap_symbolizer__addrspace(r->maps, pid, start_ticks);
	r->counts.processes++;
	if (!r->vdso_done)
		write_vdso(r);
	return p;
}

static void write_task(struct ap_recorder *r, const struct proc *p,
		       uint32_t kind, uint32_t ppid, const char *comm,
		       uint64_t ts, int exit_code)
{
	struct ap_task t;

	memset(&t, 0, sizeof(t));
	t.ts = ts ? ts : now_ns();
	t.pid = p->pid;
	t.ppid = ppid;
	t.start_ticks = p->start_ticks;
	t.kind = kind;
	t.exit_code = exit_code;
	snprintf(t.comm, sizeof(t.comm), "%s", comm ? comm : "");
	ap_task__encode(&t, &r->buf);
}

/* the process's cgroup, once, as it is learnt: where a server finds its
 * container (util/labels.h) */
static void write_cgroup(struct ap_recorder *r, const struct proc *p,
			 uint64_t ts)
{
	struct ap_proc_cgroup c;

	memset(&c, 0, sizeof(c));
	if (ap_proc_cgroup(p->pid, c.path, sizeof(c.path)))
		return;
	c.ts = ts ? ts : now_ns();
	c.pid = p->pid;
	c.start_ticks = p->start_ticks;
	ap_proc_cgroup__encode(&c, &r->buf);
}

static void write_comm(struct ap_recorder *r, uint32_t pid, uint32_t tid,
		       const char *comm, uint64_t ts)
{
	uint64_t h = ap_hash_bytes(comm, strnlen(comm, AP_COMM_MAX), 1);
	uint64_t *slot;
	struct ap_comm c;
	int fresh;

	slot = ap_hmap__upsert(&r->comm_of, tid, &fresh);
	if (!slot || (!fresh && *slot == h))
		return;
	*slot = h;
	memset(&c, 0, sizeof(c));
	c.ts = ts ? ts : now_ns();
	c.pid = pid;
	c.tid = tid;
	snprintf(c.comm, sizeof(c.comm), "%.*s", AP_COMM_MAX - 1, comm);
	ap_comm__encode(&c, &r->buf);
}

/*
 * The table without the processes that exited before the last
 * EXITED_KEEP exits: their mappings went at their exit, their entry, pid
 * and comm go now.  Amortized: runs when twice as many are held.
 */
static void forget_exited(struct ap_recorder *r)
{
	size_t i, n = 0;

	if (r->nr_exited < 2 * EXITED_KEEP)
		return;
	for (i = 0; i < r->nr_procs; i++) {
		struct proc *p = &r->procs[i];

		if (p->exited && p->exit_seq + EXITED_KEEP <= r->exit_seq) {
			uint64_t *idx = ap_hmap__find(&r->by_pid, p->pid);

			if (idx && *idx == i) {
				ap_hmap__remove(&r->by_pid, p->pid);
				ap_hmap__remove(&r->comm_of, p->pid);
			}
			r->nr_exited--;
			continue;
		}
		if (n != i) {
			uint64_t *idx = ap_hmap__find(&r->by_pid, p->pid);

			if (idx && *idx == i)
				*idx = n;
			r->procs[n] = *p;
		}
		n++;
	}
	r->nr_procs = n;
}

/*
 * p is not the process that pid names now: the pid was reused (p's exit
 * was missed, or is still on its way from another buffer).  start: the
 * start time (ticks) an event gave, 0 to ask /proc.  Unknown start times
 * say nothing.
 */
static int pid_reused(const struct proc *p, uint64_t start)
{
	if (!start && ap_proc_stat(p->pid, &start, NULL, NULL, 0))
		return 0;
	return p->start_ticks && start && p->start_ticks != start;
}

/* p's pid went to another process: p is gone (its exit, if it comes, is
 * another identity's and not applied to the new one) */
static void proc_gone(struct ap_recorder *r, struct proc *p)
{
	if (p->exited)
		return;
	r->counts.exited++;
	r->nr_exited++;
	p->exit_seq = ++r->exit_seq;
	p->exited = 1;
	if (r->collector)
		ap_collector__image_gone(r->collector, p->pid);
	ap_python__gone(python_of(r), p->pid);
	ap_symbolizer__drop_addrspace(r->maps, p->as);
	p->as = NULL;
}

/* ---- kernel mapping records of processes not known yet ---- */

/* kept packed: a path as long as it is, not 4 KiB (PEND_MAX of them
 * under -a were 8 MiB) */
static int pend_add(struct ap_recorder *r, const struct ap_rec_kmap *rec)
{
	struct ap_rec_kmap *e;

	if (r->nr_pend == PEND_MAX) {
		/* the oldest quarter: processes that never became known */
		size_t drop = PEND_MAX / 4, i;

		for (i = 0; i < drop; i++)
			free(r->pend[i]);
		memmove(r->pend, r->pend + drop,
			(r->nr_pend - drop) * sizeof(*r->pend));
		r->nr_pend -= drop;
	}
	if (ap_grow((void **)&r->pend, &r->cap_pend, r->nr_pend,
		    sizeof(*r->pend), 64))
		return -ENOMEM;
	e = malloc(ap_rec_kmap__size(rec));
	if (!e)
		return -ENOMEM;
	ap_rec_kmap__pack(e, rec);
	r->pend[r->nr_pend++] = e;
	return 0;
}

/* the last pending fork of pid, or NULL */
static const struct ap_rec_kmap *pend_fork(const struct ap_recorder *r,
					   uint32_t pid)
{
	size_t i = r->nr_pend;

	while (i--)
		if (r->pend[i]->hdr.pid == pid &&
		    r->pend[i]->kind == AP_PERF_SB_FORK)
			return r->pend[i];
	return NULL;
}

static int apply_kmap(struct ap_recorder *r, struct proc *p,
		      const struct ap_rec_kmap *rec);

/* p became known: its pending records from born_ts on, in order */
static void pend_flush(struct ap_recorder *r, struct proc *p,
		       uint64_t born_ts)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_pend; i++) {
		struct ap_rec_kmap *e = r->pend[i];

		if (e->hdr.pid != p->pid) {
			r->pend[n++] = e;
			continue;
		}
		/* older ones were another process under the same pid */
		if (e->hdr.ts >= born_ts && e->kind != AP_PERF_SB_FORK &&
		    (r->one_kmap || (r->one_kmap = malloc(sizeof(*e))))) {
			ap_rec_kmap__unpack(r->one_kmap, e);
			apply_kmap(r, p, r->one_kmap);
		}
		free(e);
	}
	r->nr_pend = n;
}

/* a forked child starts with its parent's mappings: the sensors learn
 * them; the file does not repeat them (its readers inherit them too) */
static void inherit(struct ap_recorder *r, struct proc *child,
		    const struct proc *parent, uint64_t ts)
{
	size_t i, n = ap_addrspace__count(parent->as);
	struct ap_mmap *m;

	if (ap_addrspace__copy(child->as, parent->as))
		return;
	ap_python__fork(python_of(r), parent->pid, child->pid);
	if (!r->collector)
		return;
	m = malloc(sizeof(*m));
	if (!m)
		return;
	for (i = 0; i < n; i++) {
		ap_mmap__copy(m, ap_addrspace__at(parent->as, i));
		m->pid = child->pid;
		m->ts = ts;
		ap_collector__mapping(r->collector, m);
	}
	free(m);
}

static struct proc *learn_proc_depth(struct ap_recorder *r, uint32_t pid,
				     uint32_t kind, uint64_t ts, int depth,
				     uint64_t start);

/* a process first seen: identity, comm, mappings */
static struct proc *learn_proc(struct ap_recorder *r, uint32_t pid,
			       uint32_t kind, uint64_t ts)
{
	return learn_proc_depth(r, pid, kind, ts, 0, 0);
}

/* start: its start time (ticks) as an event said, 0: not known */
static struct proc *learn_proc_depth(struct ap_recorder *r, uint32_t pid,
				     uint32_t kind, uint64_t ts, int depth,
				     uint64_t start)
{
	char comm[AP_COMM_MAX] = "";
	const struct ap_rec_kmap *fork;
	struct proc *p, *parent = NULL;
	uint64_t now_start = 0, born = 0;
	pid_t ppid = 0;

	/* a process that is already gone keeps start 0 (or the one its
	 * event gave): its samples still count, its mappings are what the
	 * kernel's records said */
	if (!ap_proc_stat(pid, &now_start, &ppid, comm, sizeof(comm)) &&
	    (!start || now_start == start))
		start = now_start;
	fork = pend_fork(r, pid);
	if (fork) {
		/* forked during the recording: from its parent (learnt
		 * first, once), then what it did since */
		born = fork->hdr.ts;
		ppid = fork->ppid;
		parent = find_proc(r, ppid);
		if ((!parent || parent->exited) && !depth && (uint32_t)ppid != pid)
			parent = learn_proc_depth(r, ppid, AP_TASK_SNAPSHOT,
						  0, depth + 1, 0);
		if (parent && parent->exited)
			parent = NULL;
	}
	p = add_proc(r, pid, start);
	if (!p)
		return NULL;
	p->ppid = ppid;
	/* add_proc may have moved the table */
	if (parent)
		parent = find_proc(r, ppid);
	if (fork && parent) {
		write_task(r, p, AP_TASK_NEW, ppid, comm, born, 0);
		inherit(r, p, parent, born);
	} else {
		write_task(r, p, kind, ppid, comm, ts, 0);
		scan_maps(r, p);
	}
	write_cgroup(r, p, fork ? born : ts);
	pend_flush(r, p, born);
	return p;
}

struct thread_ctx {
	struct ap_recorder *r;
	uint32_t pid;
};

static int on_thread(void *ctx, pid_t tid)
{
	struct thread_ctx *tc = ctx;
	char comm[AP_COMM_MAX];

	if (!ap_proc_thread_comm(tc->pid, tid, comm, sizeof(comm)))
		write_comm(tc->r, tc->pid, tid, comm, 0);
	return 0;
}

int ap_recorder__snapshot(struct ap_recorder *r, pid_t pid)
{
	struct thread_ctx tc = { r, pid };
	struct proc *p = find_proc(r, pid);

	if (!p) {
		p = learn_proc(r, pid, AP_TASK_SNAPSHOT, 0);
		if (!p)
			return -ENOMEM;
	}
	ap_proc_threads(pid, on_thread, &tc);
	return r->buf.err;
}

/* a live process again at a new window's start: its identity, each
 * thread's comm and every mapping known, as the snapshot wrote them */
static void rewrite_proc(struct ap_recorder *r, struct proc *p,
			 struct ap_mmap *m)
{
	struct thread_ctx tc = { r, p->pid };
	char comm[AP_COMM_MAX] = "";
	size_t i, n = ap_addrspace__count(p->as);

	ap_proc_stat(p->pid, NULL, NULL, comm, sizeof(comm));
	write_task(r, p, AP_TASK_SNAPSHOT, p->ppid, comm, 0, 0);
	ap_proc_threads(p->pid, on_thread, &tc);
	for (i = 0; i < n; i++) {
		ap_mmap__copy(m, ap_addrspace__at(p->as, i));
		m->ts = now_ns();
		ap_mmap__encode(m, &r->buf);
	}
}

int ap_recorder__new_window(struct ap_recorder *r)
{
	struct ap_stacktab *st = ap_stacktab__new();
	struct ap_mmap *m = malloc(sizeof(*m));
	size_t i;
	int err;

	err = ap_recorder__flush(r);
	if (!st || !m) {
		ap_stacktab__free(st);
		free(m);
		return -ENOMEM;
	}
	/* ids are the file's: the next one numbers them from 1 again,
	 * which also keeps the tables' memory to what one window needs */
	ap_stacktab__free(r->stacks);
	r->stacks = st;
	ap_hmap__free(&r->ksym_done);
	ap_hmap__init(&r->ksym_done);
	ap_hmap__free(&r->comm_of);
	ap_hmap__init(&r->comm_of);
	r->vdso_done = 0;
	if (r->priv[AP_TAG_PYFRAME])
		ap_python__new_window(r->priv[AP_TAG_PYFRAME]);
	write_vdso(r);
	for (i = 0; i < r->nr_procs; i++) {
		struct proc *p = &r->procs[i];

		if (p->exited || !p->as)
			continue;
		rewrite_proc(r, p, m);
		/* its perf map read again from the start */
		p->jit_off = 0;
	}
	free(m);
	for (i = 0; i < 32; i++)
		if (r->priv_rewrite[i] && r->priv[i])
			r->priv_rewrite[i](r, r->priv[i]);
	return err ? err : r->buf.err;
}

int ap_recorder__rescan(struct ap_recorder *r, uint32_t pid)
{
	struct proc *p = find_proc(r, pid);

	if (!p || p->exited)
		return 0;
	return scan_maps(r, p);
}

/*
 * The process an event of pid is of.  start: its start time (ticks) when
 * the event says it, 0 when it does not.  The process known under pid
 * unless that one lost the pid to a newer one: the event's start time is
 * later, or (none given) it exited and /proc has another; the newer one is
 * learnt.  An event of an older process than the one known (its record
 * was still on its way) gets the known one: its caller keeps the start.
 */
static struct proc *event_proc(struct ap_recorder *r, uint32_t pid,
			       uint64_t start)
{
	struct proc *p = find_proc(r, pid);

	if (p && (start ? p->start_ticks && start > p->start_ticks :
			  p->exited && pid_reused(p, 0))) {
		proc_gone(r, p);
		p = NULL;
	}
	if (!p)
		/* -a, a target's child whose fork record was lost, or a
		 * process that took a known one's pid */
		p = learn_proc_depth(r, pid, AP_TASK_SNAPSHOT, 0, 0, start);
	return p;
}

int ap_recorder__touch_id(struct ap_recorder *r, uint32_t pid, uint32_t tid,
			  const char *comm, uint64_t *start)
{
	uint64_t want = start ? *start : 0;
	struct proc *p = event_proc(r, pid, want);

	if (!p)
		return -ENOMEM;
	if (!want && start)
		*start = p->start_ticks;
	/* the name of an older process's thread is not the tid's now */
	if (comm && comm[0] && (!want || want == p->start_ticks ||
				!p->start_ticks))
		write_comm(r, pid, tid, comm, 0);
	return r->buf.err;
}

int ap_recorder__touch(struct ap_recorder *r, uint32_t pid, uint32_t tid,
		       const char *comm)
{
	return ap_recorder__touch_id(r, pid, tid, comm, NULL);
}

/* a ring record's comm, AP_COMM_MAX bytes that may lack their NUL */
_Static_assert(AP_COMM_MAX == AP_COMM_LEN, "comm length");
static void comm_str(char dst[AP_COMM_MAX], const char *src)
{
	memcpy(dst, src, AP_COMM_MAX);
	dst[AP_COMM_MAX - 1] = '\0';
}

int ap_recorder__touch_ev(struct ap_recorder *r, const struct ap_ev_hdr *hdr,
			  const char *comm, uint64_t *start)
{
	char s[AP_COMM_MAX];

	comm_str(s, comm);
	return ap_recorder__touch_id(r, hdr->pid, hdr->tid, s, start);
}

static void write_ksyms(struct ap_recorder *r, const uint64_t *ips, int n)
{
	int i;

	if (!r->ksyms)
		return;
	for (i = 0; i < n; i++) {
		const struct ap_kallsym *k = ap_kallsyms__find(r->ksyms, ips[i]);
		struct ap_ksym rec;
		int fresh;

		if (!k)
			continue;
		if (!ap_hmap__upsert(&r->ksym_done, k->addr, &fresh) || !fresh)
			continue;
		ap_kallsym__to_ksym(k, &rec);
		ap_ksym__encode(&rec, &r->buf);
		r->counts.ksyms++;
	}
}

/* addresses outside every known mapping: a dlopen or mmap since the last
 * scan (re-read, rate-limited) */
static void check_addrs(struct ap_recorder *r, struct proc *p,
			const uint64_t *ips, int n)
{
	int i;

	if (!p->as || p->exited)
		return;
	for (i = 0; i < n; i++) {
		if (ap_addrspace__find(p->as, ips[i]))
			continue;
		if (now_ns() - p->last_scan_ns >= p->scan_interval_ns)
			scan_maps(r, p);
		return;
	}
}

void ap_recorder__need_addr(struct ap_recorder *r, uint32_t pid,
			    uint64_t addr)
{
	struct proc *p = find_proc(r, pid);

	/* the stack, grown without a mapping record, or what existed
	 * before the start */
	if (p)
		check_addrs(r, p, &addr, 1);
}

int ap_stacks__whole(const void *rec, size_t size, size_t st_off)
{
	const size_t hdr = st_off + offsetof(struct ap_stacks, ips);
	struct ap_stacks st;

	if (size < hdr)
		return 0;
	memcpy(&st, (const char *)rec + st_off, offsetof(struct ap_stacks, ips));
	if (st.kstack_sz < 0 || st.ustack_sz < 0 ||
	    st.kstack_sz > AP_MAX_KSTACK * 8 ||
	    st.ustack_sz > AP_MAX_USTACK * 8 || st.py_n > AP_MAX_PYSTACK)
		return 0;
	return size >= hdr + (size_t)st.kstack_sz / 8 * 8 +
		       (size_t)st.ustack_sz / 8 * 8 + (size_t)st.py_n * 16;
}

/* the pid of p in its own pid namespace: the perf map's name uses it */
static int ns_pid(uint32_t pid)
{
	char path[64], line[256];
	int ns = (int)pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return ns;
	while (fgets(line, sizeof(line), f)) {
		char *p, *end;

		if (strncmp(line, "NSpid:", 6))
			continue;
		/* the last field is the innermost namespace's */
		for (p = line + 6; *p; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			ns = (int)v;
		}
		break;
	}
	fclose(f);
	return ns;
}

/*
 * The new lines of p's perf map ("START SIZE name", hex), read through
 * its root while it lives: JIT runtimes (node --perf-basic-prof, Python
 * -X perf, the JVM's agents) append as they generate code, and may delete
 * the file when they exit.  Rate-limited; force: at the end.
 */
static void read_jit(struct ap_recorder *r, struct proc *p, int force)
{
	char path[128], line[1024];
	uint64_t now = now_ns();
	struct ap_jit j;
	FILE *f;
	int fd;

	if (p->exited || (!force && now - p->jit_read_ns < RESCAN_INTERVAL_NS))
		return;
	p->jit_read_ns = now;
	if (!p->jit_nspid)
		p->jit_nspid = ns_pid(p->pid);
	snprintf(path, sizeof(path), "/proc/%u/root/tmp/perf-%d.map", p->pid,
		 p->jit_nspid);
	fd = ap_open_regular(path, 0);
	if (fd < 0)
		return;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return;
	}
	if (fseeko(f, (off_t)p->jit_off, SEEK_SET)) {
		fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		unsigned long long start, size;
		int pos = 0;

		/* a line still being written: read it next time */
		if (!n || line[n - 1] != '\n')
			break;
		p->jit_off += n;
		line[n - 1] = '\0';
		if (sscanf(line, "%llx %llx %n", &start, &size, &pos) < 2 ||
		    !pos || !size)
			continue;
		memset(&j, 0, sizeof(j));
		j.ts = now;
		j.pid = p->pid;
		j.start = start;
		j.size = size;
		snprintf(j.name, sizeof(j.name), "%s", line + pos);
		ap_jit__encode(&j, &r->buf);
	}
	fclose(f);
}

/* frames of the BPF program that took the stack and of what called it */
static int bpf_machinery(const struct ap_kallsym *k)
{
	static const char *const prefixes[] = {
		"bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_",
		"trace_call_bpf", "bpf_overflow_handler", "__bpf_prog_run",
	};
	size_t i;

	if (!strcmp(k->module, "bpf"))
		return 1;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(k->name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/*
 * How many leaf frames of a kernel stack are aperture's own: a stack taken
 * in a tracepoint program starts in the program's JIT code (no symbol, or
 * a [bpf] one), bpf_trace_run*, __traceiter_*; the event happened in the
 * first frame after them, as perf's tracepoint stacks start there.
 */
static int own_frames(struct ap_recorder *r, const uint64_t *ips, int n)
{
	int i, last = -1;

	if (!r->ksyms)
		return 0;
	/* a sample that interrupted the program may start in a helper it
	 * called (__htab_map_lookup_elem): look a few frames in */
	for (i = 0; i < n && i < 16; i++) {
		const struct ap_kallsym *k = ap_kallsyms__find(r->ksyms, ips[i]);

		if (k && bpf_machinery(k))
			last = i;
	}
	return last + 1;
}

static uint32_t recorder__stack(struct ap_recorder *r, uint32_t pid,
				const void *stacks, int strip)
{
	const struct ap_stacks *st = stacks;
	int nk = st->kstack_sz > 0 ? st->kstack_sz / 8 : 0;
	int nu = st->ustack_sz > 0 ? st->ustack_sz / 8 : 0;
	int npy = st->py_n < AP_MAX_PYSTACK ? st->py_n : AP_MAX_PYSTACK;
	const uint64_t *kips = (const uint64_t *)st->ips;
	const uint64_t *uips, *pyf;
	uint64_t merged[AP_MAX_USTACK + AP_MAX_PYSTACK];
	struct proc *p = find_proc(r, pid);
	struct ap_stack s;
	uint32_t id;
	int fresh = 0;

	_Static_assert(sizeof(st->ips[0]) == sizeof(uint64_t), "ip width");
	if (nk > AP_MAX_KSTACK)
		nk = AP_MAX_KSTACK;
	if (nu > AP_MAX_KSTACK + AP_MAX_USTACK - nk)
		nu = AP_MAX_KSTACK + AP_MAX_USTACK - nk;
	uips = kips + nk;
	pyf = uips + nu;
	if (nk && strip) {
		int own = own_frames(r, kips, nk);

		kips += own;
		nk -= own;
	}
	if (!nk && !nu)
		return 0;
	/* the kernel tells every mapping as it happens: a frame outside
	 * them is not code (frame-pointer garbage), and /proc would not
	 * know it either */
	if (p && !(r->collector && ap_collector__mappings_live(r->collector)))
		check_addrs(r, p, uips, nu);
	if (r->collector && nu)
		ap_collector__user_stack(r->collector, pid, uips, nu,
					 st->uflags);
	/* a leaf in anonymous code: JIT code its perf map may name */
	if (p && nu) {
		const struct ap_mmap *m = ap_addrspace__find(p->as, uips[0]);

		if (!m || (!m->path[0] && (m->prot & PROT_EXEC)))
			read_jit(r, p, 0);
	}
	/* a return address outside the executable mappings (after the
	 * rescan above) is data: a frame-pointer chain gone astray, or where
	 * the unwinder stopped; the chain ends before it (nothing known of
	 * the mappings: nothing to say) */
	if (p && p->as && !p->exited && ap_addrspace__count(p->as)) {
		int i;

		for (i = 1; i < nu; i++) {
			const struct ap_mmap *m =
				ap_addrspace__find(p->as, uips[i]);

			if (!m || !(m->prot & PROT_EXEC)) {
				r->counts.ustack_cut++;
				nu = i;
				break;
			}
		}
	}
	if (!nk && !nu)
		return 0;
	if (npy && nu) {
		nu = ap_python__merge(python_of(r), pid, uips, nu, pyf, npy,
				      merged, AP_MAX_USTACK + AP_MAX_PYSTACK,
				      &r->buf);
		uips = merged;
	}
	id = ap_stacktab__intern(r->stacks, kips, nk, uips, nu, &fresh);
	if (!id || !fresh)
		return id;
	/* cut at the depth limit (the unwinder says so; a kernel side as
	 * deep as the buffer): the root is not known */
	if ((st->uflags & AP_USTACK_TRUNCATED) ||
	    st->ustack_sz / 8 >= AP_MAX_USTACK ||
	    st->kstack_sz / 8 >= AP_MAX_KSTACK)
		ap_stacktab__set_flags(r->stacks, id, AP_STACK_TRUNCATED);
	else if (st->uflags & AP_USTACK_COMPLETE)
		ap_stacktab__set_flags(r->stacks, id, AP_STACK_OUTERMOST);
	write_ksyms(r, kips, nk);
	if (ap_stacktab__get(r->stacks, id, &s))
		return 0;
	ap_stack__encode(&s, &r->buf);
	r->counts.stacks++;
	return id;
}

/* a tracepoint's or probe's stack: its own frames cut */
uint32_t ap_recorder__stack(struct ap_recorder *r, uint32_t pid,
			    const void *stacks)
{
	return recorder__stack(r, pid, stacks, 1);
}

uint32_t ap_recorder__sample_stack(struct ap_recorder *r, uint32_t pid,
				   const void *stacks)
{
	return recorder__stack(r, pid, stacks, 0);
}

/* the image of p is replaced: a fresh address space under the same
 * identity (the session does the same); scan: read the new one from
 * /proc (when the kernel's records did not say it) */
static void exec_image(struct ap_recorder *r, struct proc *p, uint32_t tid,
		       const char *comm, uint64_t ts, int scan)
{
	p->generation++;
	if (r->collector)
		ap_collector__image_gone(r->collector, p->pid);
	ap_python__gone(python_of(r), p->pid);
	ap_addrspace__reset(p->as);
	write_task(r, p, AP_TASK_EXECED, p->ppid, comm, ts, 0);
	write_comm(r, p->pid, tid, comm, ts);
	if (scan)
		scan_maps(r, p);
}

/* a kernel record of a known process */
static int apply_kmap(struct ap_recorder *r, struct proc *p,
		      const struct ap_rec_kmap *rec)
{
	char comm[AP_COMM_MAX];

	switch (rec->kind) {
	case AP_PERF_SB_EXEC:
		if (p->exec_bpf > p->exec_kmaps) {
			/* the tracepoint's record came first and did it */
			p->exec_kmaps++;
			break;
		}
		p->exec_kmaps++;
		comm_str(comm, rec->comm);
		exec_image(r, p, rec->hdr.tid, comm, rec->hdr.ts, 0);
		break;
	case AP_PERF_SB_MMAP:
		if (known_mapping(p, &rec->m))
			break;
		emit_mapping(r, p, &rec->m);
		/* sensors that probe files (gpu) look at the new one */
		if (r->collector && rec->m.path[0] == '/' &&
		    (rec->m.prot & PROT_EXEC))
			ap_collector__target_changed(r->collector, p->pid);
		break;
	}
	return 0;
}

/* the kernel's record of a code mapping with its file's build-id, read
 * as soon as the record comes (the kernel's records carry none: kmaps.c) */
static const struct ap_rec_kmap *with_build_id(struct ap_recorder *r,
					       const struct ap_rec_kmap *rec)
{
	if (rec->kind != AP_PERF_SB_MMAP || rec->m.build_id_len ||
	    rec->m.path[0] != '/' || !(rec->m.prot & PROT_EXEC))
		return rec;
	if (!r->bid_kmap && !(r->bid_kmap = malloc(sizeof(*rec))))
		return rec;
	memcpy(r->bid_kmap, rec, sizeof(*rec));
	ap_proc_mapping_build_id(&r->bid_kmap->m);
	return r->bid_kmap;
}

static int on_kmap(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_rec_kmap *rec = data;
	struct proc *p;

	if (size < offsetof(struct ap_rec_kmap, m))
		return 0;
	if (rec->kind == AP_PERF_SB_MMAP && size < sizeof(*rec))
		return 0;
	p = find_proc(r, rec->hdr.pid);
	/* the kernel's exec record of a process that took the pid of one
	 * whose exit is still in the ring: not that one calling exec */
	if (p && !p->exited && rec->kind == AP_PERF_SB_EXEC &&
	    pid_reused(p, 0)) {
		proc_gone(r, p);
		p = learn_proc(r, rec->hdr.pid, AP_TASK_SNAPSHOT, 0);
		if (!p)
			return -ENOMEM;
	}
	if (p && !p->exited) {
		/* the child is known already when its BPF record came first */
		if (rec->kind == AP_PERF_SB_FORK)
			return 0;
		return apply_kmap(r, p, with_build_id(r, rec));
	}
	/* with targets (-p, -- CMD): only what descends from them waits, so
	 * that the rest of the system never pushes it out of the table */
	if (r->collector && !ap_collector__system_wide(r->collector)) {
		uint32_t parent = rec->kind == AP_PERF_SB_FORK ? rec->ppid :
								 rec->hdr.pid;
		struct proc *pp = find_proc(r, parent);

		if (rec->kind == AP_PERF_SB_FORK && pp && !pp->exited)
			return pend_add(r, rec);
		if (!pend_fork(r, parent))
			return 0;
	}
	return pend_add(r, with_build_id(r, rec));
}

static int on_task(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_task *e = data;
	const struct ap_rec_kmap *fork;
	struct proc *p, *parent;
	char comm[AP_COMM_MAX];
	uint64_t born;

	if (size < sizeof(*e))
		return 0;
	comm_str(comm, e->comm);
	switch (e->kind) {
	case AP_TASK_FORK:
		p = find_proc(r, e->hdr.pid);
		if (p && !p->exited &&
		    p->start_ticks == ap_ns_to_ticks(e->start_ns))
			break;		/* learnt from its kernel records */
		fork = pend_fork(r, e->hdr.pid);
		born = fork && fork->hdr.ts < e->hdr.ts ? fork->hdr.ts :
							  e->hdr.ts;
		p = add_proc(r, e->hdr.pid, ap_ns_to_ticks(e->start_ns));
		if (!p)
			return -ENOMEM;
		p->ppid = e->ppid;
		write_task(r, p, AP_TASK_NEW, e->ppid, comm, e->hdr.ts, 0);
		write_cgroup(r, p, e->hdr.ts);
		write_comm(r, e->hdr.pid, e->hdr.tid, comm, e->hdr.ts);
		parent = find_proc(r, e->ppid);
		if (parent && !parent->exited && parent != p)
			inherit(r, p, parent, e->hdr.ts);
		else
			scan_maps(r, p);
		pend_flush(r, p, born);
		break;
	case AP_TASK_EXEC:
		p = find_proc(r, e->hdr.pid);
		/* another process under a pid known before: not it calling
		 * exec (identity is pid and start time) */
		if (p && !p->exited &&
		    pid_reused(p, ap_ns_to_ticks(e->start_ns)))
			proc_gone(r, p);
		if (!p || p->exited)
			p = learn_proc_depth(r, e->hdr.pid, AP_TASK_SNAPSHOT,
					     0, 0, ap_ns_to_ticks(e->start_ns));
		if (!p)
			return -ENOMEM;
		if (p->exec_kmaps > p->exec_bpf) {
			/* done from the kernel's mapping records */
			p->exec_bpf++;
			write_comm(r, e->hdr.pid, e->hdr.tid, comm, e->hdr.ts);
			break;
		}
		p->exec_bpf++;
		p->ppid = e->ppid;
		exec_image(r, p, e->hdr.tid, comm, e->hdr.ts, 1);
		break;
	case AP_TASK_EXIT:
		p = find_proc(r, e->hdr.pid);
		/* the exit of a process known under another identity */
		if (!p || (p->start_ticks && e->start_ns &&
			   p->start_ticks != ap_ns_to_ticks(e->start_ns)))
			return 0;
		proc_gone(r, p);
		p->exit_code = e->exit_code;
		write_task(r, p, AP_TASK_EXITED, e->ppid, comm, e->hdr.ts,
			   e->exit_code);
		forget_exited(r);
		break;
	case AP_TASK_COMM:
		if (find_proc(r, e->hdr.pid))
			write_comm(r, e->hdr.pid, e->hdr.tid, comm, e->hdr.ts);
		break;
	}
	return 0;
}

static int on_pycode(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_pycode *e = data;

	if (size >= sizeof(*e))
		ap_python__code(python_of(r), e->hdr.pid, e->code, e->check);
	return 0;
}

/* BPF records that are no event kind's: the kinds' own come from their
 * rows in lib/event/kinds.c (types unique across both: test_event) */
const struct ap_rec_handler ap_recorder_own_handlers[] = {
	{ AP_EV_TASK, on_task, UINT32_MAX },
	{ AP_EV_PYCODE, on_pycode, UINT32_MAX },
	{ AP_REC_KMAP, on_kmap, UINT32_MAX },
	{ 0 },
};

static const struct ap_rec_handler *find_handler(uint32_t type)
{
	const struct ap_rec_handler *h;
	size_t i;

	for (h = ap_recorder_own_handlers; h->fn; h++)
		if (h->type == type)
			return h;
	for (i = 0; i < ap_nr_event_kinds; i++)
		for (h = ap_event_kinds[i]->rec; h && h->fn; h++)
			if (h->type == type)
				return h;
	return NULL;
}

int ap_recorder__event(void *ctx, const void *data, size_t size)
{
	struct ap_recorder *r = ctx;
	const struct ap_ev_hdr *h = data;
	const struct ap_rec_handler *hd;
	int err;

	if (size < sizeof(*h))
		return 0;
	hd = find_handler(h->type);
	if (hd) {
		err = hd->fn(r, data, size);
		if (err)
			return err;
		if (hd->tag < 32u) {
			r->counts.by_tag[hd->tag]++;
			r->counts.events++;
		}
	}
	if (r->buf.err)
		return r->buf.err;
	/* keep the buffer small: the sink batches into blocks */
	if (r->buf.len >= 64 * 1024)
		return ap_recorder__flush(r);
	return 0;
}

/* the BPF loss counters (AP_STAT_*) as the file's (source, tag) */
static const struct {
	uint32_t stat, source, tag;
} loss_map[] = {
	{ AP_STAT_RB_DROP, AP_LOST_RINGBUF, UINT32_MAX },
	{ AP_STAT_KSTACK_ERR, AP_LOST_KSTACK, UINT32_MAX },
	{ AP_STAT_USTACK_ERR, AP_LOST_USTACK, UINT32_MAX },
	{ AP_STAT_TARGET_FULL, AP_LOST_TABLE, AP_TAG_TASK },
	{ AP_STAT_SYSCALL_TABLE_FULL, AP_LOST_TABLE, AP_TAG_SYSCALL },
	{ AP_STAT_LOCK_TABLE_FULL, AP_LOST_TABLE, AP_TAG_LOCK },
	{ AP_STAT_GPU_TABLE_FULL, AP_LOST_TABLE, AP_TAG_GPU },
	{ AP_STAT_SCHED_TABLE_FULL, AP_LOST_TABLE, AP_TAG_SCHED },
	{ AP_STAT_IO_UNRESOLVED, AP_LOST_UNRESOLVED, AP_TAG_IO },
	{ AP_STAT_IO_TABLE_FULL, AP_LOST_TABLE, AP_TAG_IO },
	{ AP_STAT_SCHED_UNSEEN, AP_LOST_UNRESOLVED, AP_TAG_SCHED },
};
#define NR_LOSS_MAP (sizeof(loss_map) / sizeof(loss_map[0]))

/* one process's losses (ap_loss_fn): a lost-proc frame per counter */
static void on_loss(void *ctx, uint32_t pid, uint64_t start_ns,
		    const char *comm, int others, const uint64_t *n)
{
	struct ap_recorder *r = ctx;
	struct ap_record_counts *k = &r->counts;
	struct ap_lost_proc l = {
		.ts = now_ns(),
		.pid = pid,
		.flags = others ? AP_LOST_PROC_OTHERS : 0,
		.start_ticks = start_ns ? ap_ns_to_ticks(start_ns) : 0,
	};
	uint64_t total = 0;
	size_t i;

	snprintf(l.comm, sizeof(l.comm), "%s", comm);
	for (i = 0; i < NR_LOSS_MAP; i++) {
		if (loss_map[i].stat >= AP_LOSS_NR || !n[loss_map[i].stat])
			continue;
		l.source = loss_map[i].source;
		l.tag = loss_map[i].tag;
		l.count = n[loss_map[i].stat];
		/* switches not reported are no records lost: the summary
		 * counts them apart */
		if (loss_map[i].stat != AP_STAT_SCHED_UNSEEN)
			total += l.count;
		ap_lost_proc__encode(&l, &r->buf);
	}
	if (others || !total)
		return;
	k->losers++;
	/* ties to the lower pid, as report orders them */
	if (total > k->loser_lost ||
	    (total == k->loser_lost && pid < k->loser_pid)) {
		k->loser_lost = total;
		k->loser_pid = pid;
		memcpy(k->loser_comm, l.comm, sizeof(k->loser_comm));
	}
}

void ap_recorder__set_loss_base(struct ap_recorder *r,
				const uint64_t *counters)
{
	memcpy(r->loss_base, counters, sizeof(r->loss_base));
}

int ap_recorder__write_status(struct ap_recorder *r, struct ap_collector *c)
{
	uint64_t counters[AP_STAT_NR];
	struct ap_unwind_info uw;
	const struct ap_sensor *st;
	size_t i, n;

	/* the perf maps of the targets still running */
	for (i = 0; i < r->nr_procs; i++)
		if (r->procs[i].jit_read_ns)
			read_jit(r, &r->procs[i], 1);
	ap_collector__counters(c, counters);
	for (i = 0; i < NR_LOSS_MAP; i++) {
		struct ap_lost l = {
			.ts = now_ns(),
			.source = loss_map[i].source,
			.tag = loss_map[i].tag,
			.count = counters[loss_map[i].stat] -
				 r->loss_base[loss_map[i].stat],
		};

		if (l.count)
			ap_lost__encode(&l, &r->buf);
	}
	/* who lost them: read after the counters, and nothing is traced
	 * any more (ap_collector__stop), so the sums match */
	r->counts.losers = 0;
	r->counts.loser_lost = 0;
	ap_collector__losses(c, on_loss, r);
	n = ap_collector__sensors(c, &st);
	for (i = 0; i < n; i++)
		if (ap_collector__events(c) & AP_EVMASK(st[i].tag))
			ap_sensor__encode(&st[i], &r->buf);
	ap_collector__unwind_info(c, counters, &uw);
	uw.ts = now_ns();
	uw.c[AP_UWC_DATA_CUT] = r->counts.ustack_cut;
	ap_unwind_info__encode(&uw, &r->buf);
	return ap_recorder__flush(r);
}
