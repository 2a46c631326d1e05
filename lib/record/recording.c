// SPDX-License-Identifier: GPL-2.0
#include "record/recording.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format/format.h"
#include "format/writer.h"
#include "record/collector.h"
#include "record/kmaps.h"
#include "record/procfs.h"
#include "record/recorder.h"
#include "record/spool.h"
#include "record/targets.h"
#include "record/workload.h"
#include "symbols/buildid.h"
#include "symbols/symbolizer.h"
#include "unwind/unwind.h"
#include "util/escape.h"
#include "util/num.h"
#include "util/safefile.h"

#define FLUSH_NS	(500 * 1000 * 1000ull)
#define ALIVE_NS	(100 * 1000 * 1000ull)
/* a window is finished once the reader has reached a record stamped this
 * long after its cut (or found the ring empty that long after it): a
 * record's time is taken just after its place in the ring is reserved,
 * so every record from before the cut has been read by then; those after
 * it wait in the queue.  A reader behind (a loaded machine) finishes it
 * later, not with records missing */
#define CUT_GUARD_NS	(100 * 1000 * 1000ull)

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int64_t mono_to_real(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((int64_t)r.tv_sec - m.tv_sec) * 1000000000ll +
	       ((int64_t)r.tv_nsec - m.tv_nsec);
}


int ap_recording__set_switch(struct ap_recording *r, const struct ap_switch *sw)
{
	r->hdr = malloc(sizeof(*r->hdr));
	if (!r->hdr)
		return -ENOMEM;
	r->sw = *sw;
	r->windows = 1;
	ap_buf__init(&r->queue);
	return 0;
}

int ap_recording__event(void *ctx, const void *data, size_t size)
{
	struct ap_recording *r = ctx;
	const struct ap_ev_hdr *h = data;
	uint64_t len = size;
	static const uint8_t pad[8];

	if (size >= sizeof(*h) && h->ts > r->max_ts)
		r->max_ts = h->ts;
	if (size >= sizeof(*h) && r->cut_ns && h->ts >= r->cut_ns) {
		/* the next window's: replayed once this one is finished,
		 * each at an 8-byte boundary as the ring keeps them (the
		 * handlers read their fields in place) */
		ap_buf__put(&r->queue, &len, sizeof(len));
		ap_buf__put(&r->queue, data, size);
		ap_buf__put(&r->queue, pad, (8 - size % 8) % 8);
		return r->queue.err;
	}
	/* counted: a record from before this window's start (not in the
	 * first window, which takes what the sensors stamped before the
	 * recording's start, as a single file does; nor the kernel's
	 * mapping records, read from buffers of their own: state the new
	 * window has anyway) */
	if (size >= sizeof(*h) && r->nr_windows && h->ts &&
	    h->ts < r->win_start_ns && h->type != AP_REC_KMAP)
		r->late++;
	return ap_recorder__event(r->rec, data, size);
}

/* the records held for the window that starts now, through the cut
 * again (a later cut may hold some of them once more) */
static int replay(struct ap_recording *r)
{
	struct ap_buf q = r->queue;
	size_t off = 0;
	int e = 0;

	ap_buf__init(&r->queue);
	while (!e && off + sizeof(uint64_t) <= q.len) {
		uint64_t len;

		memcpy(&len, q.data + off, sizeof(len));
		off += sizeof(len);
		if (len > q.len - off)
			break;
		e = ap_recording__event(r, q.data + off, len);
		off += len + (8 - len % 8) % 8;
	}
	ap_buf__free(&q);
	return e;
}

/* OUTPUT.<YYYYmmddHHMMSScc>, the cut's local time, as perf names them */
static void window_name(const struct ap_recording *r, uint64_t end_mono,
			char *buf, size_t len)
{
	int64_t real = (int64_t)end_mono + mono_to_real();
	time_t t = (time_t)(real / 1000000000ll);
	struct tm tm;
	char stamp[16];

	localtime_r(&t, &tm);
	if (!strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm))
		stamp[0] = '\0';
	snprintf(buf, len, "%s.%s%02u", r->base, stamp,
		 (unsigned)(real / 10000000ll % 100) % 100);
}

/* the header's target line says which window of the run this is and,
 * with --push, what became of the windows before it, so that report
 * shows them with the file */
