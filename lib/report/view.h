/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Report views: one per kind of event (lib/<kind>/view.c).  A view takes
 * the event frames the session hands back, aggregates them, and prints a
 * table, folded stacks or JSON.  report and top drive the same views.
 *
 * A view is named by its kind's row in lib/event/kinds.c (adding a kind:
 * lib/event/event.h).
 */
#ifndef APERTURE_VIEW_H
#define APERTURE_VIEW_H

#include <stdint.h>
#include <stdio.h>

#include "format/format.h"
#include "format/reader.h"

struct ap_session;
struct ap_profile;
struct ap_strtab;
struct ap_ctxtab;
struct ap_stackres;

#define AP_FMT_TABLE	0
#define AP_FMT_FOLDED	1
#define AP_FMT_JSON	2
/* exports (lib/export/export.h): written from the views' profiles */
#define AP_FMT_PPROF	3
#define AP_FMT_SPEEDSCOPE	4
#define AP_FMT_SVG	5
/* event by event (lib/report/evdump.h) */
#define AP_FMT_TRACE	6
#define AP_FMT_EVENTS	7
#define AP_FMT_JSONL	8

/* sort/row keys of the CPU view */
#define AP_KEY_COMM	0
#define AP_KEY_PID	1
#define AP_KEY_TID	2
#define AP_KEY_DSO	3
#define AP_KEY_SYM	4
#define AP_KEY_SRCLINE	5	/* file:line of the frame's address, as perf's */
#define AP_KEY_CPU	6	/* the CPU a sample was taken on */
#define AP_KEY_NR	7
/* "comm", "pid", ... as --sort spells them */
extern const char *const ap_key_names[AP_KEY_NR];
#define AP_MAX_KEYS	8

#define AP_MAX_FILTER	64

/* ap_report_opts.call_graph: a call graph under each cpu row */
#define AP_CG_NONE	0
#define AP_CG_CALLEE	1	/* the row's callers, up to the roots */
#define AP_CG_CALLER	2	/* what the row calls, down to the leaves */

struct ap_report_opts {
	int format;			/* AP_FMT_* */
	int keys[AP_MAX_KEYS];		/* AP_KEY_*, in order */
	int nr_keys;
	/* --sort named keys, an order (children, self): every view shown
	 * must honour them (ap_viewset__check_sort) */
	int sort_given, order_given;
	uint32_t pids[AP_MAX_FILTER];
	int nr_pids;
	uint32_t tids[AP_MAX_FILTER];
	int nr_tids;
	const char *comm;		/* NULL: any */
	long limit;			/* rows; 0: all */
	int no_children;
	int user_only;
	int inline_rows;		/* cpu: inlined functions get rows */
	/* syscall / lock / other views */
	int per_thread;
	/* lock: the futex wait classes shown, 1u << AP_LOCK_CLS_*;
	 * 0: mutexes only */
	unsigned lock_classes;
	int errors;
	int hist;
	/* top: show only symbols containing this; NULL: all */
	const char *sym_filter;
	int hide_comm;			/* top: no comm column */
	/* the row order: an index in the view's sort_names (top cycles
	 * through them; report --sort children picks cpu's second) */
	int top_sort;
	long offset;			/* top: first row shown */
	int show_samples;		/* a Samples column (perf report -n) */
	/* table lines fit this many columns (a terminal's); 0: no limit.
	 * The Command and Shared Object columns give way first, so that
	 * the symbol stays in sight */
	int max_width;
	/* filtered percentages: of what passed the filters (perf's
	 * "relative"); 0: of every event, as perf's default "absolute" */
	int pct_relative;
	/* cpu: rows under this percent (children, else self) are left out */
	double percent_limit;
	/* set by report: the file's CPU sampling frequency, and folded
	 * weights in microseconds (CPU samples * 1e6 / freq, nanoseconds /
	 * 1000) so that several views in time (--events cpu,sched: a
	 * wall-clock graph) have one scale (ap_unit__common) */
	uint32_t freq;
	int folded_us;
	/* folded frames as "sym (file.c:12)" where the line is known */
	int folded_srcline;
	/* cpu: only samples taken in [time_lo, time_hi], CLOCK_MONOTONIC
	 * ns as script prints them; time_hi 0: to the end (--time) */
	uint64_t time_lo, time_hi;
	/* cpu: rows only of these shared objects (path or file name) and
	 * symbols (perf's --dsos, --symbols) */
	const char *dsos[AP_MAX_FILTER];
	int nr_dsos;
	const char *symbols[AP_MAX_FILTER];
	int nr_symbols;
	int call_graph;			/* AP_CG_*: -g, -G */
	/* -g's least percent of a branch; 0: --percent-limit, else 0.5 */
	double cg_percent;
};

