// SPDX-License-Identifier: GPL-2.0
#include "report/session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hmap.h"
#include "format/stacktab.h"
#include "util/num.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "util/vec.h"

#define MAX_LOST_TAGS	33	/* tags 0..31 and "any" */
#define MAX_SENSORS	32

/* frames of one stack, kernel and user: far more than any recorder
 * writes (127 + 256); a crafted file's 131,070-frame stacks are refused
 * (counted as frames that did not decode) instead of costing gigabytes */
#define AP_SESSION_MAX_FRAMES	2048

/* the address space of a process from a time on, until the next version */
struct as_version {
	uint64_t from_ts;
	struct ap_addrspace *as;
};

struct proc {
	struct ap_proc_info info;	/* first: get_proc returns it */
	struct as_version *versions;	/* by from_ts */
	size_t nr_versions, cap_versions;
};

struct ap_session {
	struct ap_symbolizer *sym;
	struct ap_stacktab *stacks;
	struct ap_strtab *strs;
	struct proc *procs;
	size_t nr_procs, cap_procs;
	struct ap_hmap by_pid;		/* pid -> index in procs */
	struct ap_hmap by_id;		/* id_key(pid, start) -> index */
	struct ap_hmap comm_of;		/* tid -> interned comm */
	uint64_t lost[AP_LOST_NR][MAX_LOST_TAGS];
	/* losses by process: one entry per (process, source, tag), found
	 * through lost_at (a hash of that key -> index + 1) */
	struct ap_lost_proc *lost_procs;
	size_t nr_lost_procs, cap_lost_procs;
	struct ap_hmap lost_at;
	struct ap_sensor sensors[MAX_SENSORS];
	size_t nr_sensors;
	uint64_t bad_frames;
	struct ap_unwind_info unwind;
	int has_unwind;
	uint64_t first_ts, last_ts;
	uint64_t span_ns;
	uint32_t span_cpus;
	int has_span;
	uint64_t event_ts;		/* of the event frame fed last */
	uint64_t epoch;			/* symbol frames fed: they may change
					 * what any stack resolves to */
	uint64_t *ips;			/* scratch for stack decoding */
};

struct ap_session *ap_session__new(struct ap_symbolizer *sym)
{
	struct ap_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->sym = sym;
	s->stacks = ap_stacktab__new();
	s->strs = ap_strtab__new();
	s->ips = malloc(AP_SESSION_MAX_FRAMES * sizeof(*s->ips));
	ap_hmap__init(&s->by_pid);
	ap_hmap__init(&s->by_id);
	ap_hmap__init(&s->comm_of);
	ap_hmap__init(&s->lost_at);
	if (!s->stacks || !s->strs || !s->ips) {
		ap_session__free(s);
		return NULL;
	}
	return s;
}

void ap_session__free(struct ap_session *s)
{
	if (!s)
		return;
	ap_stacktab__free(s->stacks);
	ap_strtab__free(s->strs);
	ap_hmap__free(&s->by_pid);
	ap_hmap__free(&s->by_id);
	ap_hmap__free(&s->comm_of);
	ap_hmap__free(&s->lost_at);
	free(s->lost_procs);
	while (s->nr_procs)
		free(s->procs[--s->nr_procs].versions);
	free(s->procs);
	free(s->ips);
	free(s);
}

uint64_t ap_session__epoch(const struct ap_session *s)
{
	return s->epoch;
}

struct ap_symbolizer *ap_session__symbolizer(struct ap_session *s)
{
	return s->sym;
}

void ap_session__escape_names(struct ap_session *s, int on)
{
	ap_strtab__set_escape(s->strs, on);
}

const char *ap_session__intern(struct ap_session *s, const char *str)
{
	return ap_strtab__intern(s->strs, str ? str : "", -1);
}

static struct ap_proc_info *get_proc(struct ap_session *s, uint32_t pid)
{
	uint64_t *idx = ap_hmap__find(&s->by_pid, pid);

	return idx ? &s->procs[*idx].info : NULL;
}

/* a hash: the entry it finds is checked, a collision finds nothing */
static uint64_t id_key(uint32_t pid, uint64_t start_ticks)
{
	return ap_hash64(start_ticks ^ ap_hash64(pid));
}

static struct proc *proc_of(struct ap_proc_info *p)
{
	return (struct proc *)p;
}

/* the version live at ts: the last one that starts at or before it */
static struct ap_addrspace *version_at(const struct proc *p, uint64_t ts)
{
	size_t i = p->nr_versions;

