// SPDX-License-Identifier: GPL-2.0
/*
 * The timeline: Chrome's trace-event JSON, which Perfetto
 * (ui.perfetto.dev) and chrome://tracing load.  One track per thread on
 * the recording's clock (CLOCK_MONOTONIC, in microseconds): CPU samples
 * and memory accesses as instants, syscalls, I/O calls, off-CPU
 * intervals, lock waits and GPU launches as complete slices ("ph": "X"),
 * each with its fields and its stack as args; process and thread names
 * as metadata events.
 *
 * Each kind's slices go where its descriptor's trace_track says
 * (event/event.h): on the thread's track, nested in the syscall slice
 * that holds them; on a track of the kind's own beside the thread's
 * ("I/O of TID", "lock wait of TID") where they would overlap its
 * syscall slices without nesting, which the trace-event model (and
 * speedscope's importer) cannot draw; the GPU's work (CUPTI's records)
 * on a track per device and stream in its process, after the threads,
 * each kernel joined to the launch call that started it by a flow arrow
 * (a "s"/"f" pair bound to the two slices, its id the CUPTI correlation
 * id).
 *
 * The file holds events in the order they ended, and a slice's start
 * can lie far back (a syscall comes after the samples and the off-CPU
 * interval inside it): the events are put in time order (evsort, bounded
 * memory), so that each track's are; the names come first, written at
 * the end when every thread is known.
 *
 * Slices within what the recording holds, as in every other output: a
 * hostile file claims 2^64-1 ns.  A kind's slices on one track follow
 * one another (a thread's calls, its off-CPU intervals, a stream's
 * kernels), so together they are no longer than the recording: a track
 * past it has each of that kind's slices cut by the same share, and
 * none is longer than the recording (the sched and syscall views cut a
 * thread's the same way).  The bound, the recording's span, is known
 * once the file is read, after the slices are formatted: each duration
 * is written as a mark holding the file's value and its track, and the
 * marks are cut as the sorted events go out.  A slice keeps its start
 * as the file gives it (the sort's key).
 */
#include "export/export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/event.h"
#include "gpu/codec.h"
#include "report/evdump.h"
#include "report/evsort.h"
#include "util/hmap.h"
#include "report/session.h"
#include "report/stackres.h"
#include "util/strtab.h"
#include "report/view.h"

/* the tracks of the GPU's streams: tids no thread has (pid_max is at
 * most 2^22), one per (process, device, stream); and the tracks of their
 * own, one per thread and kind */
#define GPU_TID_BASE	0x40000000u
#define OWN_TID_BASE	0x50000000u

struct ap_trace {
	struct ap_session *s;
	FILE *out;
	int user_only;
	uint64_t nr;			/* names (metadata events) written */
	/* each event's text (",\n{...}"), then into the sort at its time */
	struct ap_evsort *sort;
	FILE *line;
	char *line_buf;
	size_t line_len;
	uint32_t summed;		/* tags of the kernel's sums seen */
	struct ap_hmap threads;		/* pid << 32 | tid -> 1 */
	/* pid << 32 | device << 24 | stream -> its track's tid */
	struct ap_hmap streams;
	uint32_t nr_streams;
	/* pid << 32 | tag << 24 | tid -> the tid of the thread's track for
	 * that kind's slices (AP_TRACK_OWN) */
	struct ap_hmap own_tracks;
	uint32_t nr_own;
	uint64_t flows;
	/* tag << 56 | pid << 32 | its track's tid (pid_max is at most
	 * 2^22) -> the sum of the kind's slices there (a double's bits) */
	struct ap_hmap track_ns;
	struct ap_strtab *strs;
	struct ap_stackres res;
};

