// SPDX-License-Identifier: GPL-2.0
#include "tui/screen.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/top_live.h"
#include "tui/ui_term.h"

void ap_top_screen__init(struct ap_top_screen *sc,
			 const struct ap_view_ops *view)
{
	sc->view = view;
	for (sc->nr_sorts = 0; view->sort_names &&
			       view->sort_names[sc->nr_sorts]; sc->nr_sorts++)
		;
	sc->r.keys[0] = AP_KEY_COMM;
	sc->r.keys[1] = AP_KEY_DSO;
	sc->r.keys[2] = AP_KEY_SYM;
	sc->r.nr_keys = 3;
	sc->r.show_samples = 1;
}

static void header_line(struct ap_top_screen *sc, char *buf, size_t len)
{
	const struct ap_top_stats *st = ap_top__stats(sc->live);
	struct ap_top_header h = {
		.event = sc->view->name,
		.rate = st->rate,
		.lost = sc->lost,
		.lost_interval = sc->lost_interval,
		.targets = sc->targets,
		.targets_alive = sc->nr_targets ?
				 sc->targets_alive(sc->ctx) : -1,
		.nr_targets = sc->nr_targets,
		.cumulative = sc->cumulative,
		.interval_s = sc->interval_s,
		.wall_s = time(NULL),
	};

	ap_top__header(&h, buf, len);
}

static const char *sort_name(struct ap_top_screen *sc)
{
	return sc->nr_sorts ? sc->view->sort_names[sc->r.top_sort] :
			      "default";
}

static void status_line(struct ap_top_screen *sc,
			const struct ap_top_layout *lo, char *buf, size_t len)
{
	const struct ap_top_stats *st = ap_top__stats(sc->live);
	size_t off;

	off = snprintf(buf, len, "order: %s  kernel: %s  comm: %s  filter: %s",
		       sort_name(sc), sc->r.user_only ? "hidden" : "shown",
		       sc->r.hide_comm ? "hidden" : "shown",
		       sc->filter[0] ? sc->filter : "none");
	if (lo && off < len)
		off += snprintf(buf + off, len - off, "  rows %ld-%ld of %ld",
				lo->total_rows ? lo->offset + 1 : 0,
				lo->offset + sc->page, lo->total_rows);
	if (sc->paused && off < len)
		off += snprintf(buf + off, len - off,
				"  PAUSED (%" PRIu64 " events not shown)",
				st->dropped_paused);
	if (st->bad_frames && off < len)
		off += snprintf(buf + off, len - off, "  bad frames: %" PRIu64,
				st->bad_frames);
	if (sc->render_err && off < len)
		off += snprintf(buf + off, len - off, "  render: %s",
				strerror(-sc->render_err));
	if (sc->note[0] && off < len)
		snprintf(buf + off, len - off, "  %s", sc->note);
}

/* the report options the view reads, from the screen state */
static void apply_view_opts(struct ap_top_screen *sc)
{
	int i, n = 0;

	sc->r.sym_filter = sc->filter[0] ? sc->filter : NULL;
	/* the children column goes with the children order */
	sc->r.no_children = !(sc->nr_sorts &&
			      !strcmp(sort_name(sc), "children"));
	for (i = 0; i < sc->r.nr_keys; i++)
		if (sc->r.keys[i] != AP_KEY_COMM)
			sc->r.keys[n++] = sc->r.keys[i];
	sc->r.nr_keys = n;
	if (!sc->r.hide_comm) {
		memmove(sc->r.keys + 1, sc->r.keys, n * sizeof(sc->r.keys[0]));
		sc->r.keys[0] = AP_KEY_COMM;
		sc->r.nr_keys++;
	}
}

void ap_top_screen__render(struct ap_top_screen *sc)
{
	int rows;

	apply_view_opts(sc);
	/* a narrow terminal keeps the Symbol column in sight */
	if (sc->term)
		ap_term__size(sc->term, &rows, &sc->r.max_width);
	sc->render_err = ap_top__render(sc->live, &sc->text, &sc->text_len);
	if (sc->render_err) {
		sc->text = NULL;
		sc->text_len = 0;
	}
}

