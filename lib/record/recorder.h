/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turns ring buffer records into record file frames: interns stacks,
 * writes each process's identity, comm and mappings before its first event
 * (from /proc, then each new one from the kernel's mapping records, timed;
 * a forked child inherits its parent's), and the kernel symbols that
 * stacks hit.  The frames go to a sink: the file writer for record, the
 * live aggregation for top.
 */
#ifndef APERTURE_RECORDER_H
#define APERTURE_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event/event.h"
#include "format/buf.h"
#include "format/format.h"

struct ap_recorder;
struct ap_collector;
struct ap_kallsyms;
struct ap_bidcache;
struct ap_ev_hdr;

/* receives encoded frames; returns 0 or -errno */
typedef int (*ap_sink_fn)(void *ctx, const void *frames, size_t len);

struct ap_recorder *ap_recorder__new(ap_sink_fn sink, void *sink_ctx);
void ap_recorder__free(struct ap_recorder *r);
/* for target_changed notifications after exec and new mappings */
void ap_recorder__set_collector(struct ap_recorder *r,
				struct ap_collector *c);
/* kernel symbols to write as stacks hit them; NULL: none */
void ap_recorder__set_kallsyms(struct ap_recorder *r,
			       struct ap_kallsyms *k);
/* keep the files only a target reaches in this build-id cache (not owned;
 * lib/record/bidcache.h); NULL: none */
void ap_recorder__set_buildid_cache(struct ap_recorder *r,
				    struct ap_bidcache *c);
/* A process present at start: writes TASK, COMM for each thread, MMAPs. */
int ap_recorder__snapshot(struct ap_recorder *r, pid_t pid);
/* one ring buffer record; matches ap_event_fn */
int ap_recorder__event(void *r, const void *data, size_t size);
/* the handlers of the records that are no event kind's (tasks, Python
 * code objects, kernel mappings), ended by a zero row */
extern const struct ap_rec_handler ap_recorder_own_handlers[];
/* hands what has been encoded to the sink */
int ap_recorder__flush(struct ap_recorder *r);
/* writes the LOST, LOST_PROC and SENSOR frames from the collector's
 * counters */
int ap_recorder__write_status(struct ap_recorder *r,
			      struct ap_collector *c);
/* the LOST frames from here on count from counters (AP_STAT_NR of
 * them): a window's own losses */
void ap_recorder__set_loss_base(struct ap_recorder *r,
				const uint64_t *counters);

/* for event encoders outside recorder.c: */
/* make sure pid is known (writes TASK/COMM/MMAP frames the first time) */
int ap_recorder__touch(struct ap_recorder *r, uint32_t pid, uint32_t tid,
		       const char *comm);
/* the same for an event that may say whose it is: *start, the process's
 * start time (ticks) or 0; on return, with 0 given, that of the process
 * pid names now.  A later start than the known process's is a new
 * process under a reused pid. */
int ap_recorder__touch_id(struct ap_recorder *r, uint32_t pid, uint32_t tid,
			  const char *comm, uint64_t *start);
/* ap_recorder__touch_id for a ring record: the pid and tid of its head,
 * its comm as BPF wrote it (AP_COMM_MAX bytes, the NUL not promised) */
int ap_recorder__touch_ev(struct ap_recorder *r, const struct ap_ev_hdr *hdr,
			  const char *comm, uint64_t *start);
/* a known process mapped new code: re-read its mappings now (writes the
 * new ones, tells the collector); 0 or -errno */
int ap_recorder__rescan(struct ap_recorder *r, uint32_t pid);
/* 1 when a ring record of size bytes, with its struct ap_stacks at
 * st_off and cut after its last frame, holds every frame it claims */
int ap_stacks__whole(const void *rec, size_t size, size_t st_off);
/* intern a BPF stack pair taken by a tracepoint or probe program, less
 * the leaf frames of the BPF machinery that took it; returns the stack id
 * (0: none) */
uint32_t ap_recorder__stack(struct ap_recorder *r, uint32_t pid,
			    const void *stacks /* struct ap_stacks */);
/* the same for a sample's stack, taken from the registers the sample
 * interrupted: every frame kept, so that time spent in BPF programs
 * (aperture's own among them) and the helpers they call stays there */
uint32_t ap_recorder__sample_stack(struct ap_recorder *r, uint32_t pid,
				   const void *stacks);
/* the buffer frames are appended to */
struct ap_buf *ap_recorder__buf(struct ap_recorder *r);
/* a data address of pid (mem samples): when no known mapping covers it,
 * re-read the mappings (rate-limited) so that its MMAP frame comes first */
void ap_recorder__need_addr(struct ap_recorder *r, uint32_t pid,
			    uint64_t addr);
/* state an event handler keeps with the recorder (a cache, a table):
 * the slot of tag, NULL when tag >= 32; the handler fills it on first use,
 * and free_fn (when set) frees it in ap_recorder__free */
void **ap_recorder__priv(struct ap_recorder *r, uint32_t tag,
			 void (*free_fn)(void *));
/* the frames handlers' state wrote once per file (a tracepoint's
 * description) written again, at a new window's start: fn(r, state) */
void ap_recorder__set_rewrite(struct ap_recorder *r, uint32_t tag,
			      void (*fn)(struct ap_recorder *, void *));
/* record --switch-output: the frames so far go to the sink, and the next
 * file starts on its own: every live process's TASK, its threads' COMM
 * and its mappings written again, the stack, kernel symbol and Python
 * frame tables begun afresh (their ids are a file's), the handlers'
 * rewrite functions called; 0 or -errno */
int ap_recorder__new_window(struct ap_recorder *r);
/* counts of what was written */
struct ap_record_counts {
	uint64_t events;
	uint64_t samples;
	uint64_t by_tag[32];
	uint64_t stacks;
	uint64_t mmaps;
	uint64_t ksyms;
	uint64_t processes;
	uint64_t exited;		/* targets that exited */
	uint64_t ustack_missing;	/* samples without a user stack */
	uint64_t ustack_cut;		/* user stacks ended at a data address */
	uint64_t map_scans;		/* reads of a /proc/PID/maps */
	uint64_t map_scans_max;		/* ... of one process, at most */
	/* set by ap_recorder__write_status: the processes that lost
	 * records, and the one that lost the most */
	uint64_t losers;
	uint64_t loser_lost;
	uint32_t loser_pid;
	char loser_comm[AP_COMM_MAX];
};
const struct ap_record_counts *ap_recorder__counts(const struct ap_recorder *r);
/* one more CPU sample, without a user stack when no_ustack */
void ap_recorder__count_sample(struct ap_recorder *r, int no_ustack);
/* n more events of tag, for handlers whose records stand for several */
void ap_recorder__count(struct ap_recorder *r, uint32_t tag, uint64_t n);
/* last exit status seen for pid, or -1 */
int ap_recorder__exit_code(const struct ap_recorder *r, uint32_t pid);

/* per event type decoders from BPF records: one per sensor */
typedef int (*ap_ev_handler)(struct ap_recorder *r, const void *data,
			     size_t size);

#endif /* APERTURE_RECORDER_H */
