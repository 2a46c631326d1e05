/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exporters: a profile (lib/export/profile.h) written in the formats other tools
 * read.  Each lives in lib/export/<format>.c and returns 0 or -errno.
 */
#ifndef APERTURE_EXPORT_H
#define APERTURE_EXPORT_H

#include <stdio.h>

struct ap_profile;

/* AP_FMT_* of a --format name, or -EINVAL */
int ap_format__parse(const char *name);
/* "table, folded, json, ..." */
extern const char ap_format__names[];
/* the format holds one unit (one view) unless --events asks for more */
int ap_format__one_unit(int format);
/* the format is written from a profile (ap_view_ops.profile) */
int ap_format__is_export(int format);
/* places each event in time (speedscope's time order): the views keep
 * their events' times (ap_prof_times) */
int ap_format__is_timed(int format);
/* written event by event (lib/report/evdump.h) */
int ap_format__is_dump(int format);
/* binary output that a terminal should not get */
int ap_format__is_binary(int format);

/* what report's exports take beside the profile */
struct ap_export_opts {
	int format;			/* AP_FMT_PPROF, _SPEEDSCOPE, _SVG */
	const char *format_name;	/* as --format gave it */
	const char *input;		/* the file: speedscope's name, the
					 * svg's subtitle */
	int icicle;			/* svg: roots at the top */
	int user_only;			/* no kernel frames */
};
/* p in o's format to out: 0; 1 when the views have no common unit for
 * the graph, said; else -errno */
int ap_export__write(const struct ap_profile *p,
		     const struct ap_export_opts *o, FILE *out);
/* "aperture: FMT output of a (unit) and b (unit): no common unit, ...":
 * views with no unit in common for one graph (ap_unit__common) */
void ap_export__no_common_unit(const char *fmt, const char *const *names,
			       int n);

/* pprof: a gzipped perftools.profiles.Profile (proto/profile.proto) */
int ap_export_pprof(const struct ap_profile *p, FILE *out);

/* speedscope's JSON file format: a sampled profile per view and thread,
 * in time order for timed views (ap_prof_view.timed); name: the file's
 * name as speedscope shows it */
int ap_export_speedscope(const struct ap_profile *p, const char *name,
			 FILE *out);

struct ap_svg_opts {
	const char *title;
	const char *subtitle;		/* NULL: none */
	int icicle;			/* root at the top */
	int off_cpu;			/* blue: time off the CPU */
	/* set by ap_export_svg */
	const char *unit;
	const char *counts;		/* unit "count": of what ("samples") */
	int diff;
};

/* An interactive SVG flame graph of p, one unit for the whole graph by
 * ap_unit__common's rule (event/event.h): the views' main unit where they
 * share it, else nanoseconds where every view has them (cpu and sched
 * make a wall-clock graph); -EDOM when there is none.  With old, a
 * differential graph: widths from p, colours by the change in share from
 * old. */
int ap_export_svg(const struct ap_profile *p, const struct ap_profile *old,
		  const struct ap_svg_opts *o, FILE *out);

/* Chrome trace-event JSON (Perfetto, chrome://tracing): the events taken
 * as they come in file order; finish writes the names, then the events in
 * time order, and closes it */
struct ap_trace;
struct ap_evrec;
struct ap_session;
struct ap_trace *ap_trace__new(struct ap_session *s, int user_only,
			       FILE *out);
int ap_trace__event(struct ap_trace *t, const struct ap_evrec *r);
int ap_trace__finish(struct ap_trace *t);
void ap_trace__free(struct ap_trace *t);
/* a new trace as a dump's output (lib/report/evdump.h): 0, or -ENOMEM */
struct ap_evout;
int ap_trace__evout(struct ap_session *s, int user_only, FILE *out,
		    struct ap_evout *to);

#endif /* APERTURE_EXPORT_H */