static const char *const help_text[] = {
	"aperture top: keys",
	"",
	"  q          quit",
	"  p          pause / resume (new events are not shown while paused)",
	"  s          cycle the row order",
	"  k          show / hide kernel frames",
	"  c          show / hide the command column",
	"  /          filter by symbol (Enter applies, empty clears, Esc cancels)",
	"  Up, Down   scroll one row",
	"  PgUp, PgDn scroll one page",
	"  Home, End  first / last page",
	"  Ctrl-L     redraw",
	"  h, ?       this help",
	"",
	"Counts decay by half each refresh; -z keeps them cumulative.",
	"Press any key to return.",
};

int ap_top_screen__compose(struct ap_top_screen *sc, int rows,
			   struct ap_term_line *lines)
{
	struct ap_top_line tl[AP_TOP_MAX_SCREEN];
	struct ap_top_layout lo = { 0 };
	int n = 0, i, body;

	if (rows > AP_TOP_MAX_SCREEN)
		rows = AP_TOP_MAX_SCREEN;
	if (sc->help) {
		int nr = (int)(sizeof(help_text) / sizeof(help_text[0]));

		for (i = 0; i < nr && n < rows; i++)
			lines[n++] = (struct ap_term_line){
				help_text[i], (int)strlen(help_text[i]),
				i ? AP_ATTR_NONE : AP_ATTR_REVERSE };
		return n;
	}
	body = rows - 3;		/* header, status, bottom line */
	if (body < 0)
		body = 0;
	ap_top__layout(sc->text ? sc->text : "", sc->text_len, sc->offset,
		       sc->filter, body, tl, &lo);
	sc->offset = lo.offset;
	sc->page = 0;
	for (i = 0; i < lo.nr_lines; i++)
		sc->page += !tl[i].head;

	header_line(sc, sc->head, sizeof(sc->head));
	status_line(sc, &lo, sc->status, sizeof(sc->status));
	lines[n++] = (struct ap_term_line){ sc->head, (int)strlen(sc->head),
					    AP_ATTR_REVERSE };
	lines[n++] = (struct ap_term_line){ sc->status,
					    (int)strlen(sc->status),
					    AP_ATTR_NONE };
	for (i = 0; i < lo.nr_lines && n < rows - 1; i++) {
		/* the last head line names the columns */
		int cols_line = tl[i].head &&
				(i + 1 == lo.nr_lines || !tl[i + 1].head);

		lines[n++] = (struct ap_term_line){
			tl[i].s, tl[i].len,
			cols_line ? AP_ATTR_BOLD : AP_ATTR_NONE };
	}
	while (n < rows - 1)
		lines[n++] = (struct ap_term_line){ "", 0, AP_ATTR_NONE };
	if (sc->prompt)
		snprintf(sc->bottom, sizeof(sc->bottom),
			 "Filter by symbol: %.*s_", (int)sc->input_len,
			 sc->input);
	else
		snprintf(sc->bottom, sizeof(sc->bottom),
			 "h help  q quit  p pause  s order  k kernel  c comm  / filter");
	if (n < rows)
		lines[n++] = (struct ap_term_line){ sc->bottom,
						    (int)strlen(sc->bottom),
						    AP_ATTR_REVERSE };
	return n;
}

int ap_top_screen__draw(struct ap_top_screen *sc)
{
	struct ap_term_line lines[AP_TOP_MAX_SCREEN];
	int rows, cols, n;

	ap_term__size(sc->term, &rows, &cols);
	n = ap_top_screen__compose(sc, rows, lines);
	return ap_term__draw(sc->term, lines, n);
}

int ap_top_screen__print(struct ap_top_screen *sc, FILE *out)
{
	struct ap_top_line *tl;
	struct ap_top_layout lo;
	size_t i, nl = 1;
	int err = 0;

	for (i = 0; i < sc->text_len; i++)
		nl += sc->text[i] == '\n';
	tl = calloc(nl, sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	ap_top__layout(sc->text ? sc->text : "", sc->text_len, 0, sc->filter,
		       (int)(nl > INT32_MAX ? INT32_MAX : nl), tl, &lo);
	header_line(sc, sc->head, sizeof(sc->head));
	status_line(sc, NULL, sc->status, sizeof(sc->status));
	fprintf(out, "%s\n%s\n", sc->head, sc->status);
	if (sc->render_err)
		err = sc->render_err;
	for (i = 0; i < (size_t)lo.nr_lines; i++)
		fprintf(out, "%.*s\n", tl[i].len, tl[i].s);
	fputc('\n', out);
	free(tl);
	if (fflush(out) || ferror(out))
		err = -errno ? -errno : -EIO;
	return err;
}
