// SPDX-License-Identifier: GPL-2.0
#include "tui/top_live.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "event/event.h"
#include "format/buf.h"
#include "format/reader.h"
#include "io/codec.h"
#include "report/session.h"
#include "syscall/codec.h"

struct ap_top {
	const struct ap_view_ops *ops;
	void *view;
	struct ap_report_opts *o;
	struct ap_session *s;
	int paused;
	uint64_t interval_start_ns;
	uint64_t events_at_start;	/* stats.events when it began */
	struct ap_top_stats stats;
	/* the last render; open_memstream owns the buffer until fclose */
	char *text;
	size_t text_len;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct ap_top *ap_top__new(const struct ap_view_ops *view,
			   struct ap_report_opts *o, struct ap_session *s)
{
	struct ap_top *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ops = view;
	t->o = o;
	t->s = s;
	t->view = view->new(o, s);
	if (!t->view) {
		free(t);
		return NULL;
	}
	t->interval_start_ns = mono_ns();
	return t;
}

void ap_top__free(struct ap_top *t)
{
	if (!t)
		return;
	t->ops->free(t->view);
	free(t->text);
	free(t);
}

/* the calls an event frame stands for: a kernel-summed one (syscall,
 * io) carries its count; any other is one */
static uint64_t frame_calls(const struct ap_frame *f)
{
	struct ap_syscall sc;
	struct ap_io io;

	if (f->tag == AP_TAG_SYSCALL &&
	    !ap_syscall__decode(f->payload, f->len, &sc) &&
	    (sc.flags & AP_SYSCALL_SUMMARY))
		return sc.calls;
	if (f->tag == AP_TAG_IO && !ap_io__decode(f->payload, f->len, &io) &&
	    (io.flags & AP_IO_F_SUM))
		return io.calls;
	return 1;
}

int ap_top__sink(void *ctx, const void *frames, size_t len)
{
	struct ap_top *t = ctx;
	const uint8_t *p = frames;
	size_t off = 0;

	while (off + AP_FRAME_HDR_LEN <= len) {
		struct ap_frame f;
		int ret;

		f.tag = ap_get_le32(p + off);
		f.len = ap_get_le32(p + off + 4);
		if (f.len > len - off - AP_FRAME_HDR_LEN)
			break;		/* cut short: counted below */
		f.payload = p + off + AP_FRAME_HDR_LEN;
		off += AP_FRAME_HDR_LEN + f.len;

		ret = ap_session__feed(t->s, &f);
		if (ret < 0) {
			t->stats.bad_frames++;
			continue;
		}
		if (ret != 1 || !ap_view__wants(t->ops, f.tag))
			continue;
		if (t->paused) {
			t->stats.dropped_paused++;
			continue;
		}
		if (t->ops->event(t->view, &f) == -EBADMSG)
			t->stats.bad_frames++;
		t->stats.events += frame_calls(&f);
	}
	/* the recorder hands whole frames; anything left is a bug, counted
	 * rather than trusted */
	if (off != len)
		t->stats.bad_frames++;
	return 0;
}

void ap_top__set_paused(struct ap_top *t, int paused)
{
	t->paused = paused;
}

void ap_top__end_interval(struct ap_top *t, uint64_t now_ns)
{
	struct ap_top_stats *st = &t->stats;

	st->interval_events = st->events - t->events_at_start;
	st->interval_s = now_ns > t->interval_start_ns ?
			 (now_ns - t->interval_start_ns) / 1e9 : 0;
	st->rate = st->interval_s > 0 ? st->interval_events / st->interval_s
				      : 0;
	ap_top__restart_interval(t, now_ns);
}

void ap_top__restart_interval(struct ap_top *t, uint64_t now_ns)
{
	t->interval_start_ns = now_ns;
	t->events_at_start = t->stats.events;
}

const struct ap_top_stats *ap_top__stats(const struct ap_top *t)
{
	return &t->stats;
}

void ap_top__decay(struct ap_top *t, unsigned num, unsigned den)
{
	if (t->ops->decay)
		t->ops->decay(t->view, num, den);
}

int ap_top__render(struct ap_top *t, const char **text, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f;
	int err;

	f = open_memstream(&buf, &n);
	if (!f)
		return -errno;
	t->o->format = AP_FMT_TABLE;
	err = t->ops->print(t->view, f);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(buf);
		return err;
	}
	free(t->text);
	t->text = buf;
	t->text_len = n;
	*text = t->text;
	*len = t->text_len;
	return 0;
}

static int is_spacer(const char *s, int len)
{
	return len == 1 && s[0] == '#';
}

int ap_top__layout(const char *text, size_t len, long offset,
		   const char *filter, int max_lines,
		   struct ap_top_line *out, struct ap_top_layout *lo)
{
	const char *p = text, *end = text + len;
	int in_head = 1, n = 0, room;
	long rows = 0, shown = 0;
	const char *first_row = NULL;

	memset(lo, 0, sizeof(*lo));
	if (max_lines < 0)
		max_lines = 0;
	/* pass 1: the head, and how many rows pass the filter */
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		int l = (int)((nl ? nl : end) - p);

		if (in_head && l && p[0] == '#') {
			if (!is_spacer(p, l) && n < max_lines)
				out[n++] = (struct ap_top_line){ p, l, 1 };
		} else {
			if (in_head)
				first_row = p;
			in_head = 0;
			if (l && (!filter || !*filter ||
				  memmem(p, l, filter, strlen(filter))))
				rows++;
		}
		p = nl ? nl + 1 : end;
	}
	lo->total_rows = rows;
	room = max_lines - n;
	if (offset > rows - room)
		offset = rows - room;
	if (offset < 0)
		offset = 0;
	lo->offset = offset;
	/* pass 2: the rows from offset on */
	for (p = first_row; p && p < end && n < max_lines;) {
		const char *nl = memchr(p, '\n', end - p);
		int l = (int)((nl ? nl : end) - p);

		if (l && (!filter || !*filter ||
			  memmem(p, l, filter, strlen(filter)))) {
			if (shown++ >= offset)
				out[n++] = (struct ap_top_line){ p, l, 0 };
		}
		p = nl ? nl + 1 : end;
	}
	lo->nr_lines = n;
	return 0;
}

void ap_top__header(const struct ap_top_header *h, char *buf, size_t len)
{
	time_t when = (time_t)h->wall_s;
	char clock[16] = "--:--:--", alive[48] = "", lost[48] = "";
	char mode[48];
	struct tm tm;

	if (localtime_r(&when, &tm))
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	/* say how many targets are left only when some are gone */
	if (h->targets_alive == 0)
		snprintf(alive, sizeof(alive), " (exited)");
	else if (h->targets_alive > 0 && h->targets_alive < h->nr_targets)
		snprintf(alive, sizeof(alive), " (%d of %d alive)",
			 h->targets_alive, h->nr_targets);
	if (h->lost_interval)
		snprintf(lost, sizeof(lost), " (+%" PRIu64 ")",
			 h->lost_interval);
	if (h->cumulative)
		snprintf(mode, sizeof(mode), "cumulative");
	else
		snprintf(mode, sizeof(mode), "decaying 1/2 per %g s",
			 h->interval_s);
	snprintf(buf, len,
		 "aperture top - %s  %s: %.0f %s/s  lost: %" PRIu64
		 "%s  targets: %s%s  %s",
		 clock, h->event, h->rate,
		 !strcmp(h->event, "cpu") ? "samples" :
		 !strcmp(h->event, "syscall") || !strcmp(h->event, "io") ?
		 "calls" : "events", h->lost, lost,
		 h->targets, alive, mode);
}