struct ap_trace *ap_trace__new(struct ap_session *s, int user_only,
			       FILE *out)
{
	struct ap_trace *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->strs = ap_strtab__new();
	t->sort = ap_evsort__new(0);
	t->line = open_memstream(&t->line_buf, &t->line_len);
	if (!t->strs || !t->sort || !t->line) {
		ap_strtab__free(t->strs);
		ap_evsort__free(t->sort);
		if (t->line)
			fclose(t->line);
		free(t->line_buf);
		free(t);
		return NULL;
	}
	t->s = s;
	t->out = out;
	t->user_only = user_only;
	ap_hmap__init(&t->threads);
	ap_hmap__init(&t->streams);
	ap_hmap__init(&t->own_tracks);
	ap_hmap__init(&t->track_ns);
	ap_stackres__init(&t->res, t->strs);
	fputs("{\"displayTimeUnit\": \"ns\",\n"
	      " \"otherData\": {\"tool\": \"aperture " APERTURE_VERSION
	      "\", \"clock\": \"CLOCK_MONOTONIC\"},\n"
	      " \"traceEvents\": [", out);
	return t;
}

static void us(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

/*
 * The marks of what the span cuts (control characters, which every
 * string from the file is escaped of): MARK_DUR track "," ns MARK_END, a
 * slice's duration; MARK_MID ts "," track "," ns MARK_END, the middle of
 * a slice from ts.  track: its key in track_ns.
 */
#define MARK_DUR	'\x02'
#define MARK_MID	'\x04'
#define MARK_END	'\x03'

static double track_sum(const struct ap_hmap *m, uint64_t key)
{
	const uint64_t *slot = ap_hmap__find(m, key);
	double d = 0;

	if (slot)
		memcpy(&d, slot, sizeof(d));
	return d;
}

/* the key of r's track for its kind's slices in track_ns, and the
 * slice's duration added to its sum */
static int track_add(struct ap_trace *t, const struct ap_evrec *r,
		     uint32_t tid, uint64_t *key)
{
	uint64_t *slot;
	double d;

	*key = (uint64_t)(r->kind ? r->kind->tag & 0xff : 0) << 56 |
	       (uint64_t)(r->pid & 0xffffff) << 32 | tid;
	d = track_sum(&t->track_ns, *key) + (double)r->dur_ns;
	slot = ap_hmap__upsert(&t->track_ns, *key, NULL);
	if (!slot)
		return -ENOMEM;
	memcpy(slot, &d, sizeof(d));
	return 0;
}

/* the marks replaced as the events go out: stdio hands the text over
 * in pieces, so a mark may be cut between two */
struct marks {
	FILE *out;
	const struct ap_trace *t;
	char kind;			/* in a mark: its kind; else 0 */
	int field;			/* which of its numbers */
	uint64_t v[3];
};

/* ns of a slice on track key, cut with its track's slices to what the
 * recording holds */
static uint64_t cut(const struct ap_trace *t, uint64_t key, uint64_t ns)
{
	double max = ap_session__max_ns(t->s, 0);
	double sum = track_sum(&t->track_ns, key);

	if (sum > max)
		ns = (uint64_t)((double)ns * (max / sum));
	return (double)ns < max ? ns : (uint64_t)max;
}

static ssize_t marks_write(void *cookie, const char *buf, size_t size)
{
	struct marks *m = cookie;
	size_t i, from = 0;

	for (i = 0; i < size; i++) {
		char c = buf[i];

		if (!m->kind) {
			if (c != MARK_DUR && c != MARK_MID)
				continue;
			if (fwrite(buf + from, 1, i - from, m->out) !=
			    i - from)
				return -1;
			m->kind = c;
			m->field = 0;
			memset(m->v, 0, sizeof(m->v));
		} else if (c >= '0' && c <= '9') {
			m->v[m->field] = m->v[m->field] * 10 +
					 (uint64_t)(c - '0');
		} else if (c == ',' && m->field < 2) {
			m->field++;
		} else if (c == MARK_END) {
			if (m->kind == MARK_DUR)
				us(m->out, cut(m->t, m->v[0], m->v[1]));
			else
				us(m->out, m->v[0] +
					   cut(m->t, m->v[1], m->v[2]) / 2);
			m->kind = 0;
		}
		from = i + 1;
	}
	if (!m->kind &&
	    fwrite(buf + from, 1, size - from, m->out) != size - from)
		return -1;
	return (ssize_t)size;
}

/* the sorted events to out, their marks replaced */
static int write_events(struct ap_trace *t, FILE *out)
{
	cookie_io_functions_t io = { .write = marks_write };
	struct marks m = { .out = out, .t = t };
	FILE *f = fopencookie(&m, "w", io);
	int err = f ? ap_evsort__write(t->sort, f) : -ENOMEM;

	/* what the cookie could not write fails the close */
	if (f && fclose(f) && !err)
		err = -EIO;
	return err;
}

/*
 * The tid of the track of a device record's device and stream.  The
 * synchronisations (a host thread waiting for a stream or the device)
 * have a track of their own per device: on a stream's track they would
 * overlap its kernels without nesting.
 */
#define SYNC_TRACK	0xffffff

static int stream_tid(struct ap_trace *t, const struct ap_evrec *r,
		      uint32_t *tid)
{
	uint32_t stream = r->on_device == AP_GPU_SYNC ? SYNC_TRACK :
			  r->stream < SYNC_TRACK ? r->stream : SYNC_TRACK - 1;
	uint64_t key = (uint64_t)r->pid << 32 | (r->device & 0xff) << 24 |
		       stream;
	uint64_t *slot;
	int fresh;

	slot = ap_hmap__upsert(&t->streams, key, &fresh);
	if (!slot)
		return -ENOMEM;
	if (fresh)
		*slot = GPU_TID_BASE + t->nr_streams++;
	*tid = (uint32_t)*slot;
	return 0;
}

/* the tid of the track of r's kind beside r's thread (AP_TRACK_OWN) */
static int own_tid(struct ap_trace *t, const struct ap_evrec *r,
		   uint32_t *tid)
{
	uint64_t *slot;
	int fresh;

	slot = ap_hmap__upsert(&t->own_tracks, (uint64_t)r->pid << 32 |
			       (uint64_t)(r->kind->tag & 0xff) << 24 |
			       (r->tid & 0xffffff), &fresh);
	if (!slot)
		return -ENOMEM;
	if (fresh)
		*slot = OWN_TID_BASE + t->nr_own++;
	*tid = (uint32_t)*slot;
	return 0;
}

/* the tid of the track r goes on, by its kind's trace_track */
static int place(struct ap_trace *t, const struct ap_evrec *r,
		 uint32_t *tid)
{
	int track = r->kind ? r->kind->trace_track : AP_TRACK_THREAD;
	int fresh;

	*tid = r->tid;
	/* a device's work; its kind's host calls stay on the thread */
	if (track == AP_TRACK_DEVICE && r->on_device)
		return stream_tid(t, r, tid);
	if (!ap_hmap__upsert(&t->threads, (uint64_t)r->pid << 32 | r->tid,
			     &fresh))
		return -ENOMEM;
	if (track == AP_TRACK_OWN && r->slice)
		return own_tid(t, r, tid);
	return 0;
}

/* the event written to t->line, into the sort at time ts */
static int sort_line(struct ap_trace *t, uint64_t ts)
{
	off_t len;

	if (fflush(t->line))
		return -ENOMEM;
	len = ftello(t->line);
	if (len < 0 || fseeko(t->line, 0, SEEK_SET))
		return -EIO;
	return ap_evsort__add(t->sort, ts, t->line_buf, (size_t)len);
}

/* the arrow from the launch call to the kernel it started: its two ends,
 * each at its time on its track */
static int flow(struct ap_trace *t, const struct ap_evrec *r, uint32_t tid,
		uint64_t key)
{
	uint64_t mid = r->ts + r->dur_ns / 2;
	int err;

	t->flows++;
	fprintf(t->line, ",\n{\"name\": \"launch\", \"cat\": \"gpu\", \"ph\": \"s\", \"id\": %" PRIu64 ", \"pid\": %u, \"tid\": %u, \"ts\": ",
		t->flows, r->pid, r->launch_tid);
	us(t->line, r->launch_mid);
	fputc('}', t->line);
	err = sort_line(t, r->launch_mid);
	if (err)
		return err;
	fprintf(t->line, ",\n{\"name\": \"launch\", \"cat\": \"gpu\", \"ph\": \"f\", \"bp\": \"e\", \"id\": %" PRIu64 ", \"pid\": %u, \"tid\": %u, \"ts\": ",
		t->flows, r->pid, tid);
	fprintf(t->line, "%c%" PRIu64 ",%" PRIu64 ",%" PRIu64 "%c", MARK_MID,
		r->ts, key, r->dur_ns, MARK_END);
	fputc('}', t->line);
	return sort_line(t, mid);
}

int ap_trace__event(struct ap_trace *t, const struct ap_evrec *r)
{
	FILE *out = t->line;
	uint32_t tid = r->tid;
	const char *sep = ", ";
	uint64_t key = 0;
	long n, j;
	int i, err;

	err = place(t, r, &tid);
	if (err)
		return err;
	/* what an event that failed half written left */
	if (fseeko(out, 0, SEEK_SET))
		return -EIO;
	if (r->summed && r->kind)
		t->summed |= 1u << (r->kind->tag & 31);
	/* the stack in the address space of the moment: resolved now */
	n = ap_evrec__stack(r, t->s, &t->res, t->user_only);
	if (n < 0)
		return (int)n;
	fputs(",\n{\"name\": ", out);
	ap_json_str(out, r->name);
	fputs(", \"cat\": ", out);
	ap_json_str(out, r->event);
	fputs(r->slice ? ", \"ph\": \"X\", \"ts\": " :
			 ", \"ph\": \"i\", \"s\": \"t\", \"ts\": ", out);
	us(out, r->ts);
	if (r->slice) {
		err = track_add(t, r, tid, &key);
		if (err)
			return err;
		fprintf(out, ", \"dur\": %c%" PRIu64 ",%" PRIu64 "%c", MARK_DUR,
			key, r->dur_ns, MARK_END);
	}
	fprintf(out, ", \"pid\": %u, \"tid\": %u, \"args\": {", r->pid, tid);
	if (tid != r->tid)
		fprintf(out, "\"tid\": %u", r->tid);
	else if (r->cpu != AP_EVREC_NO_CPU)
		fprintf(out, "\"cpu\": %u", r->cpu);
	else
		sep = "";
	for (i = 0; i < r->nr; i++) {
		fputs(sep, out);
		sep = ", ";
		ap_json_str(out, r->f[i].key);
		fputs(": ", out);
		if (r->f[i].num)
			fputs(r->f[i].val, out);
		else
			ap_json_str(out, r->f[i].val);
	}
	if (n > 0) {
		/* leaf first, as perf script and the tables print them */
		fputs(sep, out);
		fputs("\"stack\": [", out);
		for (j = 0; j < n; j++) {
			char buf[1100];

			snprintf(buf, sizeof(buf), "%s%s (%s)",
				 t->res.frames[j].sym,
				 t->res.frames[j].kernel ? "_[k]" : "",
				 t->res.frames[j].dso);
			fputs(j ? ", " : "", out);
			ap_json_str(out, buf);
		}
		fputc(']', out);
	}
	fputs("}}", out);
	err = sort_line(t, r->ts);
	if (!err && r->joined)
		err = flow(t, r, tid, key);
	return err;
}

/* one line per kind whose calls the kernel summed (-e syscall, -e io):
 * their totals are instants, and the timeline lacks their slices */
static void say_summed(const struct ap_trace *t)
{
	const struct ap_event_kind *k;
	uint32_t tag;

	for (tag = 0; tag < 32; tag++) {
		if (!(t->summed & 1u << tag))
			continue;
		k = ap_event_kind__of_tag(tag);
		if (!k)
			continue;
		fprintf(stderr,
			"aperture: warning: the recording's %s calls were summed in the kernel (-e %s): no %s slices in the trace, only their totals as instants; record -e %s:calls for a slice per call\n",
			k->name, k->name, k->name, k->name);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* process and thread names, as the session knows them at the end, then
 * the events in time order; every event is on a track named here */
int ap_trace__finish(struct ap_trace *t)
{
	FILE *out = t->out;
	uint64_t key, val, last_pid = UINT64_MAX;
	size_t it = 0, n = 0, i;
	uint64_t *keys;
	int err;

	keys = malloc((t->threads.nr ? t->threads.nr : 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	while (ap_hmap__next(&t->threads, &it, &key, &val))
		keys[n++] = key;
	qsort(keys, n, sizeof(*keys), cmp_u64);	/* pid, then tid */
	for (i = 0; i < n; i++) {
		uint32_t pid = keys[i] >> 32, tid = (uint32_t)keys[i];

		if (pid != last_pid) {
			const struct ap_proc_info *p = ap_session__proc(t->s, pid);

			fprintf(out, "%s\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, \"args\": {\"name\": ",
				t->nr++ ? "," : "", pid, pid);
			ap_json_str(out, p && p->comm ? p->comm :
				    ap_session__comm(t->s, pid, pid));
			fputs("}}", out);
			last_pid = pid;
		}
		fprintf(out, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, \"args\": {\"name\": ",
			pid, tid);
		ap_json_str(out, ap_session__comm(t->s, pid, tid));
		fputs("}}", out);
	}
	free(keys);
	/* the GPU's tracks, named and after the threads */
	for (it = 0; ap_hmap__next(&t->streams, &it, &key, &val);) {
		uint32_t pid = key >> 32, tid = (uint32_t)val;
		uint32_t dev = (key >> 24) & 0xff, stream = key & SYNC_TRACK;

		fprintf(out, "%s\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, \"args\": {\"name\": ",
			t->nr++ ? "," : "", pid, tid);
		if (stream == SYNC_TRACK)
			fprintf(out, "\"GPU %u synchronisations\"", dev);
		else
			fprintf(out, "\"GPU %u stream %u\"", dev, stream);
		fprintf(out, "}},\n{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, \"args\": {\"sort_index\": %u}}",
			pid, tid, tid);
	}
	/* the kinds' own tracks: "I/O of TID", "lock wait of TID" */
	for (it = 0; ap_hmap__next(&t->own_tracks, &it, &key, &val);) {
		const struct ap_event_kind *k =
			ap_event_kind__of_tag((key >> 24) & 0xff);
		uint32_t pid = key >> 32, tid = (uint32_t)val;

		fprintf(out, "%s\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, \"args\": {\"name\": \"%s of %u\"}},\n{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, \"args\": {\"sort_index\": %u}}",
			t->nr++ ? "," : "", pid, tid, k ? k->title : "?",
			(uint32_t)key & 0xffffff, pid, tid, tid);
	}
	err = write_events(t, out);
	if (err)
		return err;
	fputs("\n]}\n", out);
	say_summed(t);
	return ferror(out) ? -EIO : 0;
}

void ap_trace__free(struct ap_trace *t)
{
	if (!t)
		return;
	ap_hmap__free(&t->threads);
	ap_hmap__free(&t->streams);
	ap_hmap__free(&t->own_tracks);
	ap_hmap__free(&t->track_ns);
	ap_stackres__free(&t->res);
	ap_strtab__free(t->strs);
	ap_evsort__free(t->sort);
	if (t->line)
		fclose(t->line);
	free(t->line_buf);
	free(t);
}

static int evout_event(void *p, const struct ap_evrec *r)
{
	return ap_trace__event(p, r);
}

static int evout_finish(void *p)
{
	return ap_trace__finish(p);
}

static void evout_free(void *p)
{
	ap_trace__free(p);
}

int ap_trace__evout(struct ap_session *s, int user_only, FILE *out,
		    struct ap_evout *to)
{
	to->p = ap_trace__new(s, user_only, out);
	to->event = evout_event;
	to->finish = evout_finish;
	to->free = evout_free;
	return to->p ? 0 : -ENOMEM;
}
