// SPDX-License-Identifier: GPL-2.0
#include "report/evdump.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"
#include "util/escape.h"
#include "report/evsort.h"
#include "gpu/codec.h"
#include "io/codec.h"
#include "lock/codec.h"
#include "mem/codec.h"
#include "sched/codec.h"
#include "syscall/codec.h"
#include "format/format.h"
#include "util/hmap.h"
#include "report/session.h"
#include "report/stackres.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "util/vec.h"
#include "syscall/syscalls.h"
#include "report/view.h"
#include "io.h"
#include "mem.h"

struct ap_evdec {
	struct ap_strtab *strs;
	struct ap_hmap paths;		/* dev, ino -> interned path */
};

struct ap_evdec *ap_evdec__new(void)
{
	struct ap_evdec *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->strs = ap_strtab__new();
	if (!d->strs) {
		free(d);
		return NULL;
	}
	ap_hmap__init(&d->paths);
	return d;
}

void ap_evdec__free(struct ap_evdec *d)
{
	if (!d)
		return;
	ap_hmap__free(&d->paths);
	ap_strtab__free(d->strs);
	free(d);
}

static void field(struct ap_evrec *r, const char *key, int num,
		  const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void field(struct ap_evrec *r, const char *key, int num,
		  const char *fmt, ...)
{
	va_list ap;

	if (r->nr == AP_EVREC_FIELDS)
		return;
	va_start(ap, fmt);
	vsnprintf(r->f[r->nr].val, sizeof(r->f[r->nr].val), fmt, ap);
	va_end(ap);
	r->f[r->nr].key = key;
	r->f[r->nr].num = num;
	r->nr++;
}

static int dec_cpu(const struct ap_frame *f, struct ap_evrec *r)
{
	struct ap_cpu_sample e;

	if (ap_cpu_sample__decode(f->payload, f->len, &e))
		return -EBADMSG;
	snprintf(r->name, sizeof(r->name), "cpu-clock");
	r->ts = e.ts;
	r->pid = e.pid;
	r->tid = e.tid;
	r->cpu = e.cpu;
	r->stack_id = e.stack_id;
	return 0;
}

static int dec_syscall(const struct ap_frame *f, struct ap_evrec *r)
{
	struct ap_syscall e;
	char buf[32];

	if (ap_syscall__decode(f->payload, f->len, &e))
		return -EBADMSG;
	snprintf(r->name, sizeof(r->name), "%s",
		 ap_syscall__name(e.id, buf, sizeof(buf)));
	r->ts = e.ts;
	r->pid = e.pid;
	r->tid = e.tid;
	r->stack_id = e.stack_id;
	if (e.flags & AP_SYSCALL_SUMMARY) {
		uint64_t errs = 0;
		uint32_t i;

		/* the totals of many calls, as they were read: no slice of
		 * time of their own (a timeline would draw one as long as
		 * their sum) */
		for (i = 0; i < e.nr_errs && i < AP_SYSCALL_SUM_ERRS; i++)
			errs += e.errs[i].count;
		field(r, "calls", 1, "%" PRIu64, e.calls);
		field(r, "errors", 1, "%" PRIu64, errs);
		field(r, "total_ns", 1, "%" PRIu64, e.duration_ns);
		field(r, "max_ns", 1, "%" PRIu64, e.max_ns);
		return 0;
	}
	r->dur_ns = e.duration_ns;
	r->slice = 1;
	r->cpu = e.cpu;
	field(r, "ret", 1, "%" PRId64, e.ret);
	if (e.ret < 0 && e.ret >= -4095)
		field(r, "errno", 0, "%s", strerrorname_np((int)-e.ret) ?
		      strerrorname_np((int)-e.ret) : "?");
	field(r, "duration_ns", 1, "%" PRIu64, e.duration_ns);
	if (e.flags & AP_SYSCALL_INFLIGHT)
		field(r, "inflight", 1, "1");
	return 0;
}

static int dec_lock(const struct ap_frame *f, struct ap_evrec *r)
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
	field(r, "kind", 0, "%s", ap_lock__kind_name(e.kind));
	field(r, "addr", 0, "0x%" PRIx64, e.lock_addr);
	field(r, "wait_ns", 1, "%" PRIu64, e.wait_ns);
	if (e.hold_ns)
		field(r, "hold_ns", 1, "%" PRIu64, e.hold_ns);
	if (e.kind == AP_LOCK_KERNEL)
		field(r, "type", 0, "%s", ap_lock__kernel_type(e.flags));
	if (e.result)
		field(r, "result", 1, "%d", e.result);
	return 0;
}

