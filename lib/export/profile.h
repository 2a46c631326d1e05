/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stack profile as views hand it to the exporters (pprof, speedscope,
 * SVG): weighted samples of (thread, stack id), each view with its own
 * value types and units.  Stacks stay ids with the address space they
 * were taken in, so an exporter symbolizes them the way its format needs:
 * names for flame graphs, addresses, mappings and source lines for pprof.
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
	struct ap_prof_view views[AP_PROF_MAX_VIEWS];
	int nr_views;
	struct ap_prof_sample *samples;
	size_t nr, cap;
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

/* The frames of a sample, leaf first, into r: its leaf label, the stack
 * (kernel frames unless user_only, then user frames with inlined
 * functions), its root label; "[unknown]" when it has neither stack nor
 * labels.  Returns
 * the count or -errno. */
long ap_profile__frames(const struct ap_profile *p,
			const struct ap_prof_sample *smp,
			struct ap_stackres *r);

#endif /* APERTURE_PROFILE_H */
