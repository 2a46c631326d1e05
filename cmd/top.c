// SPDX-License-Identifier: GPL-2.0
/*
 * aperture top: the collection of record, fed live through the recorder
 * into a session and a view (lib/tui/top_live.c), redrawn every interval on a
 * full-screen terminal (lib/tui/screen.c, keys.c, ui_term.c) or printed as
 * plain snapshots (-b).  Here: the options, the signals and the loop.
 */
#include <argp.h>
#include <errno.h>
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
#include "record/recorder.h"
#include "record/targets.h"
#include "report/session.h"
#include "symbols/symbolizer.h"
#include "tui/screen.h"
#include "tui/top_live.h"
#include "tui/ui_term.h"
#include "util/num.h"
#include "report/view.h"

#define DEFAULT_FREQ	999
/* how long records may wait in the ring buffer, and keys for an answer */
#define TICK_MS		100

struct top_opts {
	struct ap_cli_targets t;	/* -p, -a, -e, -F */
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
	{ "freq", 'F', "HZ", 0, "CPU sampling frequency, or max (default: 999)", 2 },
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
	case 'e':
		ap_cli_collect_key(key, arg, state, &o->t, &o->collect);
		if (o->t.events & (o->t.events - 1))
			ap_cli_usage_error(state,
					   "top shows one event at a time: give one of %s",
					   ap_events__valid());
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
		if (o->t.nr_pids && o->t.system_wide)
			ap_cli_usage_error(state,
					   "give either -p PID or -a, not both");
		break;
	default:
		return ap_cli_collect_key(key, arg, state, &o->t, &o->collect);
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

	ap_cli_catch_stop(on_stop);
	if (!interactive)
		return;
	memset(&sa, 0, sizeof(sa));
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
	struct ap_top_screen scr;	/* what is shown, and its keys */
	struct ap_symbolizer *sym;
	struct ap_session *s;
	struct ap_recorder *rec;
	struct ap_collector *col;
	struct ap_kallsyms *ksyms;
	int finished;			/* sensors' last totals taken */
	char targets[256];
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

	if (t->scr.term)
		snprintf(t->scr.note, sizeof(t->scr.note), "%s", msg);
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

	if (t->scr.term)
		snprintf(t->scr.note, sizeof(t->scr.note), "warning: %s", msg);
	else
		ap_warn("%s", msg);
}

/* for the screen's header too */
static int targets_alive(void *ctx)
{
	struct top *t = ctx;

	return ap_targets__alive(t->rec, t->o->t.pids, t->o->t.nr_pids);
}

static void describe_targets(struct top *t)
{
	size_t off;
	int i;

	if (!t->o->t.nr_pids) {
		snprintf(t->targets, sizeof(t->targets), "system-wide");
		return;
	}
	off = snprintf(t->targets, sizeof(t->targets), "pid");
	for (i = 0; i < t->o->t.nr_pids && off < sizeof(t->targets); i++)
		off += snprintf(t->targets + off, sizeof(t->targets) - off,
				"%s%d", i ? "," : " ", t->o->t.pids[i]);
}

static void update_lost(struct top *t)
{
	const struct ap_event_kind *k;
	uint64_t c[AP_STAT_NR], lost;

	ap_collector__counters(t->col, c);
	lost = c[AP_STAT_RB_DROP] + c[AP_STAT_TARGET_FULL];
	k = ap_event_kind__of_tag(t->scr.view->tag);
	if (k && k->table_full_stat >= 0)
		lost += c[k->table_full_stat];
	t->scr.lost_interval = lost - t->scr.lost;
	t->scr.lost = lost;
}