static int dec_sched(const struct ap_frame *f, struct ap_evrec *r)
{
	struct ap_sched_ev ev;
	const struct ap_sched_iv *e = &ev.iv;
	int err = ap_sched__decode(f->payload, f->len, &ev);

	if (err == -ENOMSG || (!err && ev.kind != AP_SCHED_IV))
		return -ENOMSG;
	if (err)
		return -EBADMSG;
	snprintf(r->name, sizeof(r->name), "%s",
		 e->state == AP_SCHED_ST_PREEMPTED ? "runnable" : "blocked");
	r->ts = e->ts - e->off_ns;
	r->dur_ns = e->off_ns;
	r->slice = 1;
	r->pid = e->pid;
	r->tid = e->tid;
	r->cpu = e->out_cpu;
	r->stack_id = e->stack_id;
	field(r, "off_ns", 1, "%" PRIu64, e->off_ns);
	if (e->wakeup_ns)
		field(r, "wakeup_ns", 1, "%" PRIu64, e->wakeup_ns);
	if (e->waker_pid) {
		field(r, "waker_pid", 1, "%u", e->waker_pid);
		field(r, "waker_tid", 1, "%u", e->waker_tid);
	}
	field(r, "in_cpu", 1, "%u", e->cpu);
	if (e->flags & AP_SCHED_IV_OPEN)
		field(r, "open", 1, "1");
	if (e->flags & AP_SCHED_IV_CLIPPED)
		field(r, "clipped", 1, "1");
	return 0;
}

static int dec_io(struct ap_evdec *d, const struct ap_frame *f,
		  struct ap_evrec *r)
{
	struct ap_io *e = malloc(sizeof(*e));
	const char *path = NULL;
	char what[256];
	uint64_t key, *slot;
	int fresh;

	if (!e)
		return -ENOMEM;
	if (ap_io__decode(f->payload, f->len, e)) {
		free(e);
		return -EBADMSG;
	}
	/* a file's path comes in its first frame only: remember it */
	key = e->dev * 0x9e3779b97f4a7c15ull ^ e->ino;
	if (e->name[0]) {
		path = ap_strtab__intern(d->strs, e->name, -1);
		slot = path ? ap_hmap__upsert(&d->paths, key, &fresh) : NULL;
		if (slot)
			*slot = (uintptr_t)path;
	} else if ((slot = ap_hmap__find(&d->paths, key))) {
		path = (const char *)(uintptr_t)*slot;
	}
	ap_io_describe(e, path ? path : "", what, sizeof(what));
	snprintf(r->name, sizeof(r->name), "%s", ap_io_sys_name(e->sys));
	/* a slice from the call's entry where the file has its duration
	 * (minor 3), else an instant at its end */
	r->ts = e->ts - (e->duration_ns < e->ts ? e->duration_ns : 0);
	r->dur_ns = e->duration_ns;
	r->slice = e->duration_ns > 0;
	r->pid = e->pid;
	r->tid = e->tid;
	r->cpu = e->cpu;
	field(r, "dir", 0, "%s", e->dir == AP_IO_WRITE ? "write" : "read");
	field(r, "fd", 1, "%d", e->fd);
	if (e->flags & AP_IO_F_SUM) {
		/* the calls since the last such frame, summed in the kernel */
		field(r, "calls", 1, "%" PRIu64, e->calls);
		field(r, "bytes", 1, "%" PRIu64, e->bytes);
		field(r, "errors", 1, "%" PRIu64, e->errors);
	} else {
		field(r, "ret", 1, "%" PRId64, e->ret);
	}
	field(r, "type", 0, "%s", ap_io_type_name(e->type));
	field(r, "resource", 0, "%s", what);
	if (e->duration_ns)
		field(r, "duration_ns", 1, "%" PRIu64, e->duration_ns);
	free(e);
	return 0;
}

