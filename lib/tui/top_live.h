/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live aggregation behind aperture top.  The recorder's encoded frames
 * (the very frames record writes to a file) arrive through ap_top__sink,
 * go to a session and to one view, exactly as report feeds them from a
 * file; each interval the view renders its table into text, which
 * ap_top__layout cuts to a screen.  Nothing here touches a terminal:
 * lib/tui/screen.c draws with lib/tui/ui_term.h, and all of this is
 * testable with crafted frames.
 */
#ifndef APERTURE_TOP_LIVE_H
#define APERTURE_TOP_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "report/view.h"

struct ap_top;
struct ap_session;

/* view: the ops of the event shown; o: options the view reads at every
 * render (top changes them between renders); s: the session frames are
 * fed to.  None is owned. */
struct ap_top *ap_top__new(const struct ap_view_ops *view,
			   struct ap_report_opts *o, struct ap_session *s);
void ap_top__free(struct ap_top *t);

/* ap_sink_fn for ap_recorder__new: a run of encoded frames
 * (u32 tag | u32 len | payload, little-endian) */
int ap_top__sink(void *ctx, const void *frames, size_t len);

/* Paused: event frames are counted and dropped, so that the table on the
 * screen stays what it was; metadata (tasks, maps, stacks, symbols) still
 * reaches the session, which must stay current. */
void ap_top__set_paused(struct ap_top *t, int paused);

struct ap_top_stats {
	/* events of the view's tag: calls for a kernel-summed frame */
	uint64_t events;
	uint64_t interval_events;	/* ... in the last finished interval */
	double interval_s;		/* its length */
	double rate;			/* interval_events / interval_s */
	uint64_t dropped_paused;	/* event frames dropped while paused */
	uint64_t bad_frames;		/* did not decode, or cut short */
};

/* Ends the current interval at now_ns (CLOCK_MONOTONIC): its event count
 * and rate go to the stats.  The first interval starts at ap_top__new. */
void ap_top__end_interval(struct ap_top *t, uint64_t now_ns);
/* Restarts the interval clock without counting (after a pause). */
void ap_top__restart_interval(struct ap_top *t, uint64_t now_ns);
const struct ap_top_stats *ap_top__stats(const struct ap_top *t);
/* Scales the view's counts by num/den: 1/2 each interval is "decaying";
 * top -z never calls it (cumulative). */
void ap_top__decay(struct ap_top *t, unsigned num, unsigned den);

/* The view's table as text (o->format is forced to table); the text stays
 * valid until the next render or ap_top__free.  0 or -errno. */
int ap_top__render(struct ap_top *t, const char **text, size_t *len);

/* One line of a laid-out screen: a slice of the rendered text. */
struct ap_top_line {
	const char *s;
	int len;
	int head;			/* part of the pinned table head */
};

struct ap_top_layout {
	long total_rows;		/* data rows that pass the filter */
	long offset;			/* first data row shown (clamped) */
	int nr_lines;			/* lines filled in */
};

/*
 * Cuts a rendered table to at most max_lines lines: the '#' lines before
 * the first data row are the head, pinned at the top (bare "#" spacer
 * lines are dropped); data rows follow from *offset on (clamped so that
 * the last page is full).  With filter non-empty only data rows holding
 * it are kept; views that filter by symbol themselves (cpu) pass every
 * row they print, others are filtered on their text.  Returns 0.
 */
int ap_top__layout(const char *text, size_t len, long offset,
		   const char *filter, int max_lines,
		   struct ap_top_line *out, struct ap_top_layout *lo);

/* The header line: "aperture top - HH:MM:SS  EVENT: N samples/s ..." */
struct ap_top_header {
	const char *event;		/* view name */
	double rate;			/* events per second */
	uint64_t lost;			/* cumulative drops */
	uint64_t lost_interval;		/* drops in the last interval */
	const char *targets;		/* "system-wide", "pid 12,13" */
	int targets_alive;		/* -1: system-wide */
	int nr_targets;			/* processes given with -p */
	int cumulative;			/* -z */
	double interval_s;		/* refresh interval */
	int64_t wall_s;			/* time shown (local time) */
};
void ap_top__header(const struct ap_top_header *h, char *buf, size_t len);

#endif /* APERTURE_TOP_LIVE_H */