static void window_target(struct ap_recording *r)
{
	struct ap_spool_counts n;
	size_t off;

	/* the filters' part may be cut, the window's number never */
	snprintf(r->hdr->target, sizeof(r->hdr->target), "%.160s; window %" PRIu64,
		 r->target, r->nr_windows + 1);
	if (!r->sw.spool || !r->sw.spool_push)
		return;
	ap_spool__counts(r->sw.spool, &n);
	off = strlen(r->hdr->target);
	snprintf(r->hdr->target + off, sizeof(r->hdr->target) - off,
		 ", push before it: %" PRIu64 " sent, %" PRIu64 " retried, %" PRIu64 " rejected, %" PRIu64 " lost",
		 n.sent, n.retried, n.rejected, n.lost);
}

static int open_window(struct ap_recording *r, uint64_t start_ns)
{
	int e;

	window_target(r);
	r->hdr->start_mono_ns = start_ns;
	r->hdr->mono_to_real_ns = mono_to_real();
	r->win_start_ns = start_ns;
	r->cut_ns = r->sw.every_ns ? start_ns + r->sw.every_ns : 0;
	r->w = ap_writer__create(r->part, r->hdr, &e);
	if (r->w && r->owner_set)
		ap_writer__chown(r->w, r->owner_uid, r->owner_gid);
	return r->w ? 0 : e;
}

/* the summary of the file being written, from the window's start on */
static void fill_summary(struct ap_recording *r, struct ap_summary *sum,
			 uint64_t end, int exit_status)
{
	const struct ap_record_counts *counts = ap_recorder__counts(r->rec);
	uint64_t *b = r->base_counters;

	ap_collector__counters(r->col, r->counters);
	memset(sum, 0, sizeof(*sum));
	sum->end_mono_ns = end;
	sum->samples = counts->samples - r->base_samples;
	sum->events = counts->events - r->base_events;
	sum->lost[AP_LOST_RINGBUF] = r->counters[AP_STAT_RB_DROP] -
				     b[AP_STAT_RB_DROP];
	sum->lost[AP_LOST_KSTACK] = r->counters[AP_STAT_KSTACK_ERR] -
				    b[AP_STAT_KSTACK_ERR];
	sum->lost[AP_LOST_USTACK] = r->counters[AP_STAT_USTACK_ERR] -
				    b[AP_STAT_USTACK_ERR];
	sum->exit_status = exit_status;
	r->base_samples = counts->samples;
	r->base_events = counts->events;
	memcpy(b, r->counters, sizeof(r->counters));
}

/* a finished window under its name, given to the spool, named on
 * stderr as perf does */
static int publish_window(struct ap_recording *r, uint64_t end)
{
	char name[sizeof(r->base) + 64];
	struct stat st;

	window_name(r, end, name, sizeof(name));
	if (rename(r->part, name))
		return -errno;
	r->nr_windows++;
	st.st_size = 0;
	stat(name, &st);
	r->window_bytes += st.st_size;
	if (!r->sw.quiet)
		fprintf(stderr, "aperture: dump %s\n", name);
	if (r->sw.spool)
		return ap_spool__add(r->sw.spool, name, st.st_size, mono_ns());
	return 0;
}

/* the window ends at its cut: its status and summary, the file in
 * place, and the next one begun with the state it needs */
static int switch_window(struct ap_recording *r)
{
	uint64_t cut = r->cut_ns;
	struct ap_summary sum;
	int e;

	ap_recorder__write_status(r->rec, r->col);
	ap_recorder__flush(r->rec);
	fill_summary(r, &sum, cut, -1);
	ap_recorder__set_loss_base(r->rec, r->base_counters);
	e = ap_writer__close(r->w, &sum);
	r->w = NULL;
	if (!e)
		e = publish_window(r, cut);
	if (!e)
		e = open_window(r, cut);
	if (!e)
		e = ap_recorder__new_window(r->rec);
	if (!e)
		e = replay(r);
	if (!e)
		e = r->queue.err;
	/* the last window's tables and the records held for this one are
	 * freed: their pages go back, so that a service's RSS is what it
	 * holds, not the most it ever held */
	malloc_trim(0);
	return e;
}

/* the loop's part in windows: a cut due (by time, size or signal), and
 * the window finished once the records before its cut are in */