static int dec_gpu(const struct ap_frame *f, struct ap_evrec *r)
{
	struct ap_gpu_launch e;
	int i;

	if (ap_gpu_launch__decode(f->payload, f->len, &e))
		return -EBADMSG;
	if (e.name[0])
		snprintf(r->name, sizeof(r->name), "%s", e.name);
	else
		snprintf(r->name, sizeof(r->name), "kernel 0x%" PRIx64,
			 e.kernel);
	/* named by the sink, which has the symbols */
	if (!e.name[0] && (e.api == AP_GPU_RUNTIME ||
			   e.api == AP_GPU_RUNTIME_EXC))
		r->stub = e.kernel;
	r->ts = e.ts;
	r->dur_ns = e.launch_ns;
	r->slice = 1;
	r->pid = e.pid;
	r->tid = e.tid;
	r->cpu = e.cpu;
	r->stack_id = e.stack_id;
	field(r, "api", 0, "%s", ap_gpu_api_name(e.api));
	field(r, "grid", 0, "%u,%u,%u", e.grid[0], e.grid[1], e.grid[2]);
	field(r, "block", 0, "%u,%u,%u", e.block[0], e.block[1], e.block[2]);
	field(r, "shared_mem", 1, "%" PRIu64, e.shared_mem);
	field(r, "stream", 0, "0x%" PRIx64, e.stream);
	field(r, "launch_ns", 1, "%" PRIu64, e.launch_ns);
	r->corr[0] = e.corr[0];
	r->corr[1] = e.corr[1];
	for (i = 0; i < 2; i++)
		if (e.corr[i])
			field(r, i ? "corr_driver" : "corr_runtime", 1, "%u",
			      e.corr[i]);
	if (e.device_ns)
		field(r, "device_ns", 1, "%" PRIu64, e.device_ns);
	if (e.result)
		field(r, "result", 1, "%d", e.result);
	return 0;
}

/* one record of the device's work (CUPTI), on its device and stream */
static int dec_gpu_dev(const struct ap_frame *f, struct ap_evrec *r)
{
	struct ap_gpu_dev *e = malloc(sizeof(*e));
	char *dm;

	if (!e)
		return -ENOMEM;
	if (ap_gpu_dev__decode(f->payload, f->len, e)) {
		free(e);
		return -EBADMSG;
	}
	switch (e->kind) {
	case AP_GPU_KERNEL:
		/* no name: its launch's, where the sink joins them */
		dm = ap_demangle(e->name);
		snprintf(r->name, sizeof(r->name), "%s", dm ? dm : e->name);
		free(dm);
		break;
	case AP_GPU_MEMCPY:
		snprintf(r->name, sizeof(r->name), "memcpy %s",
			 ap_gpu_copy_name(e->sub));
		break;
	case AP_GPU_SYNC:
		snprintf(r->name, sizeof(r->name), "sync %s",
			 ap_gpu_sync_name(e->sub));
		break;
	case AP_GPU_MEMSET:
		snprintf(r->name, sizeof(r->name), "memset");
		break;
	default:
		/* CUPTI's count of records it dropped: no event */
		free(e);
		return -ENOMSG;
	}
	r->ts = e->ts;
	r->dur_ns = e->duration_ns;
	r->slice = 1;
	r->pid = e->pid;
	r->tid = e->tid;
	r->on_device = (int)e->kind;
	r->device = e->device;
	r->stream = e->stream;
	r->corr[0] = e->corr;
	field(r, "kind", 0, "%s", ap_gpu_dev_kind_name(e->kind));
	field(r, "device", 1, "%u", e->device);
	field(r, "stream", 1, "%u", e->stream);
	field(r, "correlation", 1, "%u", e->corr);
	field(r, "duration_ns", 1, "%" PRIu64, e->duration_ns);
	if (e->kind == AP_GPU_KERNEL) {
		field(r, "grid", 0, "%u,%u,%u", e->grid[0], e->grid[1],
		      e->grid[2]);
		field(r, "block", 0, "%u,%u,%u", e->block[0], e->block[1],
		      e->block[2]);
		field(r, "static_smem", 1, "%u", e->static_smem);
		field(r, "dynamic_smem", 1, "%u", e->dynamic_smem);
	}
	if (e->kind == AP_GPU_MEMCPY || e->kind == AP_GPU_MEMSET)
		field(r, "bytes", 1, "%" PRIu64, e->bytes);
	free(e);
	return 0;
}

