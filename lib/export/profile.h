/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stack profile as views hand it to the exporters (pprof, speedscope,
 * SVG): weighted samples of (thread, stack id), each view with its own
 * value types and units.  Stacks stay ids with the address space they
 * were taken in, so an exporter symbolizes them the way its format needs:
 * names for flame graphs, addresses, mappings and source lines for pprof.
 *
 * Views that know when their events happened (cpu, sched) add, for the
 * exports in time order (speedscope's), each event's place in time
 * (ap_prof_time): a sample is a sum, its events are the timeline.
 */
#ifndef APERTURE_PROFILE_H
#define APERTURE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct ap_addrspace;
struct ap_session;
struct ap_stackres;

#define AP_PROF_MAX_TYPES	4
/* x86-64: kernel addresses are the upper half */
#define AP_KERNEL_START		0xffff800000000000ull
#define AP_PROF_MAX_VIEWS	16
#define AP_PROF_BUILD_ID_MAX	20	/* AP_BUILD_ID_MAX of the file */

struct ap_prof_type {
	const char *type;		/* "samples", "cpu", "off-cpu"... */
	const char *unit;		/* "count", "nanoseconds", "bytes" */
};

struct ap_prof_view {
	const char *name;		/* the view: "cpu", "sched"... */
	const char *title;		/* in titles: "CPU", "off-CPU"... */
	struct ap_prof_type types[AP_PROF_MAX_TYPES];
	int nr_types;
	int main;			/* the type a flame graph weighs by */
	struct ap_prof_type period_type;	/* type NULL: none */
	int64_t period;
	/* p->times places this view's samples in time: 1; 0: it has no
	 * times; -1: more events than AP_PROF_MAX_TIMES, none kept */
	int timed;
};

struct ap_prof_sample {
	int view;			/* index in ap_profile.views */
	uint32_t pid, tid;		/* tid 0: not known */
	const char *comm;		/* stable for the profile's life */
	struct ap_addrspace *as;	/* maps the user frames; NULL: none */
	uint32_t stack_id;		/* 0: none */
	uint64_t ip;			/* no stack: the one address known */
	const char *root;		/* a frame above the stack, or NULL */
	const char *leaf;		/* a frame below the leaf, or NULL */
	int64_t v[AP_PROF_MAX_TYPES];	/* in the view's types */
	uint32_t ref;			/* the view's index of it, which
					 * its ap_prof_time entries name */
};

/* one event in time, ending at end_ns (CLOCK_MONOTONIC) after ns */
struct ap_prof_time {
	uint64_t end_ns;
	uint64_t ns;
	uint32_t ref;			/* as the view keeps them: its
					 * ap_prof_sample.ref; in
					 * ap_profile.times: the sample */
};

/* A time order needs an entry per event (speedscope's format has no
 * other way): 24 bytes each, up to this many per view (96 MiB, some
 * 70 minutes of 999 Hz samples on one CPU); past it the view keeps none
 * and is exported by stack, as views without times are */
#define AP_PROF_MAX_TIMES	(1u << 22)

struct ap_prof_times {
	struct ap_prof_time *t;
	size_t nr, cap;
	size_t max;			/* 0: AP_PROF_MAX_TIMES */
	int over;			/* past max: emptied */
};

struct ap_profile {
	struct ap_session *s;
	int user_only;			/* no kernel frames */
	uint64_t start_ns;		/* CLOCK_MONOTONIC of the recording */
	uint64_t wall_start_ns;		/* the same in wall-clock time */
	uint64_t duration_ns;
	/* the recorded kernel's GNU build-id; len 0: not known */
	uint8_t kernel_build_id[AP_PROF_BUILD_ID_MAX];
	uint8_t kernel_build_id_len;
	/* record --label's "NAME=VALUE" lines, a label of every sample in
	 * pprof; NULL or "": none */
	const char *labels;
	struct ap_prof_view views[AP_PROF_MAX_VIEWS];
	int nr_views;
	struct ap_prof_sample *samples;
	size_t nr, cap;
	struct ap_prof_time *times;	/* the timed views' events */
	size_t nr_times;
};

void ap_profile__init(struct ap_profile *p, struct ap_session *s);
void ap_profile__free(struct ap_profile *p);
/* add a view; returns its index or -errno */
int ap_profile__add_view(struct ap_profile *p, const struct ap_prof_view *v);
/* add the view of the event kind of tag (AP_TAG_*), its name, title and
 * sample types from the kind's descriptor (event/event.h); main: the
 * type a flame graph weighs by.  Returns its index or -errno */
int ap_profile__add_kind(struct ap_profile *p, uint32_t tag, int main);
int ap_profile__add(struct ap_profile *p, const struct ap_prof_sample *smp);

/* an event of the view's row ref in t: 0 or -ENOMEM (past its max, t
 * is emptied and marked over: 0) */
int ap_prof_times__add(struct ap_prof_times *t, uint64_t end_ns,
		       uint64_t ns, uint32_t ref);
void ap_prof_times__free(struct ap_prof_times *t);
/* view's samples (added, with their refs, before) placed in time by t's
 * events, which move into p (t is left empty); an event of a row with no
 * sample is dropped; nothing when t kept no times.  0 or -ENOMEM */
int ap_profile__take_times(struct ap_profile *p, int view,
			   struct ap_prof_times *t);

/* The frames of a sample, leaf first, into r: its leaf label, the stack
 * (kernel frames unless user_only, then user frames with inlined
 * functions), its root label; "[unknown]" when it has neither stack nor
 * labels.  Returns
 * the count or -errno. */
long ap_profile__frames(const struct ap_profile *p,
			const struct ap_prof_sample *smp,
			struct ap_stackres *r);

#endif /* APERTURE_PROFILE_H */
