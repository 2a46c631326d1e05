/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events one by one, for the event dump (aperture script) and the
 * timeline (--format trace): an event frame decoded into a common record
 * (when, who, how long, a name, its fields) whatever its kind, and its
 * stack resolved in the address space of the moment.
 */
#ifndef APERTURE_EVDUMP_H
#define APERTURE_EVDUMP_H

#include <stdint.h>
#include <stdio.h>

#include "format/reader.h"

struct ap_session;
struct ap_stackres;

#define AP_EVREC_FIELDS		16

struct ap_evfield {
	const char *key;
	char val[96];
	int num;			/* val is a JSON number */
};

/* the CPU of a record that ran on none: in-kernel totals, device work */
#define AP_EVREC_NO_CPU UINT32_MAX

struct ap_event_kind;

struct ap_evrec {
	const char *event;		/* "cpu", "syscall", ... (--events) */
	/* its kind (event/event.h): where the timeline puts its slices */
	const struct ap_event_kind *kind;
	char name[256];			/* syscall, lock, kernel, state... */
	uint64_t ts;			/* start (CLOCK_MONOTONIC ns) */
	uint64_t dur_ns;
	int slice;			/* [ts, ts + dur_ns]; else an instant */
	int summed;			/* the kernel's totals of many calls */
	uint32_t pid, tid;
	uint32_t cpu;			/* AP_EVREC_NO_CPU: totals, device work */
	uint32_t stack_id;		/* 0: none */
	/* gpu: a device record (gpu-device) has its AP_GPU_* kind here
	 * (else 0) and runs on the track of its device and stream;
	 * launches and device records share CUPTI correlation ids (0:
	 * none) */
	int on_device;
	uint32_t device, stream;
	uint32_t corr[2];
	uint64_t stub;			/* runtime launch: the host stub */
	/* a device record joined to its launch (ap_evsink): the launching
	 * thread and the middle of the launch call */
	int joined;
	uint32_t launch_tid;
	uint64_t launch_mid;
	struct ap_evfield f[AP_EVREC_FIELDS];
	int nr;
};

struct ap_evdec;

struct ap_evdec *ap_evdec__new(void);
void ap_evdec__free(struct ap_evdec *d);
/* One event frame into r: 0; -ENOMSG for a frame that is no event of
 * its own (sched totals, a period change); -EBADMSG when it does not
 * decode. */
int ap_evdec__decode(struct ap_evdec *d, const struct ap_frame *f,
		     struct ap_evrec *r);

/* for the kinds' decoders (event.h): one more field of r, printf-style;
 * num: a number in JSON */
void ap_evrec__field(struct ap_evrec *r, const char *key, int num,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* a kind's decoding state (what its earlier frames described): the slot
 * of tag, NULL when tag >= 32; the kind fills it on first use, and
 * free_fn (when set) frees it with d */
void **ap_evdec__priv(struct ap_evdec *d, uint32_t tag,
		      void (*free_fn)(void *));
/* a file's path: name where its frame has one (remembered for dev, ino),
 * else the one remembered; NULL when none */
const char *ap_evdec__path(struct ap_evdec *d, uint64_t dev, uint64_t ino,
			   const char *name);

/* the frames of r's stack, leaf first, in the address space its process
 * had at the frame fed last (call in file order, right after feeding
 * r's frame); the count or -errno */
long ap_evrec__stack(const struct ap_evrec *r, struct ap_session *s,
		     struct ap_stackres *res, int user_only);

/* perf script's fields (script -F), in the order a line shows them */
#define AP_SF_COMM	(1u << 0)
#define AP_SF_PID	(1u << 1)
#define AP_SF_TID	(1u << 2)
#define AP_SF_CPU	(1u << 3)
#define AP_SF_TIME	(1u << 4)
#define AP_SF_PERIOD	(1u << 5)
#define AP_SF_EVENT	(1u << 6)
#define AP_SF_TRACE	(1u << 7)	/* the record's name and fields */
#define AP_SF_IP	(1u << 8)	/* the stack, one frame a line */
#define AP_SF_SYM	(1u << 9)
#define AP_SF_SYMOFF	(1u << 10)
#define AP_SF_DSO	(1u << 11)
#define AP_SF_DEFAULT	((1u << 12) - 1)

/* what a text line shows besides its record */
struct ap_evline {
	const char *comm;
	const char *event;		/* perf's event name */
	const char *period;		/* as printed, padded */
	int named;			/* the trace starts with the record's
					 * name (a CPU sample's is the event) */
	uint32_t fields;		/* AP_SF_* */
};

/* perf script's layout: "comm pid/tid [cpu] secs.usecs: period event:
 * trace", then the stack one frame a line ("\t addr sym+0xoff (path)")
 * and a blank line */
void ap_evrec__print_text(const struct ap_evrec *r, const struct ap_evline *l,
			  const struct ap_stackres *res, long nr_frames,
			  FILE *out);
/* one JSON object a line */
void ap_evrec__print_jsonl(const struct ap_evrec *r, const char *comm,
			   const struct ap_stackres *res, long nr_frames,
			   FILE *out);

/* Where a dump's records go when they are not printed: the timeline
 * writer (ap_trace__evout, lib/export/trace.c) fills one in, so that the
 * dump calls no exporter */
struct ap_evout {
	void *p;
	int (*event)(void *p, const struct ap_evrec *r);
	int (*finish)(void *p);
	void (*free)(void *p);
};

/* A dump: every event frame of the chosen kinds that passes the filters
 * of o, handed to *to (copied, freed with the sink, or at once when the
 * sink cannot be made), or with to NULL printed into out as format says
 * (AP_FMT_EVENTS: perf script's text, AP_FMT_JSONL) */
struct ap_report_opts;
struct ap_evsink;

struct ap_evsink *ap_evsink__new(int format, uint32_t evmask,
				 const struct ap_report_opts *o,
				 struct ap_session *s, FILE *out,
				 const struct ap_evout *to);
/* a frame ap_session__feed returned 1 for */
int ap_evsink__event(struct ap_evsink *k, const struct ap_frame *f);
/* the fields of perf script's text, AP_SF_* (default AP_SF_DEFAULT) */
void ap_evsink__set_fields(struct ap_evsink *k, uint32_t fields);
int ap_evsink__finish(struct ap_evsink *k);
void ap_evsink__free(struct ap_evsink *k);

#endif /* APERTURE_EVDUMP_H */
