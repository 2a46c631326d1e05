// SPDX-License-Identifier: GPL-2.0
#include "session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "stacktab.h"
#include "strtab.h"
#include "symbolizer.h"

#define MAX_LOST_TAGS	33	/* tags 0..31 and "any" */
#define MAX_SENSORS	32

/* frames of one stack, kernel and user: far more than any recorder
 * writes (127 + 256); a crafted file's 131,070-frame stacks are refused
 * (counted as frames that did not decode) instead of costing gigabytes */
#define AP_SESSION_MAX_FRAMES	2048

struct ap_session {
	struct ap_symbolizer *sym;
	struct ap_stacktab *stacks;
	struct ap_strtab *strs;
	struct ap_proc_info *procs;
	size_t nr_procs, cap_procs;
	struct ap_hmap by_pid;		/* pid -> index in procs */
	struct ap_hmap comm_of;		/* tid -> interned comm */
	uint64_t lost[AP_LOST_NR][MAX_LOST_TAGS];
	struct ap_sensor sensors[MAX_SENSORS];
	size_t nr_sensors;
	uint64_t bad_frames;
	struct ap_unwind_info unwind;
	int has_unwind;
	uint64_t first_ts, last_ts;
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
	ap_hmap__init(&s->comm_of);
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
	ap_hmap__free(&s->comm_of);
	free(s->procs);
	free(s->ips);
	free(s);
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

/* an address space per exec generation, so samples taken before an exec
 * keep resolving against the old image */
static struct ap_addrspace *addrspace_of(struct ap_session *s,
					 const struct ap_proc_info *p)
{
	return ap_symbolizer__addrspace(s->sym, p->pid,
					p->start_ticks ^
					((uint64_t)p->generation << 56));
}

static struct ap_proc_info *get_proc(struct ap_session *s, uint32_t pid)
{
	uint64_t *idx = ap_hmap__find(&s->by_pid, pid);

	return idx ? &s->procs[*idx] : NULL;
}

static struct ap_proc_info *new_proc(struct ap_session *s, uint32_t pid,
				     uint64_t start_ticks)
{
	struct ap_proc_info *p;
	uint64_t *idx;

	if (s->nr_procs == s->cap_procs) {
		size_t cap = s->cap_procs ? s->cap_procs * 2 : 64;
		struct ap_proc_info *v = realloc(s->procs, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->procs = v;
		s->cap_procs = cap;
	}
	idx = ap_hmap__upsert(&s->by_pid, pid, NULL);
	if (!idx)
		return NULL;
	*idx = s->nr_procs;
	p = &s->procs[s->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->start_ticks = start_ticks;
	p->comm = ap_session__intern(s, "");
	p->as = addrspace_of(s, p);
	return p;
}

static int on_task(struct ap_session *s, const struct ap_task *t)
{
	struct ap_proc_info *p = get_proc(s, t->pid);

	switch (t->kind) {
	case AP_TASK_SNAPSHOT:
	case AP_TASK_NEW:
		/* same identity seen again: keep it; else a new process */
		if (!p || p->start_ticks != t->start_ticks || p->exited)
			p = new_proc(s, t->pid, t->start_ticks);
		break;
	case AP_TASK_EXECED:
		if (!p)
			p = new_proc(s, t->pid, t->start_ticks);
		else {
			p->generation++;
			p->as = addrspace_of(s, p);
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

static int on_mmap(struct ap_session *s, const struct ap_mmap *m)
{
	struct ap_proc_info *p = get_proc(s, m->pid);

	if (!p) {
		p = new_proc(s, m->pid, 0);
		if (!p)
			return -ENOMEM;
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

int ap_session__feed(struct ap_session *s, const struct ap_frame *f)
{
	union {
		struct ap_task task;
		struct ap_comm comm;
		struct ap_mmap mmap;
		struct ap_stack stack;
		struct ap_ksym ksym;
		struct ap_lost lost;
		struct ap_sensor sensor;
		struct ap_unwind_info unwind;
	} u;
	uint64_t *slot;
	int err = 0;

	if (f->tag < AP_TAG_TASK) {
		/* every event payload starts with its u64 timestamp */
		if (f->len >= 8) {
			uint64_t ts = ap_get_le64(f->payload);

			if (!s->first_ts || ts < s->first_ts)
				s->first_ts = ts;
			if (ts > s->last_ts)
				s->last_ts = ts;
		}
		return 1;
	}
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