	while (i > 1 && p->versions[i - 1].from_ts > ts)
		i--;
	return i ? p->versions[i - 1].as : NULL;
}

/* as becomes the address space of p from ts on */
static int push_version(struct proc *p, uint64_t ts, struct ap_addrspace *as)
{
	if (!as)
		return -ENOMEM;
	if (p->nr_versions) {
		uint64_t last = p->versions[p->nr_versions - 1].from_ts;

		/* a frame written after a later one: it starts no earlier */
		if (ts < last)
			ts = last;
	}
	if (ap_grow((void **)&p->versions, &p->cap_versions, p->nr_versions,
		    sizeof(*p->versions), 4))
		return -ENOMEM;
	p->versions[p->nr_versions++] = (struct as_version){ ts, as };
	p->info.as = as;
	return 0;
}

static struct ap_proc_info *new_proc(struct ap_session *s, uint32_t pid,
				     uint64_t start_ticks)
{
	struct proc *p;
	uint64_t *idx, *id;

	if (ap_grow((void **)&s->procs, &s->cap_procs, s->nr_procs,
		    sizeof(*s->procs), 64))
		return NULL;
	idx = ap_hmap__upsert(&s->by_pid, pid, NULL);
	id = idx ? ap_hmap__upsert(&s->by_id, id_key(pid, start_ticks),
				   NULL) : NULL;
	if (!id)
		return NULL;
	p = &s->procs[s->nr_procs];
	memset(p, 0, sizeof(*p));
	p->info.pid = pid;
	p->info.start_ticks = start_ticks;
	p->info.comm = ap_session__intern(s, "");
	/* the first version: keyed in the symbolizer by identity, later
	 * ones are clones */
	if (push_version(p, 0, ap_symbolizer__addrspace(s->sym, pid,
							start_ticks)))
		return NULL;
	*idx = s->nr_procs;
	*id = s->nr_procs++;
	return &p->info;
}

static int on_task(struct ap_session *s, const struct ap_task *t)
{
	struct ap_proc_info *p = get_proc(s, t->pid);

	switch (t->kind) {
	case AP_TASK_SNAPSHOT:
	case AP_TASK_NEW:
		/* same identity seen again: keep it; else a new process */
		if (!p || p->start_ticks != t->start_ticks || p->exited) {
			struct ap_proc_info *parent;

			p = new_proc(s, t->pid, t->start_ticks);
			/* after new_proc, which may move the table */
			parent = get_proc(s, t->ppid);
			/* a forked child starts with its parent's mappings
			 * as they were at the fork, until it execs */
			if (p && parent && t->kind == AP_TASK_NEW &&
			    parent != p && !parent->exited)
				ap_addrspace__copy(p->as,
						   version_at(proc_of(parent),
							      t->ts));
		}
		break;
	case AP_TASK_EXECED:
		/* identity is (pid, start time): a process that took the pid
		 * of another is not that one calling exec */
		if (!p || p->exited ||
		    (p->start_ticks && t->start_ticks &&
		     p->start_ticks != t->start_ticks))
			p = new_proc(s, t->pid, t->start_ticks);
		else {
			p->generation++;
			/* the old image's mappings are gone from the exec
			 * on; events before it keep resolving in them */
			if (push_version(proc_of(p), t->ts,
					 ap_addrspace__clone(p->as, 0)))
				return -ENOMEM;
		}
		p->exec_ts = t->ts;
		break;
	case AP_TASK_EXITED:
		if (!p)
			return 0;
		p->exited = 1;
		p->exit_code = t->exit_code;
		return 0;
	default:
		return 0;
	}
	if (!p)
		return -ENOMEM;
	p->ppid = t->ppid;
	if (t->comm[0])
		p->comm = ap_session__intern(s, t->comm);
	return 0;
}

static int same_mapping(const struct ap_mmap *a, const struct ap_mmap *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->pgoff == b->pgoff && a->prot == b->prot &&
	       a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len) &&
	       !strcmp(a->path, b->path);
}

/*
 * A mapping over code (a library loaded where another one was) starts a
 * new version at its time, so that events before it keep the code they
 * ran; a mapping over nothing, or over data only (a thread's stack and
 * its guard page), changes nothing an earlier event could have resolved
 * and goes into the current version.  (Each of 17,000 thread stacks made
 * a version, each a copy of every mapping: report took minutes.)
 */