static int dec_mem(const struct ap_frame *f, struct ap_evrec *r)
{
	struct ap_mem_event e;

	if (ap_mem_event__decode(f->payload, f->len, &e))
		return -EBADMSG;
	if (e.kind != AP_MEM_KIND_SAMPLE)
		return -ENOMSG;
	snprintf(r->name, sizeof(r->name), "%s",
		 e.access == AP_MEM_ACC_STORE ? "store" :
		 e.access == AP_MEM_ACC_LOAD ? "load" : "access");
	r->ts = e.ts;
	r->pid = e.pid;
	r->tid = e.tid;
	r->cpu = e.cpu;
	r->stack_id = e.stack_id;
	field(r, "source", 0, "%s", ap_mem_source__name(e.source));
	field(r, "addr", 0, "0x%" PRIx64, e.addr);
	field(r, "ip", 0, "0x%" PRIx64, e.ip);
	field(r, "period", 1, "%" PRIu64, e.period);
	if (e.latency)
		field(r, "latency", 1, "%u", e.latency);
	return 0;
}

int ap_evdec__decode(struct ap_evdec *d, const struct ap_frame *f,
		     struct ap_evrec *r)
{
	memset(r, 0, offsetof(struct ap_evrec, f));
	r->cpu = AP_EVREC_NO_CPU;
	r->nr = 0;
	r->event = ap_tag__name(f->tag);
	switch (f->tag) {
	case AP_TAG_CPU:
		return dec_cpu(f, r);
	case AP_TAG_SYSCALL:
		return dec_syscall(f, r);
	case AP_TAG_LOCK:
		return dec_lock(f, r);
	case AP_TAG_SCHED:
		return dec_sched(f, r);
	case AP_TAG_IO:
		return dec_io(d, f, r);
	case AP_TAG_GPU:
		return dec_gpu(f, r);
	case AP_TAG_GPU_DEV:
		return dec_gpu_dev(f, r);
	case AP_TAG_MEM:
		return dec_mem(f, r);
	}
	return -ENOMSG;
}

long ap_evrec__stack(const struct ap_evrec *r, struct ap_session *s,
		     struct ap_stackres *res, int user_only)
{
	const struct ap_proc_info *p = ap_session__proc(s, r->pid);

	if (!r->stack_id) {
		ap_stackres__clear(res);
		return 0;
	}
	return ap_stackres__resolve(res, s, p ? p->as : NULL, r->stack_id,
				    AP_STACKRES_UNKNOWN |
				    (user_only ? AP_STACKRES_USER_ONLY : 0));
}

/* names come from other users: control characters (newlines included,
 * which would forge lines) as \xNN */
static const char *esc(const char *s, char *buf, size_t len)
{
	if (ap_escape_clean(s, 0))
		return s;
	ap_escape(buf, len, s, 0);
	return buf;
}

void ap_evrec__print_text(const struct ap_evrec *r, const char *comm,
			  const struct ap_stackres *res, long nr_frames,
			  FILE *out)
{
	char b1[1024], b2[1024], cpu[16] = "[---]";
	long j;
	int i;

	if (r->cpu != AP_EVREC_NO_CPU)
		snprintf(cpu, sizeof(cpu), "[%03u]", r->cpu);
	fprintf(out, "%16s %7u/%-7u %s %6" PRIu64 ".%06" PRIu64 ": %s: %s",
		esc(comm, b1, sizeof(b1)), r->pid, r->tid, cpu,
		r->ts / 1000000000, r->ts % 1000000000 / 1000, r->event,
		esc(r->name, b2, sizeof(b2)));
	for (i = 0; i < r->nr; i++)
		fprintf(out, " %s=%s", r->f[i].key,
			esc(r->f[i].val, b1, sizeof(b1)));
	fputc('\n', out);
	for (j = 0; j < nr_frames; j++)
		fprintf(out, "\t%s%s (%s)\n",
			esc(res->frames[j].sym, b1, sizeof(b1)),
			res->frames[j].kernel ? "_[k]" : "",
			esc(res->frames[j].dso, b2, sizeof(b2)));
	if (nr_frames)
		fputc('\n', out);
}

