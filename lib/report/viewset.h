/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The views a report prints, each once: chosen by --events or from what
 * a record file holds, fed its frames, and printed or made into one
 * profile for the exporters.
 */
#ifndef APERTURE_VIEWSET_H
#define APERTURE_VIEWSET_H

#include <stdint.h>

struct ap_export_opts;
struct ap_frame;
struct ap_header;
struct ap_report_opts;
struct ap_session;
struct ap_view_ops;

#define AP_VIEWSET_MAX	16

struct ap_view_inst {
	const struct ap_view_ops *ops;
	void *v;
};

struct ap_viewset {
	const char *cmd;		/* "report": in its messages */
	const struct ap_report_opts *o;	/* every view's options */
	struct ap_session *s;
	struct ap_view_inst vi[AP_VIEWSET_MAX];
	int nr;
};

void ap_viewset__init(struct ap_viewset *vs, const char *cmd,
		      const struct ap_report_opts *o, struct ap_session *s);
/* the view named name, unless there: 0, -ENOENT (no such view), -E2BIG
 * or -ENOMEM */
int ap_viewset__add(struct ap_viewset *vs, const char *name);
/* the views of the events held (a header's events_requested); the cpu
 * view where it holds none */
void ap_viewset__add_held(struct ap_viewset *vs, uint32_t held);
/*
 * --events LIST for the file at path, which holds the events held: each
 * view named that the file has events for, the others said.  0; -EINVAL
 * after "aperture CMD: unknown event ..."; -ENOENT when the file holds
 * none of them.
 */
int ap_viewset__select(struct ap_viewset *vs, const char *list,
		       const char *path, uint32_t held);
/*
 * Folded stacks, pprof and the other profile exports hold one unit:
 * keep the CPU view (or the first) and say what was left out.
 */
void ap_viewset__one_unit(struct ap_viewset *vs, const char *format_name);
/*
 * Folded lines of several views weigh by one unit, the rule the SVG
 * graph follows: their own where they share it, else time where each has
 * it, written in microseconds (o->folded_us; the cpu,sched wall-clock
 * graph's unit); -EDOM, said, where they have none.  o->freq: the
 * file's.
 */
int ap_viewset__folded_unit(const struct ap_viewset *vs,
			    struct ap_report_opts *o);
/*
 * --sort named keys (or an order) each view shown must honour: -EINVAL
 * after "aperture CMD: the V view cannot sort by K ..." for the first
 * that cannot; 0 when none was named.
 */
int ap_viewset__check_sort(const struct ap_viewset *vs);
/* does any view's output show inline frames? */
int ap_viewset__needs_inline(const struct ap_viewset *vs);
/* AP_EVMASK of every tag the views read */
uint32_t ap_viewset__tags(const struct ap_viewset *vs);
/* a frame to each view that wants its tag */
void ap_viewset__event(struct ap_viewset *vs, const struct ap_frame *f);
/* the views' stacks as one profile into p (format_name: in the message
 * for a view that has none), to ap_profile__free: 0, else -errno */
struct ap_profile;
int ap_viewset__profile(const struct ap_viewset *vs, const char *format_name,
			int user_only, const struct ap_header *h,
			uint64_t duration_ns, struct ap_profile *p);
/* the views' stacks as one profile in eo's format to stdout (h and
 * duration_ns for its times): 0, else said */
int ap_viewset__export(const struct ap_viewset *vs,
		       const struct ap_export_opts *eo,
		       const struct ap_header *h, uint64_t duration_ns);
void ap_viewset__free(struct ap_viewset *vs);

#endif /* APERTURE_VIEWSET_H */