static int windows_tick(struct ap_recording *r, uint64_t now)
{
	int e;

	if (!r->cut_ns && *r->sw.signal) {
		*r->sw.signal = 0;
		r->cut_ns = now;
	}
	if (!r->cut_ns && r->sw.size && r->w &&
	    ap_writer__bytes(r->w) >= r->sw.size)
		r->cut_ns = now;
	/* the ring read up to past the guard, or empty after it (targets
	 * that sleep) */
	if (r->cut_ns && now >= r->cut_ns + CUT_GUARD_NS &&
	    (r->max_ts >= r->cut_ns + CUT_GUARD_NS ||
	     !ap_collector__unread(r->col))) {
		e = switch_window(r);
		if (e && !r->write_err)
			r->write_err = e;
	}
	if (r->sw.spool)
		ap_spool__tick(r->sw.spool, now);
	return r->write_err;
}

/* keep the previous recording as FILE.old, as perf does; lstat and
 * rename, which act on a link itself, never on what it points to */
int ap_recording__keep_old(const char *path, char *err, size_t len)
{
	char old[4096 + 8];
	struct stat st;

	if (lstat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return 0;
	snprintf(old, sizeof(old), "%s.old", path);
	if (rename(path, old)) {
		snprintf(err, len, "keeping '%s' as '%s': %s", path, old,
			 strerror(errno));
		return -errno;
	}
	return 0;
}


int ap_recording__sink(void *ctx, const void *frames, size_t len)
{
	struct ap_recording *r = ctx;
	int err;

	if (r->write_err)
		return 0;	/* counted once, reported at the end */
	if (!r->w) {
		ap_buf__put(&r->early, frames, len);
		return 0;
	}
	err = ap_writer__append(r->w, frames, len);
	if (err)
		r->write_err = err;
	return 0;
}


/*
 * " ARG" quoted as a shell would need it, so that the command line can be
 * pasted back and stays on one line of the report's header: 'a b',
 * $'a\nb' for control characters.  Returns the new length.
 */
static size_t append_quoted(char *buf, size_t len, size_t off,
			    const char *arg)
{
	const char *p;
	int ctl = 0, plain = *arg != 0;

	for (p = arg; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			ctl = 1;
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-./:=,+@%^", *p) &&
		    (unsigned char)*p < 0x80)
			plain = 0;
	}
#define PUT(...) (off += off < len ? (size_t)snprintf(buf + off, len - off, __VA_ARGS__) : 0)
	PUT(" ");
	if (plain) {
		PUT("%s", arg);
	} else if (!ctl) {
		PUT("'");
		for (p = arg; *p; p++)
			*p == '\'' ? PUT("'\\''") : PUT("%c", *p);
		PUT("'");
	} else {
		PUT("$'");
		for (p = arg; *p; p++) {
			unsigned char c = *p;

			if (c == '\n')
				PUT("\\n");
			else if (c == '\t')
				PUT("\\t");
			else if (c < 0x20 || c == 0x7f)
				PUT("\\x%02x", c);
			else if (c == '\'' || c == '\\')
				PUT("\\%c", c);
			else
				PUT("%c", c);
		}
		PUT("'");
	}
#undef PUT
	return off < len ? off : len;
}

void ap_record_header__build(struct ap_header *h,
			     const struct ap_record_header_opts *o)
{
	struct utsname u;
	size_t off = 0;
	int i;

	ap_header__init(h);
	h->start_mono_ns = o->start_ns ? o->start_ns : mono_ns();
	h->mono_to_real_ns = mono_to_real();
	h->freq = o->freq;
	h->events_requested = o->events;
	h->events_available = o->available;
	h->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!uname(&u)) {
		snprintf(h->host, sizeof(h->host), "%s", u.nodename);
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	}
	/* for pprof's kernel mapping: a server symbolizes it by build-id */
	i = ap_kernel__build_id(NULL, h->kernel_build_id,
				sizeof(h->kernel_build_id));
	h->kernel_build_id_len = i > 0 ? (uint8_t)i : 0;
	snprintf(h->cmdline, sizeof(h->cmdline), "aperture record");
	off = strlen(h->cmdline);
	for (i = 1; i < o->argc && off < sizeof(h->cmdline); i++)
		off = append_quoted(h->cmdline, sizeof(h->cmdline), off,
				    o->argv[i]);
	if (o->system_wide) {
		snprintf(h->target, sizeof(h->target), "system-wide");
	} else if (o->cmd) {
		snprintf(h->target, sizeof(h->target), "command %s", o->cmd);
	} else {
		off = snprintf(h->target, sizeof(h->target), "pid");
		for (i = 0; i < o->nr_pids && off < sizeof(h->target); i++)
			off += snprintf(h->target + off,
					sizeof(h->target) - off, "%s%d",
					i ? "," : " ", o->pids[i]);
	}
	snprintf(h->labels, sizeof(h->labels), "%s",
		 o->labels ? o->labels : "");
	/* -t, -C, -u, -G */
	off = strlen(h->target);
	for (i = 0; o->filters[i] && off + 1 < sizeof(h->target); i++)
		h->target[off++] = o->filters[i];
	h->target[off] = '\0';
}