void ap_evrec__print_jsonl(const struct ap_evrec *r, const char *comm,
			   const struct ap_stackres *res, long nr_frames,
			   FILE *out)
{
	long j;
	int i;

	fprintf(out, "{\"ts\": %" PRIu64, r->ts);
	if (r->slice)
		fprintf(out, ", \"dur_ns\": %" PRIu64, r->dur_ns);
	fprintf(out, ", \"pid\": %u, \"tid\": %u", r->pid, r->tid);
	if (r->cpu != AP_EVREC_NO_CPU)
		fprintf(out, ", \"cpu\": %u", r->cpu);
	fputs(", \"comm\": ", out);
	ap_json_str(out, comm);
	fputs(", \"event\": ", out);
	ap_json_str(out, r->event);
	fputs(", \"name\": ", out);
	ap_json_str(out, r->name);
	for (i = 0; i < r->nr; i++) {
		fputs(", ", out);
		ap_json_str(out, r->f[i].key);
		fputs(": ", out);
		if (r->f[i].num)
			fputs(r->f[i].val, out);
		else
			ap_json_str(out, r->f[i].val);
	}
	if (nr_frames) {
		fputs(", \"stack\": [", out);
		for (j = 0; j < nr_frames; j++) {
			fputs(j ? ", {\"sym\": " : "{\"sym\": ", out);
			ap_json_str(out, res->frames[j].sym);
			fputs(", \"dso\": ", out);
			ap_json_str(out, res->frames[j].dso);
			fprintf(out, ", \"kernel\": %s}",
				res->frames[j].kernel ? "true" : "false");
		}
		fputc(']', out);
	}
	fputs("}\n", out);
}

struct launch {				/* a launch call, for its kernels */
	uint32_t tid;
	uint64_t mid;			/* the middle of the call, ns */
	const char *name;		/* interned */
};

struct ap_evsink {
	/* pid << 32 | CUPTI correlation id -> index in launches + 1 */
	struct ap_hmap launch_by;
	struct launch *launches;
	size_t nr_launches, cap_launches;
	int format;
	uint32_t evmask;
	const struct ap_report_opts *o;
	struct ap_session *s;
	FILE *out;
	struct ap_evdec *dec;
	struct ap_evout to;		/* to.p NULL: printed */
	/* text, jsonl: each event printed into line, put in time order */
	struct ap_evsort *sort;
	FILE *line;
	char *line_buf;
	size_t line_len;
	struct ap_strtab *strs;
	struct ap_stackres res;
	uint64_t bad;
};

struct ap_evsink *ap_evsink__new(int format, uint32_t evmask,
				 const struct ap_report_opts *o,
				 struct ap_session *s, FILE *out,
				 const struct ap_evout *to)
{
	struct ap_evsink *k = calloc(1, sizeof(*k));

	if (!k) {
		if (to)
			to->free(to->p);
		return NULL;
	}
	k->format = format;
	k->evmask = evmask;
	k->o = o;
	k->s = s;
	k->out = out;
	k->dec = ap_evdec__new();
	k->strs = ap_strtab__new();
	ap_hmap__init(&k->launch_by);
	if (k->strs)
		ap_stackres__init(&k->res, k->strs);
	if (to) {
		k->to = *to;
	} else {
		k->sort = ap_evsort__new(0);
		k->line = open_memstream(&k->line_buf, &k->line_len);
	}
	if (!k->dec || !k->strs || (!to && (!k->sort || !k->line))) {
		ap_evsink__free(k);
		return NULL;
	}
	return k;
}

/* a runtime launch's kernel: the name of its host stub */
static void name_stub(struct ap_evsink *k, struct ap_evrec *r)
{
	struct ap_addrspace *as = ap_session__event_as(k->s, r->pid);
	const struct ap_sym_loc *loc;

	if (!as)
		return;
	loc = ap_symbolizer__user(ap_session__symbolizer(k->s), as, r->stub,
				  0);
	if (loc->nr_frames)
		ap_sym_loc__format(loc, loc->nr_frames - 1, r->name,
				   sizeof(r->name));
}

