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
#include "event/event.h"
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

void ap_evrec__field(struct ap_evrec *r, const char *key, int num,
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

const char *ap_evdec__path(struct ap_evdec *d, uint64_t dev, uint64_t ino,
			   const char *name)
{
	uint64_t key = dev * 0x9e3779b97f4a7c15ull ^ ino, *slot;
	const char *path;
	int fresh;

	if (!name[0]) {
		slot = ap_hmap__find(&d->paths, key);
		return slot ? (const char *)(uintptr_t)*slot : NULL;
	}
	path = ap_strtab__intern(d->strs, name, -1);
	slot = path ? ap_hmap__upsert(&d->paths, key, &fresh) : NULL;
	if (slot)
		*slot = (uintptr_t)path;
	return path;
}

int ap_evdec__decode(struct ap_evdec *d, const struct ap_frame *f,
		     struct ap_evrec *r)
{
	const struct ap_event_kind *k = ap_event_kind__of_tag(f->tag);

	memset(r, 0, offsetof(struct ap_evrec, f));
	r->cpu = AP_EVREC_NO_CPU;
	r->nr = 0;
	r->event = ap_tag__name(f->tag);
	r->kind = k;
	return k && k->decode ? k->decode(d, f, r) : -ENOMSG;
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