static int on_mmap(struct ap_session *s, const struct ap_mmap *m)
{
	struct ap_proc_info *p = get_proc(s, m->pid);
	const struct ap_mmap *known;
	struct proc *pp;

	if (!p) {
		p = new_proc(s, m->pid, 0);
		if (!p)
			return -ENOMEM;
	}
	pp = proc_of(p);
	known = ap_addrspace__find(p->as, m->start);
	if (known && same_mapping(known, m))
		return 0;
	if (m->start < m->end &&
	    ap_addrspace__overlaps_code(p->as, m->start, m->end) &&
	    m->ts > pp->versions[pp->nr_versions - 1].from_ts) {
		int err = push_version(pp, m->ts,
				       ap_addrspace__clone(p->as, 1));

		if (err)
			return err;
	}
	return ap_addrspace__add_mapping(p->as, m);
}

static void on_sensor(struct ap_session *s, const struct ap_sensor *st)
{
	size_t i;

	for (i = 0; i < s->nr_sensors; i++) {
		if (!strcmp(s->sensors[i].name, st->name)) {
			s->sensors[i] = *st;
			return;
		}
	}
	if (s->nr_sensors < MAX_SENSORS)
		s->sensors[s->nr_sensors++] = *st;
}

/*
 * The writer sends at most AP_LOSS_PROCS processes and their others, a
 * frame per counter: a file claiming more is bounded here, its extra
 * entries left out, so that memory stays proportional to what a writer
 * can produce.
 */
#define MAX_LOST_PROCS	(64 * 1024)

static int same_loser(const struct ap_lost_proc *a,
		      const struct ap_lost_proc *b)
{
	return a->pid == b->pid && a->flags == b->flags &&
	       a->start_ticks == b->start_ticks && a->source == b->source &&
	       a->tag == b->tag;
}