static int run(struct top *t)
{
	uint64_t interval = (uint64_t)(t->o->delay * 1e9), next, now;
	long done = 0;
	int err = 0, quit = 0, rerender, redraw, key;

	next = mono_ns() + interval;
	if (t->scr.term) {
		/* something on the screen before the first interval ends */
		ap_top_screen__render(&t->scr);
		ap_top_screen__draw(&t->scr);
	}
	while (!stop_signal && !quit) {
		int wait_ms;

		now = mono_ns();
		wait_ms = now >= next ? 0 : (int)((next - now) / 1000000);
		if (wait_ms > TICK_MS)
			wait_ms = TICK_MS;
		rerender = redraw = 0;
		if (t->scr.term) {
			key = ap_term__key(t->scr.term, wait_ms);
			while (key > 0 && !quit) {
				int rr = 0, rd = 0;

				quit = ap_top_screen__key(&t->scr, key, mono_ns(),
							  &rr, &rd);
				rerender |= rr;
				redraw |= rd;
				key = ap_term__key(t->scr.term, 0);
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
			err = ap_term__enter(t->scr.term);
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
			int ended = t->o->t.nr_pids && !targets_alive(t);

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
			if (!t->scr.paused) {
				update_lost(t);
				ap_top__end_interval(t->scr.live, now);
				ap_top_screen__render(&t->scr);
				if (t->scr.term) {
					redraw = 1;
				} else {
					err = ap_top_screen__print(&t->scr, stdout);
					if (err)
						break;
				}
				if (!t->o->cumulative)
					ap_top__decay(t->scr.live, 1, 2);
				rerender = 0;
				if (t->o->iterations &&
				    ++done >= t->o->iterations)
					break;
			}
			/* batch output for scripts ends with its targets */
			if (!t->scr.term && ended)
				break;
		}
		if (rerender)
			ap_top_screen__render(&t->scr);
		if (t->scr.term && (redraw || rerender))
			ap_top_screen__draw(&t->scr);
	}
	return err;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = {
		.t.freq = DEFAULT_FREQ,
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
	const struct ap_view_ops *view;
	const struct ap_sensor *sensors;
	char err[512];
	size_t i, nsens;
	int ret = 1, e;

	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS, NULL, &o);
	if (!o.t.events)
		o.t.events = AP_EVMASK(AP_TAG_CPU);
	o.t.system_wide = !o.t.nr_pids;
	o.collect.events = o.t.events;
	o.collect.system_wide = o.t.system_wide;
	o.collect.freq = o.t.freq;

	for (i = 0; i < 32 && !(o.t.events & AP_EVMASK(i)); i++)
		;
	view = ap_view__find(ap_tag__name(i) ? ap_tag__name(i) : "");
	if (!view) {
		ap_err("no live view for event '%s' in this build",
		       ap_tag__name(i) ? ap_tag__name(i) : "?");
		return 1;
	}
	ap_top_screen__init(&t.scr, view);
	if (o.order && ap_top_screen__set_order(&t.scr, o.order)) {
		fprintf(stderr, "aperture top: unknown order '%s' for the %s view",
			o.order, view->name);
		for (e = 0; e < t.scr.nr_sorts; e++)
			fprintf(stderr, "%s%s", e ? ", " : "; give ",
				view->sort_names[e]);
		fputc('\n', stderr);
		return EXIT_USAGE;
	}
	if (!ap_cli_pids_alive(&o.t))
		return 1;
	if (!o.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		ap_err("top needs a terminal on standard input and output; give -b for plain snapshots");
		return 1;
	}

	t.scr.r.user_only = o.user_only;
	t.scr.r.hide_comm = o.no_comm;
	t.scr.r.limit = o.batch ? o.limit : 0;
	if (o.filter)
		snprintf(t.scr.filter, sizeof(t.scr.filter), "%s", o.filter);
	describe_targets(&t);
	t.scr.targets = t.targets;
	t.scr.nr_targets = o.t.nr_pids;
	t.scr.targets_alive = targets_alive;
	t.scr.ctx = &t;
	t.scr.cumulative = o.cumulative;
	t.scr.interval_s = o.delay;

	so.warn_ctx = &t;
	t.sym = ap_symbolizer__new(&so);
	/* nor, in the cpu view's rows, inline frames: no DWARF to read,
	 * which for compressed debug info is inflated whole */
	if (t.sym && view->needs_inline && !view->needs_inline(&t.scr.r))
		ap_symbolizer__set_no_inline(t.sym, 1);
	t.s = t.sym ? ap_session__new(t.sym) : NULL;
	if (t.s)	/* other users' thread names, bound for the terminal */
		ap_session__escape_names(t.s, 1);
	t.scr.live = t.s ? ap_top__new(view, &t.scr.r, t.s) : NULL;
	t.rec = t.scr.live ? ap_recorder__new(ap_top__sink, t.scr.live) : NULL;
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
	for (i = 0; i < (size_t)o.t.nr_pids; i++)
		ap_collector__add_target(t.col, o.t.pids[i]);
	e = ap_collector__start(t.col, err, sizeof(err));
	if (e) {
		ap_err("%s", err);
		goto out;
	}
	ap_top__restart_interval(t.scr.live, mono_ns());
	nsens = ap_collector__sensors(t.col, &sensors);
	for (i = 0; i < nsens; i++)
		if (sensors[i].tag == view->tag &&
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
	for (i = 0; i < (size_t)o.t.nr_pids; i++)
		ap_recorder__snapshot(t.rec, o.t.pids[i]);
	ap_recorder__flush(t.rec);

	install_signals(!o.batch);
	if (!o.batch) {
		e = ap_term__open(&t.scr.term, STDIN_FILENO, STDOUT_FILENO);
		if (!e)
			e = ap_term__enter(t.scr.term);
		if (e) {
			ap_term__close(t.scr.term);
			t.scr.term = NULL;
			ap_err("setting up the terminal: %s", strerror(-e));
			goto out;
		}
	}
	e = run(&t);
	/* the terminal first, so that messages land on the normal screen */
	ap_term__close(t.scr.term);
	t.scr.term = NULL;
	if (e) {
		ap_err("%s", strerror(-e));
		goto out;
	}
	ret = 0;
out:
	ap_term__close(t.scr.term);
	ap_collector__close(t.col);
	ap_kallsyms__free(t.ksyms);
	ap_recorder__free(t.rec);
	ap_top__free(t.scr.live);
	ap_session__free(t.s);
	ap_symbolizer__free(t.sym);
	return ret;
}