/* A launch is remembered by its correlation ids until the device's
 * records name their launch: the kernel's name where CUPTI gave none,
 * and the launching thread for the timeline's arrow. */
static int join_launch(struct ap_evsink *k, struct ap_evrec *r)
{
	uint64_t *slot;
	int i;

	if (r->on_device) {
		slot = r->corr[0] ? ap_hmap__find(&k->launch_by,
			(uint64_t)r->pid << 32 | r->corr[0]) : NULL;
		if (slot) {
			const struct launch *l = &k->launches[*slot - 1];

			r->joined = 1;
			r->launch_tid = l->tid;
			r->launch_mid = l->mid;
			if (!r->name[0])
				snprintf(r->name, sizeof(r->name), "%s",
					 l->name);
			ap_hmap__remove(&k->launch_by, (uint64_t)r->pid << 32 |
					r->corr[0]);
		}
		if (!r->name[0])
			snprintf(r->name, sizeof(r->name), "[unnamed kernel]");
		return 0;
	}
	if (r->stub)
		name_stub(k, r);
	for (i = 0; i < 2; i++) {
		const char *name;

		if (!r->corr[i])
			continue;
		name = ap_strtab__intern(k->strs, r->name, -1);
		if (!name || ap_grow((void **)&k->launches, &k->cap_launches,
				     k->nr_launches, sizeof(*k->launches),
				     256))
			return -ENOMEM;
		slot = ap_hmap__upsert(&k->launch_by,
				       (uint64_t)r->pid << 32 | r->corr[i],
				       NULL);
		if (!slot)
			return -ENOMEM;
		k->launches[k->nr_launches] = (struct launch){
			r->tid, r->ts + r->dur_ns / 2, name };
		*slot = ++k->nr_launches;
	}
	return 0;
}

int ap_evsink__event(struct ap_evsink *k, const struct ap_frame *f)
{
	struct ap_evrec r;
	long n;
	int err;

	if (f->tag >= 32 || !(k->evmask & AP_EVMASK(f->tag)))
		return 0;
	err = ap_evdec__decode(k->dec, f, &r);
	if (err == -ENOMSG)
		return 0;
	if (err)
		return err;
	if (r.on_device || r.stub || r.corr[0] || r.corr[1]) {
		err = join_launch(k, &r);
		if (err)
			return err;
	}
	if (!ap_report_opts__match(k->o, k->s, r.pid, r.tid))
		return 0;
	if (k->to.p)
		return k->to.event(k->to.p, &r);
	/* the stack in the address space of the moment: resolved now, in
	 * file order, printed when its turn in time comes */
	n = ap_evrec__stack(&r, k->s, &k->res, k->o->user_only);
	if (n < 0)
		return (int)n;
	if (fseeko(k->line, 0, SEEK_SET))
		return -EIO;
	if (k->format == AP_FMT_JSONL)
		ap_evrec__print_jsonl(&r, ap_session__comm(k->s, r.pid, r.tid),
				      &k->res, n, k->line);
	else
		ap_evrec__print_text(&r, ap_session__comm(k->s, r.pid, r.tid),
				     &k->res, n, k->line);
	if (fflush(k->line))
		return -ENOMEM;
	return ap_evsort__add(k->sort, r.ts, k->line_buf,
			      (size_t)ftello(k->line));
}

int ap_evsink__finish(struct ap_evsink *k)
{
	int err;

	if (k->to.p)
		return k->to.finish(k->to.p);
	err = ap_evsort__write(k->sort, k->out);
	if (!err && (fflush(k->out) || ferror(k->out)))
		err = -EIO;
	return err;
}

void ap_evsink__free(struct ap_evsink *k)
{
	if (!k)
		return;
	if (k->to.p)
		k->to.free(k->to.p);
	ap_evsort__free(k->sort);
	if (k->line)
		fclose(k->line);
	free(k->line_buf);
	ap_hmap__free(&k->launch_by);
	free(k->launches);
	ap_evdec__free(k->dec);
	ap_stackres__free(&k->res);
	ap_strtab__free(k->strs);
	free(k);
}