static void human_size(uint64_t n, char *buf, size_t len)
{
	if (n >= 10 * 1024 * 1024)
		snprintf(buf, len, "%.1f MB", n / (1024.0 * 1024));
	else if (n >= 10 * 1024)
		snprintf(buf, len, "%.1f KB", n / 1024.0);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", n);
}


/* -v: what the recorder holds at the end, and its memory at most */
static void print_memory(const struct ap_kallsyms *ksyms, FILE *out)
{
	struct mallinfo2 mi = mallinfo2();
	long rss = -1, hwm = -1;
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", &rss);
		sscanf(line, "VmHWM: %ld", &hwm);
	}
	if (f)
		fclose(f);
	fprintf(out,
		"aperture: memory: %zu kB of heap in use, %zu kB of kernel symbols (%zu), RSS %ld kB, at most %ld kB\n",
		(mi.uordblks + mi.hblkhd) / 1024,
		ap_kallsyms__bytes(ksyms) / 1024, ap_kallsyms__count(ksyms),
		rss, hwm);
}

void ap_recording__init(struct ap_recording *r, struct ap_recorder *rec)
{
	memset(r, 0, sizeof(*r));
	r->rec = rec;
	ap_buf__init(&r->early);
}

int ap_recording__create(struct ap_recording *r, const char *path,
			 const struct ap_header *h, char *err, size_t len)
{
	const char *slash;
	int e;

	if (r->windows) {
		/* a hidden name in OUTPUT's directory until it is whole */
		snprintf(r->base, sizeof(r->base), "%s", path);
		slash = strrchr(path, '/');
		snprintf(r->part, sizeof(r->part), "%.*s.%s.part",
			 slash ? (int)(slash - path + 1) : 0, path,
			 slash ? slash + 1 : path);
		*r->hdr = *h;
		snprintf(r->target, sizeof(r->target), "%s", h->target);
		e = open_window(r, h->start_mono_ns);
		if (e)
			snprintf(err, len, "creating '%s': %s", r->part,
				 ap_open_strerror(e));
		return e;
	}
	r->w = ap_writer__create(path, h, &e);
	if (!r->w) {
		snprintf(err, len, "creating '%s': %s", path,
			 ap_open_strerror(e));
		return e;
	}
	return 0;
}

void ap_recording__begin(struct ap_recording *r)
{
	if (r->early.err)
		r->write_err = r->early.err;
	else if (r->early.len)
		r->write_err = ap_writer__append(r->w, r->early.data,
						 r->early.len);
	ap_buf__free(&r->early);
}

void ap_recording__mark(struct ap_recording *r, enum ap_phase phase)
{
	r->phase[phase] = mono_ns();
}

