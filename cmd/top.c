// SPDX-License-Identifier: GPL-2.0
/*
 * aperture top: the collection of record, fed live through the recorder
 * into a session and a view (lib/tui/top_live.c), redrawn every interval on a
 * full-screen terminal (lib/tui/ui_term.c) or printed as plain snapshots (-b).
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aperture.h"
#include "cli.h"
#include "record/collector.h"
#include "event/event.h"
#include "format/format.h"
#include "record/procfs.h"
#include "record/recorder.h"
#include "report/session.h"
#include "symbols/symbolizer.h"
#include "tui/top_live.h"
#include "tui/ui_term.h"
#include "report/view.h"

#define DEFAULT_FREQ	999
#define MAX_PIDS	1024
/* how long records may wait in the ring buffer, and keys for an answer */
#define TICK_MS		100
#define MAX_SCREEN	512		/* rows drawn at most */

struct top_opts {
	pid_t pids[MAX_PIDS];
	int nr_pids;
	int system_wide;
	uint32_t freq;
	uint32_t events;
	double delay;			/* seconds between refreshes */
	long iterations;		/* 0: until stopped */
	int batch;
	int cumulative;
	const char *order;
	const char *filter;
	int user_only;
	int no_comm;
	long limit;
	struct ap_collect_opts collect;
};

enum {
	OPT_FILTER = 0x100,
	OPT_USER_ONLY,
	OPT_NO_COMM,
	OPT_LIMIT,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Targets:", 1 },
	{ "pid", 'p', "PID[,PID..]", 0, "Watch these processes, all their threads and the processes they fork", 1 },
	{ "all-cpus", 'a', NULL, 0, "Watch the whole system (the default)", 1 },
	{ NULL, 0, NULL, 0, "What to watch:", 2 },
	{ "events", 'e', "EVENT", 0, "One of cpu (default: hottest functions), syscall (by time), lock or lock:pthread (by wait), gpu (launches), mem (data objects), sched (on/off-CPU), io (bytes per file)", 2 },
	{ "freq", 'F', "HZ", 0, "CPU sampling frequency (default: 999)", 2 },
	{ NULL, 0, NULL, 0, "Display:", 3 },
	{ "delay", 'd', "SECONDS", 0, "Refresh every SECONDS (default: 2)", 3 },
	{ "cumulative", 'z', NULL, 0, "Counts since start, instead of decaying by half each refresh", 3 },
	{ "order", 'o', "ORDER", 0, "Initial row order, as the s key cycles (cpu: self, children, comm, symbol)", 3 },
	{ "filter", OPT_FILTER, "TEXT", 0, "Only rows whose symbol contains TEXT (the / key)", 3 },
	{ "user-only", OPT_USER_ONLY, NULL, 0, "Hide kernel frames (the k key)", 3 },
	{ "no-comm", OPT_NO_COMM, NULL, 0, "Hide the command column (the c key)", 3 },
	{ "limit", OPT_LIMIT, "N", 0, "Batch: at most N rows per snapshot (default: all)", 3 },
	{ "batch", 'b', NULL, 0, "Print plain text snapshots to standard output, without terminal control", 3 },
	{ "iterations", 'n', "N", 0, "Stop after N refreshes", 3 },
	AP_CLI_HELP_OPTIONS,
	{ NULL },
};

