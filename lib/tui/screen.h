/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The screen of aperture top: what it shows (the view's table from
 * lib/tui/top_live.h, under a header and a state line, the help page, the
 * filter prompt), drawn with lib/tui/ui_term.h or printed as a plain
 * snapshot, and what its keys do to it (lib/tui/keys.c).  Nothing here
 * reads events: cmd/top.c feeds the live aggregation and sets the counts
 * the header shows.  With term NULL everything but ap_top_screen__draw
 * works without a terminal, for tests and batch mode.
 */
#ifndef APERTURE_TUI_SCREEN_H
#define APERTURE_TUI_SCREEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/view.h"

struct ap_top;
struct ap_term;
struct ap_term_line;

/* rows drawn at most */
#define AP_TOP_MAX_SCREEN	512

struct ap_top_screen {
	const struct ap_view_ops *view;	/* the event shown */
	struct ap_report_opts r;	/* what the view reads at each render */
	struct ap_top *live;		/* over &r; not owned */
	struct ap_term *term;		/* NULL in batch mode; not owned */
	int nr_sorts;			/* the view's orders */
	/* the header: what is watched, set by the caller */
	const char *targets;		/* "system-wide", "pid 12,13" */
	int nr_targets;			/* processes given with -p */
	/* how many of them still run, asked at each header */
	int (*targets_alive)(void *ctx);
	void *ctx;
	int cumulative;			/* -z */
	double interval_s;		/* refresh interval */
	uint64_t lost, lost_interval;	/* drops: all, the last interval */
	char note[256];			/* last warning, for the state line */
	/* the last render */
	const char *text;
	size_t text_len;
	int render_err;
	/* the state of the screen */
	long offset;			/* first data row shown */
	int page;			/* data rows on the last screen */
	int paused;
	int help;
	int prompt;			/* typing a filter */
	char filter[128];
	char input[128];
	size_t input_len;
	/* the lines ap_top_screen__compose fills in point here */
	char head[512], status[512], bottom[256];
};

/* view: the event shown; the row keys top starts with (comm, dso,
 * symbol, with a samples column).  Sets nothing else. */
void ap_top_screen__init(struct ap_top_screen *sc,
			 const struct ap_view_ops *view);
/* The initial order by name: 0, or -EINVAL when the view has no such */
int ap_top_screen__set_order(struct ap_top_screen *sc, const char *name);

/* The view's table, rendered again from the screen state (filter, order,
 * kernel frames, command column, the terminal's width). */
void ap_top_screen__render(struct ap_top_screen *sc);
/* The screen as lines for a terminal of rows rows (at most
 * AP_TOP_MAX_SCREEN): the header, the state line, the table, the key line
 * or the filter prompt; or the help page.  Returns the count. */
int ap_top_screen__compose(struct ap_top_screen *sc, int rows,
			   struct ap_term_line *lines);
/* compose for the size of sc->term, then draw it.  0 or -errno. */
int ap_top_screen__draw(struct ap_top_screen *sc);
/* Batch mode: the header, the state line and the whole table to out,
 * then an empty line.  0, the render's error, or -errno of the write. */
int ap_top_screen__print(struct ap_top_screen *sc, FILE *out);

/*
 * One key (a byte or AP_KEY_* from ap_term__key), read at now_ns
 * (CLOCK_MONOTONIC: a resume restarts the interval there).  Sets
 * *rerender when the table must be rendered again, *redraw when the
 * screen changed.  Returns 1 to quit, else 0.
 */
int ap_top_screen__key(struct ap_top_screen *sc, int key, uint64_t now_ns,
		       int *rerender, int *redraw);

#endif /* APERTURE_TUI_SCREEN_H */