int ap_recording__loop(struct ap_recording *r,
		       const struct ap_recording_until *u, int *cmd_ended)
{
	uint64_t start, last_flush, last_alive, deadline = 0;
	const struct ap_window *win = ap_collector__window(r->col);
	struct ap_workload *wl = u->cmd;
	int e;

	*cmd_ended = 0;
	start = last_flush = last_alive = mono_ns();
	/* the window's end, in the events' clock, counted from the first
	 * sensor's start: not from here */
	if (u->duration > 0)
		deadline = win->end_ns ? win->end_ns :
			   start + (uint64_t)(u->duration * 1e9);

	while (!*u->stop) {
		uint64_t now = mono_ns();
		int timeout = 100;

		if (deadline && now >= deadline)
			break;
		if (deadline && deadline - now < 100 * 1000000ull)
			timeout = (int)((deadline - now + 999999) / 1000000);
		e = ap_collector__poll(r->col, timeout);
		if (e < 0 && e != -EINTR)
			return e;
		now = mono_ns();
		/* before a flush: compressing a block takes 100s of ms on a
		 * busy machine, and the close writes it anyway */
		if (deadline && now >= deadline)
			break;
		if (now - last_flush >= FLUSH_NS) {
			ap_recorder__flush(r->rec);
			if (!r->write_err)
				r->write_err = ap_writer__flush(r->w);
			last_flush = now;
		}
		if (r->windows)
			windows_tick(r, now);
		if (r->write_err)
			break;
		if (wl && !wl->exited &&
		    waitpid(wl->pid, &wl->status, WNOHANG) == wl->pid) {
			wl->exited = 1;
			*cmd_ended = 1;
			break;
		}
		/* /proc reads at most every 100 ms, not on every wake-up */
		if (u->nr_pids && now - last_alive >= ALIVE_NS) {
			if (!ap_targets__alive(r->rec, u->pids, u->nr_pids))
				break;
			last_alive = now;
		}
	}
	return 0;
}

static uint64_t end_ns(const struct ap_recording *r);

int ap_recording__drain(struct ap_recording *r, uint64_t budget_ns)
{
	int e;

	/* nothing new from here on: under overload the sensors would keep
	 * the drain below going for ever; what the ring buffer holds
	 * already belongs to the recording, read for budget_ns at most (a
	 * second signal cuts it short), the rest counted lost */
	ap_collector__stop(r->col);
	ap_recording__mark(r, AP_PHASE_STOPPED);
	e = ap_collector__drain(r->col,
				r->phase[AP_PHASE_STOPPED] + budget_ns);
	ap_recording__mark(r, AP_PHASE_DRAINED);
	if (e < 0)
		return e;
	/* the cuts the recording passed before it ended, made; then the
	 * last window takes what was held */
	while (r->windows && r->cut_ns && r->cut_ns < end_ns(r) &&
	       !r->write_err)
		r->write_err = switch_window(r);
	if (r->windows) {
		r->cut_ns = 0;
		e = replay(r);
		if (e)
			return e;
	}
	/* calls still in flight are written as such, not dropped */
	return ap_collector__finish(r->col);
}

/*
 * The recording ends at the window's end (-d), from which the kernel
 * traced nothing, or else once the sensors have stopped (the command's
 * exit seen, a signal, the targets gone): not after the drain and the
 * finish, which take seconds under load.  What the sensors write after
 * it ends there too: their stop hooks read what they count up to then
 * (sched's run times), before this moment.  A file not drained ends as
 * it is finished.
 */
static uint64_t end_ns(const struct ap_recording *r)
{
	const struct ap_window *win = ap_collector__window(r->col);
	uint64_t stopped = r->phase[AP_PHASE_STOPPED];

	if (r->end_ns)
		return r->end_ns;
	if (win->end_ns && stopped && win->end_ns <= stopped)
		return win->end_ns;
	return stopped ? stopped : mono_ns();
}

int ap_recording__close(struct ap_recording *r, int exit_status)
{
	const struct ap_record_counts *counts;
	struct ap_summary sum;
	int e;

	ap_recorder__write_status(r->rec, r->col);
	ap_recorder__flush(r->rec);
	if (r->windows) {
		fill_summary(r, &sum, end_ns(r), exit_status);
		r->end_ns = sum.end_mono_ns;
		e = ap_writer__close(r->w, &sum);
		r->w = NULL;
		if (!e && !r->write_err)
			e = publish_window(r, sum.end_mono_ns);
		ap_recording__mark(r, AP_PHASE_CLOSED);
		return r->write_err ? r->write_err : e;
	}
	ap_collector__counters(r->col, r->counters);
	counts = ap_recorder__counts(r->rec);
	memset(&sum, 0, sizeof(sum));
	sum.end_mono_ns = r->end_ns = end_ns(r);
	sum.samples = counts->samples;
	sum.events = counts->events;
	sum.lost[AP_LOST_RINGBUF] = r->counters[AP_STAT_RB_DROP];
	sum.lost[AP_LOST_KSTACK] = r->counters[AP_STAT_KSTACK_ERR];
	sum.lost[AP_LOST_USTACK] = r->counters[AP_STAT_USTACK_ERR];
	sum.exit_status = exit_status;
	r->written = ap_writer__bytes(r->w);	/* before summary and trailer */
	e = ap_writer__close(r->w, &sum);
	r->w = NULL;
	ap_recording__mark(r, AP_PHASE_CLOSED);
	return r->write_err ? r->write_err : e;
}