static const char doc[] =
	"A live view of where the targets spend their time, like perf top: "
	"the collection of 'aperture record' aggregated in memory and redrawn "
	"every interval.  Counts decay by half each interval unless -z is "
	"given.\n\n"
	"Keys: q quit, p pause, s cycle the order, k kernel frames, c command "
	"column, / filter by symbol, arrows and PgUp/PgDn scroll, h help."
	"\v"
	"Examples:\n"
	"  aperture top\n"
	"  aperture top -p 1234 -d 1\n"
	"  aperture top -e syscall -p 1234\n"
	"  aperture top -b -n 3 -p 1234 --limit 10 > snapshots.txt\n";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct top_opts *o = state->input;
	unsigned long long v;
	char *end;

	switch (key) {
	case 'p':
		ap_cli_add_pids(state, arg, o->pids, &o->nr_pids, MAX_PIDS);
		break;
	case 'a':
		o->system_wide = 1;
		break;
	case 'e':
		ap_cli_parse_events(state, arg, &o->events, &o->collect);
		if (o->events & (o->events - 1))
			ap_cli_usage_error(state,
					   "top shows one event at a time: give one of %s",
					   ap_events__valid());
		break;
	case 'F':
		o->freq = ap_cli_parse_freq(state, arg);
		break;
	case 'd':
		errno = 0;
		o->delay = strtod(arg, &end);
		if (errno || *end || end == arg || !(o->delay >= 0.1) ||
		    o->delay > 86400)
			ap_cli_usage_error(state,
					   "bad delay '%s': give seconds, 0.1 or more",
					   arg);
		break;
	case 'z':
		o->cumulative = 1;
		break;
	case 'o':
		o->order = arg;
		break;
	case OPT_FILTER:
		o->filter = arg;
		break;
	case OPT_USER_ONLY:
		o->user_only = 1;
		break;
	case OPT_NO_COMM:
		o->no_comm = 1;
		break;
	case OPT_LIMIT:
		if (ap_parse_u64(arg, 1, 1000000000, &v))
			ap_cli_usage_error(state, "bad limit '%s': give N >= 1",
					   arg);
		o->limit = (long)v;
		break;
	case 'b':
		o->batch = 1;
		break;
	case 'n':
		if (ap_parse_u64(arg, 1, 1000000000, &v))
			ap_cli_usage_error(state,
					   "bad iteration count '%s': give N >= 1",
					   arg);
		o->iterations = (long)v;
		break;
	case ARGP_KEY_ARG:
		ap_cli_usage_error(state, "unexpected argument '%s'", arg);
	case ARGP_KEY_END:
		if (o->nr_pids && o->system_wide)
			ap_cli_usage_error(state,
					   "give either -p PID or -a, not both");
		break;
	default:
		return ap_cli_key(key, arg, state);
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, NULL, doc };

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t resized;
static volatile sig_atomic_t resumed;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_winch(int sig)
{
	resized = 1;
}

/* Ctrl-Z: give the terminal back, stop, and take it again on resume */
static void on_tstp(int sig)
{
	int saved = errno;

	ap_term__restore_now();
	raise(SIGSTOP);
	resumed = 1;
	errno = saved;
}

/* a crash must not leave the user's terminal raw on the alternate screen */
static void on_fatal(int sig)
{
	ap_term__restore_now();
	raise(sig);		/* SA_RESETHAND: the default action now */
}

static void install_signals(int interactive)
{
	static const int fatal[] = {
		SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT,
	};
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (!interactive)
		return;
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_tstp;
	sigaction(SIGTSTP, &sa, NULL);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	atexit(ap_term__restore_now);
}