struct ap_view_ops {
	const char *name;		/* as in --events */
	uint32_t tag;			/* AP_TAG_* it consumes */
	uint32_t more_tags;		/* AP_EVMASK of further tags */
	void *(*new)(const struct ap_report_opts *o, struct ap_session *s);
	/* one event frame with this view's tag */
	int (*event)(void *v, const struct ap_frame *f);
	/* table/folded/json as o->format says; JSON prints the value of
	 * this view's key in the top-level object */
	int (*print)(void *v, FILE *out);
	/* top: scale every count by num/den (0/1 clears) */
	void (*decay)(void *v, unsigned num, unsigned den);
	void (*free)(void *v);
	/* top: the row orders ap_report_opts.top_sort selects, in order,
	 * NULL-terminated; NULL: the view has one order */
	const char *const *sort_names;
	/* 1u << AP_KEY_* that --sort may name for this view */
	unsigned sort_keys;
	/* the view's stacks as a profile for the exporters (pprof,
	 * speedscope, svg); NULL: the view has no stacks to weigh */
	int (*profile)(void *v, struct ap_profile *p);
	/* does the output o asks for show inline frames (or need DWARF to
	 * tell them apart)?  NULL: yes */
	int (*needs_inline)(const struct ap_report_opts *o);
};

/* each kind's, for its row in lib/event/kinds.c */
extern const struct ap_view_ops ap_view_cpu;
extern const struct ap_view_ops ap_view_lock;
extern const struct ap_view_ops ap_view_syscall;
extern const struct ap_view_ops ap_view_gpu;
extern const struct ap_view_ops ap_view_mem;
extern const struct ap_view_ops ap_view_sched;
extern const struct ap_view_ops ap_view_io;
extern const struct ap_view_ops ap_view_tracepoint;

/* the view of the kind named name (lib/event/kinds.c), or NULL */
const struct ap_view_ops *ap_view__find(const char *name);
/* does the view consume frames of this tag? */
int ap_view__wants(const struct ap_view_ops *ops, uint32_t tag);
/* "cpu, syscall, ..." */
const char *ap_view__names(char *buf, size_t len);

/* a new table for the strings a view prints: other users' names are
 * escaped, but not in JSON, which escapes them itself; NULL: no memory */
struct ap_strtab *ap_view__strtab(const struct ap_report_opts *o);
/* a view's names: *strs from ap_view__strtab, and the contexts (ctxs;
 * NULL: the view has none) and print-time stack scratch that intern into
 * it; 0 or -ENOMEM with nothing to free */
int ap_view__names_init(const struct ap_report_opts *o, struct ap_strtab **strs,
			struct ap_ctxtab *ctxs, struct ap_stackres *res);
void ap_view__names_free(struct ap_strtab *strs, struct ap_ctxtab *ctxs,
			 struct ap_stackres *res);

/* is key among o's sort keys? */
int ap_report_opts__has_key(const struct ap_report_opts *o, int key);
/* does the event pass --pid/--tid/--comm? */
int ap_report_opts__match(const struct ap_report_opts *o,
			  struct ap_session *s, uint32_t pid, uint32_t tid);

/* output helpers */
void ap_json_str(FILE *out, const char *s);
/* "12.34%" of n in total into buf */
void ap_pct(char *buf, size_t len, double n, double total);
/* "1.23 ms" */
void ap_fmt_ns(char *buf, size_t len, double ns);
/* "  s" in a column w wide; longer: cut with a '+' last; w 0: whole */
void ap_put_col(FILE *out, const char *s, int w);

#endif /* APERTURE_VIEW_H */