void ap_recording__free(struct ap_recording *r)
{
	ap_buf__free(&r->early);
	if (r->windows) {
		ap_buf__free(&r->queue);
		if (r->w)
			unlink(r->part);
		free(r->hdr);
	}
}

/* the summary's end under --switch-output: the windows, and what became
 * of them when they are pushed */
static void print_windows(const struct ap_recording *r, const char *size,
			  const char *output, FILE *out)
{
	struct ap_spool_counts n;

	if (r->late)
		fprintf(out, " (%" PRIu64 " records came after their window was finished: in the next one)",
			r->late);
	fprintf(out, ", %s in %" PRIu64 " window%s written to %s.*", size,
		r->nr_windows, r->nr_windows == 1 ? "" : "s", output);
	if (r->sw.spool) {
		ap_spool__counts(r->sw.spool, &n);
		if (n.removed)
			fprintf(out, " (%" PRIu64 " removed past --switch-max-files)",
				n.removed);
		if (r->sw.spool_push)
			fprintf(out, "; push: %" PRIu64 " sent, %" PRIu64 " retried, %" PRIu64 " rejected, %" PRIu64 " lost, %" PRIu64 " unsent",
				n.sent, n.retried, n.rejected, n.lost,
				n.pending);
	}
	fprintf(out, "\n");
}

void ap_recording__print_summary(const struct ap_recording *r,
				 const char *output, FILE *out)
{
	const struct ap_record_counts *counts = ap_recorder__counts(r->rec);
	const uint64_t *counters = r->counters;
	int to_stdout = !strcmp(output, "-");
	struct stat st;
	uint64_t bytes = stat(output, &st) ? 0 : st.st_size;
	char size[32];

	if (to_stdout)
		bytes = r->written;
	if (r->windows)
		bytes = r->window_bytes;
	human_size(bytes, size, sizeof(size));
	fprintf(out,
		"aperture: %" PRIu64 " samples, %" PRIu64 " events, %" PRIu64 " lost",
		counts->samples, counts->events,
		counters[AP_STAT_RB_DROP]);
	if (counters[AP_STAT_KSTACK_ERR] || counters[AP_STAT_USTACK_ERR])
		fprintf(out, " (stack errors: %" PRIu64 " kernel, %" PRIu64 " user)",
			counters[AP_STAT_KSTACK_ERR],
			counters[AP_STAT_USTACK_ERR]);
	if (counters[AP_STAT_SCHED_UNSEEN])
		fprintf(out, " (%" PRIu64 " context switches the kernel did not report: intervals not measured in full)",
			counters[AP_STAT_SCHED_UNSEEN]);
	if (counts->losers) {
		/* the name is another user's: escaped */
		char comm[4 * AP_COMM_MAX + 1];

		ap_escape(comm, sizeof(comm), counts->loser_comm, 0);
		fprintf(out, " (records lost by %" PRIu64 " process%s, most by pid %u %s: %" PRIu64 ")",
			counts->losers, counts->losers > 1 ? "es" : "",
			counts->loser_pid, comm, counts->loser_lost);
	}
	if (r->windows) {
		print_windows(r, size, output, out);
		return;
	}
	fprintf(out, ", %s written to %s\n", size,
		to_stdout ? "standard output" : output);
}

static double secs(uint64_t from, uint64_t to)
{
	return to > from ? (to - from) / 1e9 : 0;
}

