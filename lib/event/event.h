/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event kinds: one descriptor per kind (cpu, sched, syscall, lock, io,
 * mem, gpu, tracepoint), in one table (lib/event/kinds.c) that every stage
 * reads: the collector its sensor, the recorder its handlers of BPF records, report
 * and top its view, script and the trace its decoder, the exports its
 * units and sample types, `aperture list` and bash completion its name.
 * Nothing outside the table switches over a kind's tag.
 *
 * Adding a kind: its bpf/<kind>.bpf.c, a folder lib/<kind>/ (sensor.c,
 * codec.[ch], view.c), one row in lib/event/kinds.c, its tag in the list
 * of lib/format/format.h (and man/aperture-file.5, which a unit test
 * checks), and the externs of its sensor and view ops (record/sensor.h,
 * report/view.h).
 */
#ifndef APERTURE_EVENT_H
#define APERTURE_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "export/profile.h"

struct ap_sensor_ops;
struct ap_view_ops;
struct ap_recorder;
struct ap_evdec;
struct ap_evrec;
struct ap_frame;

/* the unit of a value an event carries */
#define AP_UNIT_SAMPLES	0	/* samples: times a period is time */
#define AP_UNIT_NS	1
#define AP_UNIT_US	2
#define AP_UNIT_BYTES	3
#define AP_UNIT_COUNT	4
#define AP_UNIT_NR	5

/* where a kind's slices go in the timeline (--format trace) */
#define AP_TRACK_THREAD	0	/* the thread's track: nested in the thread's
				 * syscall slice that holds them */
#define AP_TRACK_OWN	1	/* a track of their own beside the thread's:
				 * they overlap the syscall slices */
#define AP_TRACK_DEVICE	2	/* a device's and stream's track (gpu work) */

/* one type of BPF record the recorder turns into frames */
struct ap_rec_handler {
	uint32_t type;			/* AP_EV_* / AP_REC_* of bpf/ */
	int (*fn)(struct ap_recorder *r, const void *data, size_t size);
	uint32_t tag;			/* counted as an event of this tag;
					 * UINT32_MAX: not an event */
};

/* a qualified name, "lock:pthread": the kind and one more option */
struct ap_event_variant {
	const char *name;		/* as in -e */
	size_t opt;			/* an int in struct ap_collect_opts */
};

struct ap_event_kind {
	const char *name;		/* as in -e and --events */
	const char *title;		/* in titles: "CPU", "off-CPU" */
	uint32_t tag;			/* AP_TAG_* of its events */
	uint32_t more_tags;		/* AP_EVMASK of its other event tags */
	const struct ap_sensor_ops *sensor;
	const struct ap_view_ops *view;
	/* BPF record types to frames; ends with fn NULL */
	const struct ap_rec_handler *rec;
	/* optional: the handlers' one-time set-up, run before the probes
	 * attach (it would otherwise stall the reader while the ring
	 * fills) */
	void (*rec_prepare)(struct ap_recorder *r);
	/* -e names its events (tracepoints, CAT:NAME), never the kind
	 * alone; the kind's name is its view's */
	int named_only;
	/* NAME:VARIANT spellings; ends with name NULL; may be NULL */
	const struct ap_event_variant *variants;
	/* one of its frames (tag or more_tags) as a generic record for the
	 * event dump and the timeline: 0, -ENOMSG (no event: skip it) or
	 * -EBADMSG */
	int (*decode)(struct ap_evdec *d, const struct ap_frame *f,
		      struct ap_evrec *r);
	/* the weight of its folded stacks, AP_UNIT_* */
	int folded_unit;
	/* its pprof sample types: type/unit unique across every kind */
	struct ap_prof_type prof_types[AP_PROF_MAX_TYPES];
	int nr_prof_types;
	int trace_track;		/* AP_TRACK_* */
	/* AP_STAT_* of its records lost to a full in-flight table; -1:
	 * none */
	int table_full_stat;
};

extern const struct ap_event_kind *const ap_event_kinds[];
extern const size_t ap_nr_event_kinds;

/* by -e / --events name (no variant), by AP_TAG_* (its tag or one of
 * more_tags); NULL when none */
const struct ap_event_kind *ap_event_kind__find(const char *name);
const struct ap_event_kind *ap_event_kind__of_tag(uint32_t tag);
/* "samples", "nanoseconds", "microseconds", "bytes", "count" */
const char *ap_unit__name(int unit);
/* the AP_UNIT_* of such a name (pprof's units among them); -EINVAL */
int ap_unit__parse(const char *name);

/*
 * One unit for a graph of several views (folded stacks, the SVG flame
 * graph), the rule both follow: the views' own unit where they share it,
 * else time where every view has it (CPU samples times the period, off-CPU
 * and syscall nanoseconds: a wall-clock graph), else none: bytes or counts
 * beside time, or counts of different things, do not add up.
 */
struct ap_unit_pick {
	int unit;			/* AP_UNIT_* of the view's own weight */
	int time;			/* it can weigh by time instead */
};

/* not a unit: ap_unit__common's "each view by time" */
#define AP_UNIT_TIME	AP_UNIT_NR

/* the AP_UNIT_* that all n views weigh by, their own; AP_UNIT_TIME where
 * each weighs by time; -EDOM where there is no common unit */
int ap_unit__common(const struct ap_unit_pick *v, int n);
/* samples (at a frequency), nanoseconds, microseconds */
int ap_unit__is_time(int unit);
/* v from one time unit to another, samples at freq Hz; v itself where
 * either unit is no time or freq is 0 for samples */
double ap_unit__convert(double v, int from, int to, uint32_t freq);

/* A folded line's weight w, in the folded_unit of the kind of tag, as the
 * report writes folded weights: microseconds where several views share
 * one graph (o->folded_us), else w itself */
struct ap_report_opts;
double ap_event_kind__folded_weight(uint32_t tag,
				    const struct ap_report_opts *o, double w);

#endif /* APERTURE_EVENT_H */
