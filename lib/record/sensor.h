/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal to the collector: one ap_sensor_ops per kind of event, in
 * lib/<kind>/sensor.c, named by the kind's row in lib/event/kinds.c (adding
 * a kind: lib/event/event.h).
 */
#ifndef APERTURE_SENSOR_H
#define APERTURE_SENSOR_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/collector.h"

struct aperture_bpf;

#define AP_MAX_SENSORS	16

struct ap_collector;

struct ap_sensor_ops {
	const char *name;		/* as in -e */
	uint32_t tag;			/* AP_TAG_* of its events */
	/* before load: turn its programs' autoload on or off (enabled),
	 * set rodata knobs */
	int (*prepare)(struct ap_collector *c, struct aperture_bpf *skel,
		       int enabled);
	/* after load, only when enabled: attach; fill st->source, or set
	 * st->state and st->reason and return -errno when it cannot run */
	int (*attach)(struct ap_collector *c, struct aperture_bpf *skel,
		      struct ap_sensor *st);
	/* optional: a target appeared, exec'd or mapped new code */
	void (*target_changed)(struct ap_collector *c,
			       struct aperture_bpf *skel, pid_t pid);
	/* optional: poll user-space sources (perf buffers) */
	int (*poll)(struct ap_collector *c);
	/* optional: stop producing (user-space sources: perf events);
	 * what was produced before is still read by poll and finish */
	void (*stop)(struct ap_collector *c);
	/* optional: recording stops (record, before the status frames):
	 * deliver what is still pending, e.g. calls in flight; returns the
	 * number of records delivered or -errno */
	int (*finish)(struct ap_collector *c);
	/* optional: detach and free private state */
	void (*close)(struct ap_collector *c);
};

struct ap_collector {
	struct ap_collect_opts opts;
	struct aperture_bpf *skel;
	struct ring_buffer *rb;
	ap_event_fn fn;
	ap_note_fn note;
	void *ctx;
	int ncpus;
	/* one per sensor in the table, in table order */
	const struct ap_sensor_ops *ops[AP_MAX_SENSORS];
	struct ap_unwind *unwind;	/* CFI tables; NULL: frame pointers */
	pid_t cmd_pid;			/* record -- CMD: the command */
	int cmd_execd;			/* ... has left aperture's image */
	struct ap_sensor status[AP_MAX_SENSORS];
	void *priv[AP_MAX_SENSORS];
	int enabled[AP_MAX_SENSORS];
	int nr;
	/* one poll pass: records delivered, when it started, its budget hit */
	int pass_n;
	uint64_t pass_start;
	int pass_over;
	uint64_t pass_until;		/* the pass ends then at the latest */
	int stopped;
	/* ap_collector__read_sums: totals are read now, not on their
	 * period */
	int sums_due;
	/* record -d: the window [start_ns, end_ns) in the events' clock;
	 * records from its end on are discarded (late), those the drain
	 * left in the ring counted (unread); drain_until: the drain's end */
	uint64_t window_ns;
	struct ap_window win;
	uint64_t drain_until;
	const volatile sig_atomic_t *abort;	/* the caller's: end now */
	/* mappings, execs and forks as they happen (lib/record/kmaps.c) */
	struct ap_kmaps *kmaps;
	uint64_t kmaps_at;		/* time of the last drain */
	int kmaps_busy;			/* draining: no nested drain */
};

/* helpers for sensors */
void ap_collector__notef(struct ap_collector *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* deliver a record built in user space (perf buffer sources) */
int ap_collector__deliver(struct ap_collector *c, const void *data,
			  size_t size);
int ap_sensor_index(const struct ap_collector *c, const char *name);

extern const struct ap_sensor_ops ap_sensor_cpu;
extern const struct ap_sensor_ops ap_sensor_lock;
extern const struct ap_sensor_ops ap_sensor_syscall;
extern const struct ap_sensor_ops ap_sensor_gpu;
extern const struct ap_sensor_ops ap_sensor_mem;
extern const struct ap_sensor_ops ap_sensor_sched;
extern const struct ap_sensor_ops ap_sensor_io;
extern const struct ap_sensor_ops ap_sensor_tracepoint;

#endif /* APERTURE_SENSOR_H */
