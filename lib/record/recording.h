/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aperture record's file, from the header to the summary line: the
 * header from what is recorded, the recorder's frames into the writer
 * (held in memory until the file exists: it is created once the command
 * has started, so that a failed exec leaves no trace), the loop that
 * polls until the recording ends, the drain, the trailer, and what is
 * said about it at the end.  cmd/record.c parses the options and wires
 * the collector and the recorder to it.
 */
#ifndef APERTURE_RECORDING_H
#define APERTURE_RECORDING_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "aperture.h"
#include "format/buf.h"

struct ap_collector;
struct ap_recorder;
struct ap_writer;
struct ap_header;
struct ap_kallsyms;
struct ap_workload;

/* when each stage of aperture record ended (CLOCK_MONOTONIC ns), for
 * what took the time; the window itself is the collector's */
enum ap_phase {
	AP_PHASE_BEGIN,			/* record starts */
	AP_PHASE_LOADED,		/* the BPF object is loaded */
	AP_PHASE_KSYMS,			/* the kernel's symbols are read */
	AP_PHASE_STOPPED,		/* the sensors stop */
	AP_PHASE_DRAINED,		/* the ring is read */
	AP_PHASE_CLOSED,		/* the file is finished */
	AP_PHASE_NR
};

struct ap_spool;

/* record --switch-output: the recording cut into windows, each its own
 * file OUTPUT.<YYYYmmddHHMMSScc> (the cut's local time, as perf) */
struct ap_switch {
	uint64_t every_ns;		/* a window's length; 0: not by time */
	uint64_t size;			/* bytes a window reaches; 0: none */
	/* set by SIGUSR2 (every mode takes it): the window ends now */
	volatile sig_atomic_t *signal;
	struct ap_spool *spool;		/* the finished files; not owned */
	int spool_push;			/* ... pushed (--push) */
	int quiet;			/* no name on stderr */
};

struct ap_recording {
	struct ap_recorder *rec;	/* not owned */
	struct ap_collector *col;	/* not owned */
	struct ap_writer *w;
	struct ap_buf early;		/* frames from before the file */
	int write_err;			/* the first, reported at the end */
	/* at the end, for the summary */
	uint64_t counters[AP_STAT_NR];
	uint64_t written;		/* bytes before summary and trailer */
	uint64_t phase[AP_PHASE_NR];
	uint64_t end_ns;		/* the summary's end */
	/* --switch-output: the cut's bookkeeping (see recording.c) */
	struct ap_switch sw;
	int windows;			/* sw set */
	char base[4096];		/* OUTPUT */
	char part[4096 + 16];		/* the window being written */
	struct ap_header *hdr;		/* the next window's, from the first */
	char target[256];		/* the first's target line */
	uint64_t win_start_ns, cut_ns;	/* cut_ns 0: none due */
	struct ap_buf queue;		/* records from cut_ns on, held */
	uint64_t nr_windows;
	uint64_t base_samples, base_events;
	uint64_t base_counters[AP_STAT_NR];
	uint64_t max_ts;		/* the latest record's time read */
	uint64_t late;			/* records from before a window's
					 * start that came after its cut */
	uint64_t window_bytes;		/* all windows, as written */
	int owner_set;			/* sudo: each window given to */
	uid_t owner_uid;
	gid_t owner_gid;
};

/* what the header says about the recording */
struct ap_record_header_opts {
	uint32_t freq;
	uint32_t events;		/* requested */
	uint32_t available;		/* of those, the sensors that run */
	int argc;			/* record's own command line */
	char **argv;
	int system_wide;
	const char *cmd;		/* -- CMD's name, or NULL */
	const pid_t *pids;
	int nr_pids;
	const char *filters;		/* ", threads 12, CPUs 0-1" */
	const char *labels;		/* --label's lines, or NULL */
	uint64_t start_ns;		/* the window's start; 0: now */
};
void ap_record_header__build(struct ap_header *h,
			     const struct ap_record_header_opts *o);

/* Initialises r; frames reach it through ap_recording__sink */
void ap_recording__init(struct ap_recording *r, struct ap_recorder *rec);
/* ap_sink_fn for ap_recorder__new, ctx the recording */
int ap_recording__sink(void *ctx, const void *frames, size_t len);

/* --switch-output: windows from the file's creation on (before
 * ap_recording__create); 0 or -ENOMEM */
int ap_recording__set_switch(struct ap_recording *r, const struct ap_switch *sw);
/* ap_event_fn of the collector: a record into the recorder, or held for
 * the next window when it is from the cut on */
int ap_recording__event(void *ctx, const void *data, size_t size);

/* Keeps the previous recording at path as path.old, as perf does: 0, or
 * -errno with the message in err[len] */
int ap_recording__keep_old(const char *path, char *err, size_t len);
/* Creates the file ("-": standard output): 0, or -errno with the
 * message in err[len].  The early frames follow at ap_recording__begin. */
int ap_recording__create(struct ap_recording *r, const char *path,
			 const struct ap_header *h, char *err, size_t len);
void ap_recording__begin(struct ap_recording *r);

/* when the loop ends */
struct ap_recording_until {
	const volatile sig_atomic_t *stop;	/* set by a signal */
	double duration;			/* seconds; 0: no limit */
	struct ap_workload *cmd;		/* -- CMD, or NULL */
	const pid_t *pids;			/* -p: when none runs */
	int nr_pids;
};
/* Polls and writes until u says the recording ends, or a write fails.
 * *cmd_ended: the command exited.  0, or -errno of reading events. */
int ap_recording__loop(struct ap_recording *r,
		       const struct ap_recording_until *u, int *cmd_ended);
/* Stops the sensors and drains what the ring buffer holds, for budget_ns
 * at most (cut short by the collector's abort flag; what is left is
 * counted lost); the collector's finish: 0 or -errno (the calls still in
 * flight could not be written). */
int ap_recording__drain(struct ap_recording *r, uint64_t budget_ns);
/* the time a stage ended: now */
void ap_recording__mark(struct ap_recording *r, enum ap_phase phase);
/* The status records, the summary (exit_status: -- CMD's wait status,
 * -1 otherwise) and the trailer: 0, or the first write error. */
int ap_recording__close(struct ap_recording *r, int exit_status);
void ap_recording__free(struct ap_recording *r);

/* of events, those whose sensors run */
uint32_t ap_recording__available(const struct ap_recording *r,
				 uint32_t events);
/* sudo aperture record: the file (not standard output) given to
 * SUDO_UID and SUDO_GID, who reports on it; 0 or -errno */
int ap_recording__give_to_sudo_user(struct ap_recording *r);

/* "aperture: N samples, N events, N lost ..., SIZE written to OUTPUT" */
void ap_recording__print_summary(const struct ap_recording *r,
				 const char *output, FILE *out);
/* "aperture: N s recorded; start-up ..., N s after it ...": the window
 * and what took the time before and after it; verbose: the window in
 * CLOCK_MONOTONIC and the records after it */
void ap_recording__print_timing(const struct ap_recording *r, int verbose,
				FILE *out);
/* -v: what the targets' mappings cost the recorder, and its memory */
void ap_recording__print_costs(const struct ap_recording *r,
			       const struct ap_kallsyms *ksyms, FILE *out);

#endif /* APERTURE_RECORDING_H */
