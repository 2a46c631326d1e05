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
	void *priv[32];			/* ap_evdec__priv, by tag */
	void (*priv_free[32])(void *);
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
	int i;

	if (!d)
		return;
	for (i = 0; i < 32; i++)
		if (d->priv[i] && d->priv_free[i])
			d->priv_free[i](d->priv[i]);
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

void **ap_evdec__priv(struct ap_evdec *d, uint32_t tag,
		      void (*free_fn)(void *))
{
	if (tag >= 32)
		return NULL;
	if (free_fn)
		d->priv_free[tag] = free_fn;
	return &d->priv[tag];
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
	if (!r->stack_id) {
		ap_stackres__clear(res);
		return 0;
	}
	/* the mappings live when the event was taken, as the views take
	 * them: a sample before an exec names the old image's code */
	return ap_stackres__resolve(res, s, ap_session__event_as(s, r->pid),
				    r->stack_id,
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

/* one frame as perf script prints it: a tab, the address in 16
 * columns, sym+0xoff, the module's path; an inlined function's frame
 * says "(inlined)" in place of the path */
static void print_frame(const struct ap_rframe *f, uint32_t fields,
			FILE *out)
{
	char buf[1024];

	fprintf(out, "\t%16" PRIx64, f->addr);
	/* a Python frame has no address: its function, file and line */
	if (f->python) {
		if (fields & AP_SF_SYM)
			fprintf(out, " %s", esc(f->sym, buf, sizeof(buf)));
		if (fields & AP_SF_DSO)
			fprintf(out, " (%s:%d)", esc(f->path ? f->path : f->dso,
						     buf, sizeof(buf)),
				f->line);
		fputc('\n', out);
		return;
	}
	if ((fields & AP_SF_SYM) && f->nosym > 0) {
		fputs(" [unknown]", out);
	} else if (fields & AP_SF_SYM) {
		fprintf(out, " %s", esc(f->sym, buf, sizeof(buf)));
		if ((fields & AP_SF_SYMOFF) && !f->nosym)
			fprintf(out, "+0x%" PRIx64, f->symoff);
	}
	if ((fields & AP_SF_DSO) && !f->inlined)
		fprintf(out, " (%s)",
			esc(f->path ? f->path : f->dso, buf, sizeof(buf)));
	if (f->inlined)
		fputs(" (inlined)", out);
	fputc('\n', out);
}

void ap_evrec__print_text(const struct ap_evrec *r, const struct ap_evline *l,
			  const struct ap_stackres *res, long nr_frames,
			  FILE *out)
{
	uint32_t fl = l->fields;
	char buf[1024], when[48];
	const char *sep = "";
	long j;
	int i;

	/* perf pads the command to 16 columns but where stacks follow:
	 * consumers take a line that starts with a blank for a frame */
	if (fl & AP_SF_COMM)
		fprintf(out, fl & AP_SF_IP ? "%s " : "%16s ",
			esc(l->comm, buf, sizeof(buf)));
	if ((fl & AP_SF_PID) && (fl & AP_SF_TID))
		fprintf(out, "%7u/%-7u ", r->pid, r->tid);
	else if (fl & (AP_SF_PID | AP_SF_TID))
		fprintf(out, "%7u ", fl & AP_SF_PID ? r->pid : r->tid);
	/* a record of no CPU (in-kernel totals, device work) has no CPU
	 * field, as perf's events without one: no made-up number */
	if ((fl & AP_SF_CPU) && r->cpu != AP_EVREC_NO_CPU)
		fprintf(out, "[%03u] ", r->cpu);
	if (fl & AP_SF_TIME) {
		snprintf(when, sizeof(when), "%" PRIu64 ".%06" PRIu64,
			 r->ts / 1000000000, r->ts % 1000000000 / 1000);
		fprintf(out, "%12s: ", when);
	}
	if (fl & AP_SF_PERIOD)
		fprintf(out, "%s ", l->period);
	if (fl & AP_SF_EVENT)
		fprintf(out, "%s: ", l->event);
	if (fl & AP_SF_TRACE) {
		if (l->named) {
			fputs(esc(r->name, buf, sizeof(buf)), out);
			sep = " ";
		}
		for (i = 0; i < r->nr; i++, sep = " ")
			fprintf(out, "%s%s=%s", sep, r->f[i].key,
				esc(r->f[i].val, buf, sizeof(buf)));
	}
	fputc('\n', out);
	if (!(fl & AP_SF_IP) || !nr_frames)
		return;
	for (j = 0; j < nr_frames; j++)
		print_frame(&res->frames[j], fl, out);
	fputc('\n', out);
}

/* a field named as one of the line's own keys (a tracepoint's "pid")
 * is written "field.pid": JSON keys are unique */
static int own_key(const char *key)
{
	static const char *const own[] = {
		"ts", "dur_ns", "pid", "tid", "cpu", "comm", "event", "name",
		"stack",
	};
	size_t i;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(key, own[i]))
			return 1;
	return 0;
}

void ap_evrec__print_jsonl(const struct ap_evrec *r, const char *comm,
			   const struct ap_stackres *res, long nr_frames,
			   FILE *out)
{
	char key[96];

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
		snprintf(key, sizeof(key), "%s%s",
			 own_key(r->f[i].key) ? "field." : "", r->f[i].key);
		fputs(", ", out);
		ap_json_str(out, key);
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
	uint32_t fields;		/* text: AP_SF_* */
	char cpu_name[256];		/* a CPU sample's name, as decoded */
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
	k->fields = AP_SF_DEFAULT;
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

void ap_evsink__set_fields(struct ap_evsink *k, uint32_t fields)
{
	k->fields = fields;
}

/* A CPU sample's event and period come from the file's sensor frames,
 * at its end: its lines hold these marks (control characters, which
 * every name from the file is escaped of) until they are written. */
#define MARK_EVENT	"\x01"
#define MARK_PERIOD	"\x02"

/* a record's period, perf script's weight of it: a slice's duration in
 * ns, a sampled record's sampling period (a field "period": mem's),
 * else 1, one event (a tracepoint's period in perf) */
static uint64_t period_of(const struct ap_evrec *r)
{
	int i;

	if (r->slice)
		return r->dur_ns;
	for (i = 0; i < r->nr; i++)
		if (r->f[i].num && !strcmp(r->f[i].key, "period"))
			return strtoull(r->f[i].val, NULL, 10);
	return 1;
}

static void print_text(struct ap_evsink *k, const struct ap_frame *f,
		       const struct ap_evrec *r, long nr_frames)
{
	struct ap_evline l = {
		.comm = ap_session__comm(k->s, r->pid, r->tid),
		.event = r->event,
		.named = 1,
		.fields = k->fields,
	};
	char period[24];

	if (f->tag == AP_TAG_CPU) {
		/* its name is the event's */
		l.event = MARK_EVENT;
		l.period = MARK_PERIOD;
		l.named = 0;
		if (!k->cpu_name[0])
			snprintf(k->cpu_name, sizeof(k->cpu_name), "%s",
				 r->name);
	} else {
		snprintf(period, sizeof(period), "%10" PRIu64, period_of(r));
		l.period = period;
	}
	if (f->tag == AP_TAG_TRACEPOINT) {
		/* perf's "1 sched:sched_switch: prev_comm=..." */
		l.event = r->name;
		l.named = 0;
	}
	ap_evrec__print_text(r, &l, &k->res, nr_frames, k->line);
}

struct marks {
	FILE *out;
	char event[256];
	char period[24];
};

static ssize_t marks_write(void *cookie, const char *buf, size_t size)
{
	struct marks *m = cookie;
	size_t i, from = 0;

	for (i = 0; i < size; i++) {
		const char *s;

		if (buf[i] == MARK_EVENT[0])
			s = m->event;
		else if (buf[i] == MARK_PERIOD[0])
			s = m->period;
		else
			continue;
		if (fwrite(buf + from, 1, i - from, m->out) != i - from ||
		    fputs(s, m->out) < 0)
			return -1;
		from = i + 1;
	}
	if (fwrite(buf + from, 1, size - from, m->out) != size - from)
		return -1;
	return (ssize_t)size;
}

/* The CPU samples' event as perf names it, the sensor's source
 * ("cycles", "cpu-clock:u", "context-switches" of "context-switches,
 * every 1"), and their period: the N of "every N", else the ns a sample
 * stands for at the file's frequency (perf's cpu-clock period; of a
 * hardware event sampled at a frequency the file holds no count) */
static void cpu_event(struct ap_evsink *k, struct marks *m)
{
	const struct ap_sensor *sens;
	size_t i, n = ap_session__sensors(k->s, &sens);
	const char *src = k->cpu_name[0] ? k->cpu_name : "cpu-clock";
	uint64_t every = 0;
	char name[sizeof(m->event)];
	const char *comma;

	for (i = 0; i < n; i++)
		if (sens[i].tag == AP_TAG_CPU &&
		    sens[i].state != AP_SENSOR_UNAVAILABLE)
			src = sens[i].source;
	comma = strchr(src, ',');
	snprintf(name, sizeof(name), "%.*s",
		 (int)(comma ? (size_t)(comma - src) : strlen(src)), src);
	ap_escape(m->event, sizeof(m->event), name, 0);
	if (comma && sscanf(comma, ", every %" SCNu64, &every) != 1)
		every = 0;
	if (!every && k->o->freq)
		every = (1000000000ull + k->o->freq / 2) / k->o->freq;
	snprintf(m->period, sizeof(m->period), "%10" PRIu64,
		 every ? every : 1);
}

static int write_text(struct ap_evsink *k)
{
	cookie_io_functions_t io = { .write = marks_write };
	struct marks m = { .out = k->out };
	FILE *f;
	int err;

	cpu_event(k, &m);
	f = fopencookie(&m, "w", io);
	if (!f)
		return -ENOMEM;
	err = ap_evsort__write(k->sort, f);
	if (fclose(f) && !err)
		err = -EIO;
	return err;
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
	n = k->format == AP_FMT_JSONL || (k->fields & AP_SF_IP) ?
	    ap_evrec__stack(&r, k->s, &k->res, k->o->user_only) : 0;
	if (n < 0)
		return (int)n;
	if (fseeko(k->line, 0, SEEK_SET))
		return -EIO;
	if (k->format == AP_FMT_JSONL)
		ap_evrec__print_jsonl(&r, ap_session__comm(k->s, r.pid, r.tid),
				      &k->res, n, k->line);
	else
		print_text(k, f, &r, n);
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
	err = k->format == AP_FMT_JSONL ? ap_evsort__write(k->sort, k->out) :
					  write_text(k);
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
