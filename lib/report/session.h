/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state a reader of frames rebuilds, in file order: processes by
 * (pid, start time) with their address spaces, thread names, the stack
 * table, kernel symbols, drop counters and sensor status.  report feeds it
 * from a file, top from the live recorder; both hand the event frames it
 * returns to the same views.
 */
#ifndef APERTURE_SESSION_H
#define APERTURE_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"
#include "format/reader.h"

struct ap_session;
struct ap_symbolizer;
struct ap_addrspace;

struct ap_proc_info {
	uint32_t pid;
	uint32_t ppid;
	uint64_t start_ticks;
	uint32_t generation;		/* exec count */
	uint64_t exec_ts;		/* time of the last exec; 0: none */
	int exited;
	int32_t exit_code;
	const char *comm;		/* interned */
	const char *cgroup;		/* interned; NULL: not known (files
					 * before 1.12) */
	struct ap_addrspace *as;	/* as of the frames fed so far */
};

struct ap_session *ap_session__new(struct ap_symbolizer *sym);
void ap_session__free(struct ap_session *s);
/* Takes one frame: metadata updates the state (returns 0); an event frame
 * (tag < AP_TAG_TASK) returns 1 for the caller's views; a frame that does
 * not decode returns -EBADMSG (and is counted). */
int ap_session__feed(struct ap_session *s, const struct ap_frame *f);

/* the process pid as of the frames fed so far; NULL if never seen */
const struct ap_proc_info *ap_session__proc(struct ap_session *s,
					    uint32_t pid);
/* the process (pid, start time) as of the frames fed so far, the newest
 * of that identity; NULL if never seen */
const struct ap_proc_info *ap_session__proc_id(struct ap_session *s,
					       uint32_t pid,
					       uint64_t start_ticks);
/* The address space of pid live at time ts (mappings and execs are
 * versioned by time: a library loaded over another one, or an exec, makes
 * a new version); NULL if pid was never seen. */
struct ap_addrspace *ap_session__addrspace(struct ap_session *s, uint32_t pid,
					   uint64_t ts);
/* the same at the time of the event frame fed last: what a view keeps
 * with the event it aggregates */
struct ap_addrspace *ap_session__event_as(struct ap_session *s, uint32_t pid);
/* thread name (interned, stable), or the process's, or "[unknown]" */
const char *ap_session__comm(struct ap_session *s, uint32_t pid,
			     uint32_t tid);
int ap_session__stack(const struct ap_session *s, uint32_t id,
		      struct ap_stack *out);
/* changes when a frame is fed that may change what any stack resolves
 * to: new symbols (top feeds the session between refreshes; a mapping
 * changes its address space's ap_addrspace__stamp instead) */
uint64_t ap_session__epoch(const struct ap_session *s);
struct ap_symbolizer *ap_session__symbolizer(struct ap_session *s);
/* intern any string for the session's lifetime */
const char *ap_session__intern(struct ap_session *s, const char *str);
/* names interned from now on (thread names) have control characters
 * escaped: the output is a table or folded lines, not JSON */
void ap_session__escape_names(struct ap_session *s, int on);

/* drops as last reported, per AP_LOST_* source (all tags summed) */
uint64_t ap_session__lost(const struct ap_session *s, uint32_t source);
/* drops of one source for one tag (UINT32_MAX: "any event") */
uint64_t ap_session__lost_tag(const struct ap_session *s, uint32_t source,
			      uint32_t tag);
/* losses by process, one entry per (process, source, tag), with the
 * totals last reported, in file order */
size_t ap_session__lost_procs(const struct ap_session *s,
			      const struct ap_lost_proc **out);
size_t ap_session__sensors(const struct ap_session *s,
			   const struct ap_sensor **out);
uint64_t ap_session__bad_frames(const struct ap_session *s);
/* how user stacks were unwound, as last reported; NULL: not said (files
 * of older versions, frame pointers) */
const struct ap_unwind_info *ap_session__unwind(const struct ap_session *s);
/* first and last event timestamps */
uint64_t ap_session__first_ts(const struct ap_session *s);
uint64_t ap_session__last_ts(const struct ap_session *s);

/*
 * What the recording can hold: span_ns from its start to its end, on
 * ncpus CPUs (0: one), set once every frame is read (ap_input__next).
 * Durations in a hostile file may claim more, or more than an int64_t
 * holds; the views clamp theirs to this before any output sees them, so
 * that the table, folded, JSON and exports agree.
 */
void ap_session__set_span(struct ap_session *s, uint64_t span_ns,
			  uint32_t ncpus);
/* the span; 0 when not set (a live session) or when it was 0 */
uint64_t ap_session__span_ns(const struct ap_session *s);
/* the most one thread (all_cpus: every thread together) can have spent
 * in the recording; without a span, the most an output's int64_t holds */
double ap_session__max_ns(const struct ap_session *s, int all_cpus);
/* ns within [0, ap_session__max_ns(s, all_cpus)] */
double ap_session__clamp_ns(const struct ap_session *s, double ns,
			    int all_cpus);
/* a sum of n durations, each no longer than the span (of one thread's,
 * or of n threads' at once), within [0, n x span] and AP_WEIGHT_MAX */
double ap_session__clamp_sum(const struct ap_session *s, double ns, double n);

#endif /* APERTURE_SESSION_H */