struct top {
	struct top_opts *o;
	struct ap_report_opts r;
	const struct ap_view_ops *view;
	struct ap_symbolizer *sym;
	struct ap_session *s;
	struct ap_top *live;
	struct ap_recorder *rec;
	struct ap_collector *col;
	struct ap_kallsyms *ksyms;
	struct ap_term *term;		/* NULL in batch mode */
	int finished;			/* sensors' last totals taken */
	char targets[256];
	char note[256];			/* last warning, for the state line */
	uint64_t lost, lost_interval;
	int nr_sorts;
	/* the screen */
	const char *text;		/* the last render */
	size_t text_len;
	int render_err;
	long offset;
	int page;			/* data rows on the last screen */
	int paused;
	int help;
	int prompt;			/* typing a filter */
	char filter[128];
	char input[128];
	size_t input_len;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* warnings and sensor notes: stderr, unless the screen is ours */
static void note(void *ctx, const char *msg)
{
	struct top *t = ctx;

	if (t->term)
		snprintf(t->note, sizeof(t->note), "%s", msg);
	else
		fprintf(stderr, "aperture: %s\n", msg);
}

/* the collector's callbacks share one context: this one, not the
 * recorder's */
static int on_event(void *ctx, const void *data, size_t size)
{
	struct top *t = ctx;

	return ap_recorder__event(t->rec, data, size);
}

static void warn_cb(void *ctx, const char *msg)
{
	struct top *t = ctx;

	if (t->term)
		snprintf(t->note, sizeof(t->note), "warning: %s", msg);
	else
		ap_warn("%s", msg);
}

static int targets_alive(struct top *t)
{
	int i, alive = 0;

	for (i = 0; i < t->o->nr_pids; i++)
		if (ap_recorder__exit_code(t->rec, t->o->pids[i]) < 0 &&
		    ap_proc_alive(t->o->pids[i]))
			alive++;
	return alive;
}

static void describe_targets(struct top *t)
{
	size_t off;
	int i;

	if (!t->o->nr_pids) {
		snprintf(t->targets, sizeof(t->targets), "system-wide");
		return;
	}
	off = snprintf(t->targets, sizeof(t->targets), "pid");
	for (i = 0; i < t->o->nr_pids && off < sizeof(t->targets); i++)
		off += snprintf(t->targets + off, sizeof(t->targets) - off,
				"%s%d", i ? "," : " ", t->o->pids[i]);
}

static void update_lost(struct top *t)
{
	const struct ap_event_kind *k;
	uint64_t c[AP_STAT_NR], lost;

	ap_collector__counters(t->col, c);
	lost = c[AP_STAT_RB_DROP] + c[AP_STAT_TARGET_FULL];
	k = ap_event_kind__of_tag(t->view->tag);
	if (k && k->table_full_stat >= 0)
		lost += c[k->table_full_stat];
	t->lost_interval = lost - t->lost;
	t->lost = lost;
}

static void header_line(struct top *t, char *buf, size_t len)
{
	const struct ap_top_stats *st = ap_top__stats(t->live);
	struct ap_top_header h = {
		.event = t->view->name,
		.rate = st->rate,
		.lost = t->lost,
		.lost_interval = t->lost_interval,
		.targets = t->targets,
		.targets_alive = t->o->nr_pids ? targets_alive(t) : -1,
		.nr_targets = t->o->nr_pids,
		.cumulative = t->o->cumulative,
		.interval_s = t->o->delay,
		.wall_s = time(NULL),
	};

	ap_top__header(&h, buf, len);
}

static const char *sort_name(struct top *t)
{
	return t->nr_sorts ? t->view->sort_names[t->r.top_sort] : "default";
}

static void status_line(struct top *t, const struct ap_top_layout *lo,
			char *buf, size_t len)
{
	const struct ap_top_stats *st = ap_top__stats(t->live);
	size_t off;

	off = snprintf(buf, len, "order: %s  kernel: %s  comm: %s  filter: %s",
		       sort_name(t), t->r.user_only ? "hidden" : "shown",
		       t->r.hide_comm ? "hidden" : "shown",
		       t->filter[0] ? t->filter : "none");
	if (lo && off < len)
		off += snprintf(buf + off, len - off, "  rows %ld-%ld of %ld",
				lo->total_rows ? lo->offset + 1 : 0,
				lo->offset + t->page, lo->total_rows);
	if (t->paused && off < len)
		off += snprintf(buf + off, len - off,
				"  PAUSED (%" PRIu64 " events not shown)",
				st->dropped_paused);
	if (st->bad_frames && off < len)
		off += snprintf(buf + off, len - off, "  bad frames: %" PRIu64,
				st->bad_frames);
	if (t->render_err && off < len)
		off += snprintf(buf + off, len - off, "  render: %s",
				strerror(-t->render_err));
	if (t->note[0] && off < len)
		snprintf(buf + off, len - off, "  %s", t->note);
}

/* the report options the view reads, from the top state */
static void apply_view_opts(struct top *t)
{
	int i, n = 0;

	t->r.sym_filter = t->filter[0] ? t->filter : NULL;
	/* the children column goes with the children order */
	t->r.no_children = !(t->nr_sorts &&
			     !strcmp(sort_name(t), "children"));
	for (i = 0; i < t->r.nr_keys; i++)
		if (t->r.keys[i] != AP_KEY_COMM)
			t->r.keys[n++] = t->r.keys[i];
	t->r.nr_keys = n;
	if (!t->r.hide_comm) {
		memmove(t->r.keys + 1, t->r.keys, n * sizeof(t->r.keys[0]));
		t->r.keys[0] = AP_KEY_COMM;
		t->r.nr_keys++;
	}
}

static void render(struct top *t)
{
	int rows;

	apply_view_opts(t);
	/* a narrow terminal keeps the Symbol column in sight */
	if (t->term)
		ap_term__size(t->term, &rows, &t->r.max_width);
	t->render_err = ap_top__render(t->live, &t->text, &t->text_len);
	if (t->render_err) {
		t->text = NULL;
		t->text_len = 0;
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

static int draw(struct top *t)
{
	struct ap_term_line lines[MAX_SCREEN];
	struct ap_top_line tl[MAX_SCREEN];
	struct ap_top_layout lo = { 0 };
	char head[512], status[512], bottom[256];
	int rows, cols, n = 0, i, body;

	ap_term__size(t->term, &rows, &cols);
	if (rows > MAX_SCREEN)
		rows = MAX_SCREEN;
	if (t->help) {
		int nr = (int)(sizeof(help_text) / sizeof(help_text[0]));

		for (i = 0; i < nr && n < rows; i++)
			lines[n++] = (struct ap_term_line){
				help_text[i], (int)strlen(help_text[i]),
				i ? AP_ATTR_NONE : AP_ATTR_REVERSE };
		return ap_term__draw(t->term, lines, n);
	}
	body = rows - 3;		/* header, status, bottom line */
	if (body < 0)
		body = 0;
	ap_top__layout(t->text ? t->text : "", t->text_len, t->offset,
		       t->filter, body, tl, &lo);
	t->offset = lo.offset;
	t->page = 0;
	for (i = 0; i < lo.nr_lines; i++)
		t->page += !tl[i].head;

	header_line(t, head, sizeof(head));
	status_line(t, &lo, status, sizeof(status));
	lines[n++] = (struct ap_term_line){ head, (int)strlen(head),
					    AP_ATTR_REVERSE };
	lines[n++] = (struct ap_term_line){ status, (int)strlen(status),
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
	if (t->prompt)
		snprintf(bottom, sizeof(bottom), "Filter by symbol: %.*s_",
			 (int)t->input_len, t->input);
	else
		snprintf(bottom, sizeof(bottom),
			 "h help  q quit  p pause  s order  k kernel  c comm  / filter");
	if (n < rows)
		lines[n++] = (struct ap_term_line){ bottom, (int)strlen(bottom),
						    AP_ATTR_REVERSE };
	return ap_term__draw(t->term, lines, n);
}

/* plain snapshot: the header, the status, the table */
static int print_snapshot(struct top *t)
{
	struct ap_top_line *tl;
	struct ap_top_layout lo;
	char head[512], status[512];
	size_t i, nl = 1;
	int err = 0;

	for (i = 0; i < t->text_len; i++)
		nl += t->text[i] == '\n';
	tl = calloc(nl, sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	ap_top__layout(t->text ? t->text : "", t->text_len, 0, t->filter,
		       (int)(nl > INT32_MAX ? INT32_MAX : nl), tl, &lo);
	header_line(t, head, sizeof(head));
	status_line(t, NULL, status, sizeof(status));
	printf("%s\n%s\n", head, status);
	if (t->render_err)
		err = t->render_err;
	for (i = 0; i < (size_t)lo.nr_lines; i++)
		printf("%.*s\n", tl[i].len, tl[i].s);
	putchar('\n');
	free(tl);
	if (fflush(stdout) || ferror(stdout))
		err = -errno ? -errno : -EIO;
	return err;
}

static void scroll(struct top *t, long by)
{
	t->offset += by;
	if (t->offset < 0)
		t->offset = 0;
	/* the upper bound is clamped by the layout */
}

/* one key; returns 1 to quit */
static int on_key(struct top *t, int key, int *rerender, int *redraw)
{
	*redraw = 1;
	if (t->help) {
		t->help = 0;
		return 0;
	}
	if (t->prompt) {
		switch (key) {
		case AP_KEY_ENTER:
			t->input[t->input_len] = '\0';
			snprintf(t->filter, sizeof(t->filter), "%s", t->input);
			t->prompt = 0;
			t->offset = 0;
			*rerender = 1;
			break;
		case AP_KEY_ESC:
			t->prompt = 0;
			break;
		case AP_KEY_BACKSPACE:
			if (t->input_len)
				t->input_len--;
			break;
		default:
			if (key >= 0x20 && key < 0x7f &&
			    t->input_len + 1 < sizeof(t->input))
				t->input[t->input_len++] = (char)key;
		}
		return 0;
	}
	switch (key) {
	case 'q':
	case 'Q':
		return 1;
	case 'p':
	case 'P':
		t->paused = !t->paused;
		ap_top__set_paused(t->live, t->paused);
		if (!t->paused)
			ap_top__restart_interval(t->live, mono_ns());
		break;
	case 's':
	case 'S':
		if (t->nr_sorts) {
			t->r.top_sort = (t->r.top_sort + 1) % t->nr_sorts;
			t->offset = 0;
			*rerender = 1;
		} else {
			snprintf(t->note, sizeof(t->note),
				 "the %s view has one order", t->view->name);
		}
		break;
	case 'k':
	case 'K':
		t->r.user_only = !t->r.user_only;
		*rerender = 1;
		break;
	case 'c':
	case 'C':
		t->r.hide_comm = !t->r.hide_comm;
		*rerender = 1;
		break;
	case '/':
		t->prompt = 1;
		t->input_len = strlen(t->filter);
		memcpy(t->input, t->filter, t->input_len);
		break;
	case 'h':
	case 'H':
	case '?':
		t->help = 1;
		break;
	case AP_KEY_UP:
		scroll(t, -1);
		break;
	case AP_KEY_DOWN:
		scroll(t, 1);
		break;
	case AP_KEY_PGUP:
		scroll(t, -(t->page > 1 ? t->page : 1));
		break;
	case AP_KEY_PGDN:
		scroll(t, t->page > 1 ? t->page : 1);
		break;
	case AP_KEY_HOME:
		t->offset = 0;
		break;
	case AP_KEY_END:
		t->offset = 1L << 40;	/* clamped to the last page */
		break;
	case 0x0c:			/* Ctrl-L */
		break;
	default:
		*redraw = 0;
	}
	return 0;
}

static int set_order(struct top *t, const char *name)
{
	int i;

	for (i = 0; i < t->nr_sorts; i++) {
		if (!strcmp(t->view->sort_names[i], name)) {
			t->r.top_sort = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int run(struct top *t)
{
	uint64_t interval = (uint64_t)(t->o->delay * 1e9), next, now;
	long done = 0;
	int err = 0, quit = 0, rerender, redraw, key;

	next = mono_ns() + interval;
	if (t->term) {
		/* something on the screen before the first interval ends */
		render(t);
		draw(t);
	}
	while (!stop_signal && !quit) {
		int wait_ms;

		now = mono_ns();
		wait_ms = now >= next ? 0 : (int)((next - now) / 1000000);
		if (wait_ms > TICK_MS)
			wait_ms = TICK_MS;
		rerender = redraw = 0;
		if (t->term) {
			key = ap_term__key(t->term, wait_ms);
			while (key > 0 && !quit) {
				int rr = 0, rd = 0;

				quit = on_key(t, key, &rr, &rd);
				rerender |= rr;
				redraw |= rd;
				key = ap_term__key(t->term, 0);
			}
			if (key < 0 && key != -EINTR) {
				err = key;
				break;
			}
			err = ap_collector__poll(t->col, 0);
		} else {
			/* the BPF side wakes the reader only when half a
			 * MiB waits (ap_submit): a tick of sleep, cut short
			 * when a busy source would otherwise fill the ring */
			err = ap_collector__poll(t->col, wait_ms);
		}
		if (err < 0 && err != -EINTR)
			break;
		err = 0;
		ap_recorder__flush(t->rec);
		if (resumed) {
			resumed = 0;
			err = ap_term__enter(t->term);
			if (err)
				break;
			redraw = 1;
		}
		if (resized) {
			resized = 0;
			redraw = 1;
		}

		now = mono_ns();
		if (now >= next) {
			int ended = t->o->nr_pids && !targets_alive(t);

			/* the targets' last records may still be in the
			 * ring buffer: they belong to this snapshot */
			if (ended) {
				while (ap_collector__poll(t->col, 0) > 0)
					;
				/* and so do totals kept in the kernel */
				if (!t->finished) {
					ap_collector__finish(t->col);
					t->finished = 1;
				}
				ap_recorder__flush(t->rec);
			}
			next += interval;
			if (next <= now)
				next = now + interval;
			if (!t->paused) {
				update_lost(t);
				ap_top__end_interval(t->live, now);
				render(t);
				if (t->term) {
					redraw = 1;
				} else {
					err = print_snapshot(t);
					if (err)
						break;
				}
				if (!t->o->cumulative)
					ap_top__decay(t->live, 1, 2);
				rerender = 0;
				if (t->o->iterations &&
				    ++done >= t->o->iterations)
					break;
			}
			/* batch output for scripts ends with its targets */
			if (!t->term && ended)
				break;
		}
		if (rerender)
			render(t);
		if (t->term && (redraw || rerender))
			draw(t);
	}
	return err;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = {
		.freq = DEFAULT_FREQ,
		.delay = 2,
		.collect.mem_density = 1,
		.collect.min_block_ns = 1000,
		/* a viewer, not a recording: tables for new programs wait
		 * rather than take a third of a core on a busy machine */
		.collect.unwind_budget_pct = 5,
	};
	/* top shows no source lines */
	struct ap_symbolizer_opts so = { .warn = warn_cb, .no_srcline = 1 };
	struct top t = { .o = &o };
	const struct ap_sensor *sensors;
	char err[512];
	size_t i, nsens;
	int ret = 1, e;

	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS, NULL, &o);
	if (!o.events)
		o.events = AP_EVMASK(AP_TAG_CPU);
	o.system_wide = !o.nr_pids;
	o.collect.events = o.events;
	o.collect.system_wide = o.system_wide;
	o.collect.freq = o.freq;

	for (i = 0; i < 32 && !(o.events & AP_EVMASK(i)); i++)
		;
	t.view = ap_view__find(ap_tag__name(i) ? ap_tag__name(i) : "");
	if (!t.view) {
		ap_err("no live view for event '%s' in this build",
		       ap_tag__name(i) ? ap_tag__name(i) : "?");
		return 1;
	}
	for (t.nr_sorts = 0; t.view->sort_names &&
			     t.view->sort_names[t.nr_sorts]; t.nr_sorts++)
		;
	if (o.order && set_order(&t, o.order)) {
		fprintf(stderr, "aperture top: unknown order '%s' for the %s view",
			o.order, t.view->name);
		for (e = 0; e < t.nr_sorts; e++)
			fprintf(stderr, "%s%s", e ? ", " : "; give ",
				t.view->sort_names[e]);
		fputc('\n', stderr);
		return EXIT_USAGE;
	}
	for (i = 0; i < (size_t)o.nr_pids; i++) {
		if (!ap_proc_alive(o.pids[i])) {
			ap_err("no such process: %d", o.pids[i]);
			return 1;
		}
	}
	if (!o.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		ap_err("top needs a terminal on standard input and output; give -b for plain snapshots");
		return 1;
	}

	t.r.keys[0] = AP_KEY_COMM;
	t.r.keys[1] = AP_KEY_DSO;
	t.r.keys[2] = AP_KEY_SYM;
	t.r.nr_keys = 3;
	t.r.show_samples = 1;
	t.r.user_only = o.user_only;
	t.r.hide_comm = o.no_comm;
	t.r.limit = o.batch ? o.limit : 0;
	if (o.filter)
		snprintf(t.filter, sizeof(t.filter), "%s", o.filter);
	describe_targets(&t);

	so.warn_ctx = &t;
	t.sym = ap_symbolizer__new(&so);
	/* nor, in the cpu view's rows, inline frames: no DWARF to read,
	 * which for compressed debug info is inflated whole */
	if (t.sym && t.view->needs_inline && !t.view->needs_inline(&t.r))
		ap_symbolizer__set_no_inline(t.sym, 1);
	t.s = t.sym ? ap_session__new(t.sym) : NULL;
	if (t.s)	/* other users' thread names, bound for the terminal */
		ap_session__escape_names(t.s, 1);
	t.live = t.s ? ap_top__new(t.view, &t.r, t.s) : NULL;
	t.rec = t.live ? ap_recorder__new(ap_top__sink, t.live) : NULL;
	if (!t.rec) {
		ap_err("out of memory");
		goto out;
	}
	e = ap_collector__open(&t.col, &o.collect, on_event, note, &t, err,
			       sizeof(err));
	if (e) {
		ap_err("%s", err);
		goto out;
	}
	ap_recorder__set_collector(t.rec, t.col);
	for (i = 0; i < (size_t)o.nr_pids; i++)
		ap_collector__add_target(t.col, o.pids[i]);
	e = ap_collector__start(t.col, err, sizeof(err));
	if (e) {
		ap_err("%s", err);
		goto out;
	}
	ap_top__restart_interval(t.live, mono_ns());
	nsens = ap_collector__sensors(t.col, &sensors);
	for (i = 0; i < nsens; i++)
		if (sensors[i].tag == t.view->tag &&
		    sensors[i].state == AP_SENSOR_UNAVAILABLE) {
			ap_err("%s: unavailable: %s", sensors[i].name,
			       sensors[i].reason);
			goto out;
		}
	t.ksyms = ap_kallsyms__load_kernel(&e);
	if (!t.ksyms)
		ap_warn("kernel symbols unavailable (/proc/kallsyms: %s): kernel frames will show as addresses",
			strerror(-e));
	ap_recorder__set_kallsyms(t.rec, t.ksyms);
	for (i = 0; i < (size_t)o.nr_pids; i++)
		ap_recorder__snapshot(t.rec, o.pids[i]);
	ap_recorder__flush(t.rec);

	install_signals(!o.batch);
	if (!o.batch) {
		e = ap_term__open(&t.term, STDIN_FILENO, STDOUT_FILENO);
		if (!e)
			e = ap_term__enter(t.term);
		if (e) {
			ap_term__close(t.term);
			t.term = NULL;
			ap_err("setting up the terminal: %s", strerror(-e));
			goto out;
		}
	}
	e = run(&t);
	/* the terminal first, so that messages land on the normal screen */
	ap_term__close(t.term);
	t.term = NULL;
	if (e) {
		ap_err("%s", strerror(-e));
		goto out;
	}
	ret = 0;
out:
	ap_term__close(t.term);
	ap_collector__close(t.col);
	ap_kallsyms__free(t.ksyms);
	ap_recorder__free(t.rec);
	ap_top__free(t.live);
	ap_session__free(t.s);
	ap_symbolizer__free(t.sym);
	return ret;
}