static int on_lost_proc(struct ap_session *s, const struct ap_lost_proc *l)
{
	struct {
		uint64_t start_ticks;
		uint32_t pid, flags, source, tag;
	} key = { l->start_ticks, l->pid, l->flags, l->source, l->tag };
	uint64_t h = ap_hash_bytes(&key, sizeof(key), 0x10570c);
	uint64_t *slot;
	struct ap_lost_proc *e;
	int is_new;

	if (l->source >= AP_LOST_NR)
		return 0;
	if (h == AP_HMAP_EMPTY)
		h--;
	slot = ap_hmap__find(&s->lost_at, h);
	if (slot && same_loser(&s->lost_procs[*slot - 1], l)) {
		/* cumulative counts: the latest is the total */
		e = &s->lost_procs[*slot - 1];
		if (l->count > e->count)
			e->count = l->count;
		return 0;
	}
	if (s->nr_lost_procs >= MAX_LOST_PROCS)
		return 0;
	if (s->nr_lost_procs == s->cap_lost_procs) {
		size_t cap = s->cap_lost_procs ? 2 * s->cap_lost_procs : 64;

		e = realloc(s->lost_procs, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		s->lost_procs = e;
		s->cap_lost_procs = cap;
	}
	e = &s->lost_procs[s->nr_lost_procs++];
	*e = *l;
	e->comm[sizeof(e->comm) - 1] = '\0';
	if (!slot) {
		/* a hash collision keeps its own entry, unindexed */
		slot = ap_hmap__upsert(&s->lost_at, h, &is_new);
		if (!slot)
			return -ENOMEM;
		*slot = s->nr_lost_procs;
	}
	return 0;
}

int ap_session__feed(struct ap_session *s, const struct ap_frame *f)
{
	union {
		struct ap_task task;
		struct ap_comm comm;
		struct ap_proc_cgroup cgroup;
		struct ap_mmap mmap;
		struct ap_stack stack;
		struct ap_ksym ksym;
		struct ap_lost lost;
		struct ap_lost_proc lost_proc;
		struct ap_sensor sensor;
		struct ap_unwind_info unwind;
	} u;
	uint64_t *slot;
	int err = 0;

	if (f->tag < AP_TAG_TASK) {
		/* every event payload starts with its u64 timestamp */
		if (f->len >= 8) {
			uint64_t ts = ap_get_le64(f->payload);

			s->event_ts = ts;
			if (!s->first_ts || ts < s->first_ts)
				s->first_ts = ts;
			if (ts > s->last_ts)
				s->last_ts = ts;
		}
		return 1;
	}
	/* symbols that any process's frames may use; mappings change only
	 * their address space's stamp (ap_addrspace__stamp), and new stacks,
	 * tasks, names and counters change no frames already resolved: in a
	 * live session (top -a) those come all the time */
	if (f->tag == AP_TAG_KSYM || f->tag == AP_TAG_JIT ||
	    f->tag == AP_TAG_IMAGE)
		s->epoch++;
	switch (f->tag) {
	case AP_TAG_TASK:
		err = ap_task__decode(f->payload, f->len, &u.task);
		if (!err)
			err = on_task(s, &u.task);
		break;
	case AP_TAG_COMM:
		err = ap_comm__decode(f->payload, f->len, &u.comm);
		if (err)
			break;
		slot = ap_hmap__upsert(&s->comm_of, u.comm.tid, NULL);
		if (slot)
			*slot = (uintptr_t)ap_session__intern(s, u.comm.comm);
		if (u.comm.pid == u.comm.tid) {
			struct ap_proc_info *p = get_proc(s, u.comm.pid);

			if (p)
				p->comm = ap_session__intern(s, u.comm.comm);
		}
		break;
	case AP_TAG_CGROUP:
		err = ap_proc_cgroup__decode(f->payload, f->len, &u.cgroup);
		if (!err) {
			struct ap_proc_info *p = get_proc(s, u.cgroup.pid);

			/* the process it names, not a later one of its pid */
			if (p && p->start_ticks == u.cgroup.start_ticks)
				p->cgroup = ap_session__intern(s,
							       u.cgroup.path);
		}
		break;
	case AP_TAG_MMAP:
		err = ap_mmap__decode(f->payload, f->len, &u.mmap);
		if (!err)
			err = on_mmap(s, &u.mmap);
		break;
	case AP_TAG_STACK:
		err = ap_stack__decode_ips(f->payload, f->len, &u.stack,
					   s->ips, AP_SESSION_MAX_FRAMES);
		if (!err)
			err = ap_stacktab__put(s->stacks, &u.stack);
		break;
	case AP_TAG_KSYM:
		err = ap_ksym__decode(f->payload, f->len, &u.ksym);
		if (!err)
			err = ap_symbolizer__add_ksym(s->sym, &u.ksym);
		break;
	case AP_TAG_LOST:
		err = ap_lost__decode(f->payload, f->len, &u.lost);
		if (!err && u.lost.source < AP_LOST_NR) {
			uint32_t t = u.lost.tag < 32 ? u.lost.tag : 32;

			/* cumulative counts: the latest is the total */
			if (u.lost.count > s->lost[u.lost.source][t])
				s->lost[u.lost.source][t] = u.lost.count;
		}
		break;
	case AP_TAG_LOST_PROC:
		err = ap_lost_proc__decode(f->payload, f->len, &u.lost_proc);
		if (!err)
			err = on_lost_proc(s, &u.lost_proc);
		break;
	case AP_TAG_JIT: {
		struct ap_jit j;
		struct ap_proc_info *p;

		err = ap_jit__decode(f->payload, f->len, &j);
		p = err ? NULL : get_proc(s, j.pid);
		if (p)
			ap_symbolizer__add_jit(s->sym, p->pid, p->start_ticks,
					       j.start, j.size, j.name);
		break;
	}
	case AP_TAG_PYFRAME: {
		struct ap_pyframe *pf = malloc(sizeof(*pf));

		err = pf ? ap_pyframe__decode(f->payload, f->len, pf) : -ENOMEM;
		if (!err)
			err = ap_symbolizer__add_pyframe(s->sym, pf);
		free(pf);
		break;
	}
	case AP_TAG_IMAGE: {
		struct ap_image img;

		err = ap_image__decode(f->payload, f->len, &img);
		if (!err && !strcmp(img.name, "[vdso]"))
			ap_symbolizer__set_vdso(s->sym, img.data, img.len);
		break;
	}
	case AP_TAG_SENSOR:
		err = ap_sensor__decode(f->payload, f->len, &u.sensor);
		if (!err)
			on_sensor(s, &u.sensor);
		break;
	case AP_TAG_UNWIND:
		err = ap_unwind_info__decode(f->payload, f->len, &u.unwind);
		if (!err) {
			s->unwind = u.unwind;
			s->has_unwind = 1;
		}
		break;
	default:
		/* summary (in the reader's stats) and tags from newer
		 * writers: skipped by length */
		break;
	}
	if (err == -EBADMSG) {
		s->bad_frames++;
		return err;
	}
	return err;
}

const struct ap_proc_info *ap_session__proc(struct ap_session *s,
					    uint32_t pid)
{
	return get_proc(s, pid);
}

const struct ap_proc_info *ap_session__proc_id(struct ap_session *s,
					       uint32_t pid,
					       uint64_t start_ticks)
{
	uint64_t *idx = ap_hmap__find(&s->by_id, id_key(pid, start_ticks));
	const struct ap_proc_info *p;

	if (!idx)
		return NULL;
	p = &s->procs[*idx].info;
	return p->pid == pid && p->start_ticks == start_ticks ? p : NULL;
}

struct ap_addrspace *ap_session__addrspace(struct ap_session *s, uint32_t pid,
					   uint64_t ts)
{
	struct ap_proc_info *p = get_proc(s, pid);

	return p ? version_at(proc_of(p), ts) : NULL;
}

struct ap_addrspace *ap_session__event_as(struct ap_session *s, uint32_t pid)
{
	return ap_session__addrspace(s, pid, s->event_ts);
}

const char *ap_session__comm(struct ap_session *s, uint32_t pid,
			     uint32_t tid)
{
	uint64_t *c = ap_hmap__find(&s->comm_of, tid);
	struct ap_proc_info *p;

	if (c && *c)
		return (const char *)(uintptr_t)*c;
	p = get_proc(s, pid);
	if (p && p->comm && p->comm[0])
		return p->comm;
	return ap_session__intern(s, "[unknown]");
}

int ap_session__stack(const struct ap_session *s, uint32_t id,
		      struct ap_stack *out)
{
	return ap_stacktab__get(s->stacks, id, out);
}

uint64_t ap_session__lost(const struct ap_session *s, uint32_t source)
{
	uint64_t n = 0;
	int t;

	if (source >= AP_LOST_NR)
		return 0;
	for (t = 0; t < MAX_LOST_TAGS; t++)
		n += s->lost[source][t];
	return n;
}

uint64_t ap_session__lost_tag(const struct ap_session *s, uint32_t source,
			      uint32_t tag)
{
	if (source >= AP_LOST_NR)
		return 0;
	return s->lost[source][tag < 32 ? tag : 32];
}

size_t ap_session__lost_procs(const struct ap_session *s,
			      const struct ap_lost_proc **out)
{
	*out = s->lost_procs;
	return s->nr_lost_procs;
}

size_t ap_session__sensors(const struct ap_session *s,
			   const struct ap_sensor **out)
{
	*out = s->sensors;
	return s->nr_sensors;
}

uint64_t ap_session__bad_frames(const struct ap_session *s)
{
	return s->bad_frames;
}

const struct ap_unwind_info *ap_session__unwind(const struct ap_session *s)
{
	return s->has_unwind ? &s->unwind : NULL;
}

uint64_t ap_session__first_ts(const struct ap_session *s)
{
	return s->first_ts;
}

uint64_t ap_session__last_ts(const struct ap_session *s)
{
	return s->last_ts;
}

void ap_session__set_span(struct ap_session *s, uint64_t span_ns,
			  uint32_t ncpus)
{
	s->span_ns = span_ns;
	s->span_cpus = ncpus ? ncpus : 1;
	s->has_span = 1;
}

uint64_t ap_session__span_ns(const struct ap_session *s)
{
	return s->has_span ? s->span_ns : 0;
}

double ap_session__max_ns(const struct ap_session *s, int all_cpus)
{
	double max;

	if (!s->has_span)
		return AP_WEIGHT_MAX;
	max = (double)s->span_ns * (all_cpus ? s->span_cpus : 1);
	return max < AP_WEIGHT_MAX ? max : AP_WEIGHT_MAX;
}

double ap_session__clamp_ns(const struct ap_session *s, double ns,
			    int all_cpus)
{
	double max = ap_session__max_ns(s, all_cpus);

	/* !(ns > 0): NaN too */
	return !(ns > 0) ? 0 : ns < max ? ns : max;
}

double ap_session__clamp_sum(const struct ap_session *s, double ns, double n)
{
	double max = ap_session__max_ns(s, 0) * (n > 1 ? n : 1);

	return !(ns > 0) ? 0 : ns < max ? ns : max < AP_WEIGHT_MAX ? max :
	       AP_WEIGHT_MAX;
}