void ap_recording__print_timing(const struct ap_recording *r, int verbose,
				FILE *out)
{
	const struct ap_window *win = ap_collector__window(r->col);
	const uint64_t *ph = r->phase;
	uint64_t end = end_ns(r);
	/* what follows the window's end (-d), or the stop (no -d, or the
	 * targets ended first), where the recording ends */
	uint64_t after = end;

	/* what took the time, apart from the recording itself: start-up
	 * (loading and verifying the BPF programs, the kernel's symbols,
	 * the targets' tables) is not part of it, nor is the end */
	fprintf(out,
		"aperture: %.2f s recorded; start-up %.2f s before it (BPF programs %.2f s, kernel symbols %.2f s, targets and tables %.2f s), %.2f s after it (stopping %.2f s, draining %.2f s, finishing the file %.2f s)",
		secs(win->start_ns, end), secs(ph[AP_PHASE_BEGIN], win->start_ns),
		secs(ph[AP_PHASE_BEGIN], ph[AP_PHASE_LOADED]),
		secs(ph[AP_PHASE_LOADED], ph[AP_PHASE_KSYMS]),
		secs(ph[AP_PHASE_KSYMS], win->start_ns),
		secs(after, ph[AP_PHASE_CLOSED]),
		secs(after, ph[AP_PHASE_STOPPED]),
		secs(ph[AP_PHASE_STOPPED], ph[AP_PHASE_DRAINED]),
		secs(ph[AP_PHASE_DRAINED], ph[AP_PHASE_CLOSED]));
	if (win->unread)
		fprintf(out, "; %" PRIu64 " records left in the ring when the drain's time ran out, counted lost",
			win->unread);
	fprintf(out, "\n");
	if (verbose)
		fprintf(out,
			"aperture: window: CLOCK_MONOTONIC %.6f to %.6f s, every sensor on %.3f s after its start; %" PRIu64 " records from its end on discarded; sensors stopped at %.6f s, ring drained at %.6f s, file finished at %.6f s\n",
			win->start_ns / 1e9, end / 1e9,
			secs(win->start_ns, win->attached_ns), win->late,
			ph[AP_PHASE_STOPPED] / 1e9, ph[AP_PHASE_DRAINED] / 1e9,
			ph[AP_PHASE_CLOSED] / 1e9);
}

void ap_recording__print_costs(const struct ap_recording *r,
			       const struct ap_kallsyms *ksyms, FILE *out)
{
	const struct ap_record_counts *counts = ap_recorder__counts(r->rec);
	struct ap_unwind_stats us;

	/* what the targets' mappings cost the recorder: a process
	 * must not make it re-read them for every scan or sample */
	ap_collector__unwind_stats(r->col, &us);
	fprintf(out,
		"aperture: recorder: %" PRIu64 " maps scans (at most %" PRIu64 " of one process), %" PRIu64 " mappings written, %" PRIu64 " kernel mapping records lost, %" PRIu64 " build-id reads; unwinder: %" PRIu64 " table builds, %" PRIu64 " tables read from the cache (%" PRIu64 " ms at start), %" PRIu64 " kept in it, %" PRIu64 " mirror updates (at most %" PRIu64 " of one process), %" PRIu64 " mappings beyond the mirror\n",
		counts->map_scans, counts->map_scans_max,
		counts->mmaps, ap_collector__mappings_lost(r->col),
		ap_proc_build_id_reads(), us.builds, us.cache_loaded,
		us.cache_start_ns / 1000000, us.cache_saved, us.publishes,
		us.publishes_max, us.maps_full);
	print_memory(ksyms, out);
}

uint32_t ap_recording__available(const struct ap_recording *r,
				 uint32_t events)
{
	const struct ap_sensor *sensors;
	uint32_t available = 0;
	size_t i, n = ap_collector__sensors(r->col, &sensors);

	for (i = 0; i < n; i++)
		if ((events & AP_EVMASK(sensors[i].tag)) &&
		    sensors[i].state != AP_SENSOR_UNAVAILABLE)
			available |= AP_EVMASK(sensors[i].tag);
	return available;
}

int ap_recording__give_to_sudo_user(struct ap_recording *r)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	unsigned long long uid, gid;

	if (!u || !*u || geteuid() != 0)
		return 0;
	if (ap_parse_u64(u, 0, UINT32_MAX - 1, &uid))
		return -EINVAL;
	if (!g || !*g || ap_parse_u64(g, 0, UINT32_MAX - 1, &gid))
		gid = (unsigned long long)-1;
	/* the windows after this one too */
	r->owner_set = 1;
	r->owner_uid = (uid_t)uid;
	r->owner_gid = (gid_t)gid;
	return ap_writer__chown(r->w, (uid_t)uid, (gid_t)gid);
}
