/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live side shared by record and top: loads the one BPF object,
 * attaches the sensors asked for, keeps the target set and hands every ring
 * buffer record to a callback.
 */
#ifndef APERTURE_COLLECTOR_H
#define APERTURE_COLLECTOR_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/format.h"

struct ap_collector;

#define AP_COLLECT_TP_MAX	64	/* tracepoints at once (bpf/tracepoint.h) */

struct ap_collect_opts {
	uint32_t events;		/* AP_EVMASK(AP_TAG_*) bits */
	int system_wide;
	uint32_t freq;			/* CPU samples per second */
	int syscall_stacks;		/* user stack at syscall entry */
	int syscall_calls;		/* a record per call, not totals */
	int io_calls;			/* io: a record per call, not totals */
	int lock_pthread;		/* uprobes on pthread_mutex_* */
	/* stat: sched and lock only add up totals in the kernel (no
	 * intervals, no waits, no stacks); io and syscall sum anyway */
	int totals;
	const char *cuda_lib;		/* extra CUDA library to probe */
	/* libaperture-cupti.so as given to the command in
	 * CUDA_INJECTION64_PATH: its USDT probes are armed before it runs */
	const char *cupti_lib;
	uint64_t mem_period;		/* 0: from mem_density */
	int mem_density;		/* 0 low, 1 default, 2 high */
	uint64_t min_block_ns;		/* off-CPU minimum */
	int call_graph;			/* AP_CALL_GRAPH_*: user stacks */
	uint32_t max_stack;		/* user frames at most; 0: default */
	uint32_t max_inflight;		/* syscalls in flight; 0: threads */
	/* percent of the reader's time that compiling unwind tables may
	 * take once recording runs (the rest waits); 0: 30 */
	uint32_t unwind_budget_pct;
	/* record -- CMD: the command exec'd once the sensors are attached,
	 * so that uprobe sensors can arm its files first; NULL otherwise */
	char *const *cmd;
	/* record -t, -C, -u, -G: filters in BPF on the thread an event runs
	 * for (bpf/common.bpf.h) */
	const uint32_t *tids;		/* nr_tids of them; 0: any */
	int nr_tids;
	const uint64_t *cpu_mask;	/* AP_MAX_CPUS bits; NULL: any */
	int filter_uid;
	uint32_t uid;
	uint64_t cgroup_id;		/* cgroup v2 id; 0: any */
	uint32_t cgroup_level;		/* its depth below the root */
	/* the cpu sensor's event, as perf spells it (-e cycles:u ...):
	 * 1 + an index in ap_cpu_events; 0: cycles, else cpu-clock */
	int cpu_event;
	int cpu_exclude_user, cpu_exclude_kernel;	/* :k, :u */
	int cpu_precise;		/* :p, :pp, :ppp (:P): precise_ip */
	uint64_t cpu_period;		/* -c; 0: freq */
	/* the ring buffer's bytes, a power of two of pages (record -m);
	 * 0: ap_collect_opts__ring_bytes's default */
	uint64_t ring_bytes;
	/* -e CAT:NAME: the tracepoints, "cat:name" (allocated by
	 * ap_events__parse, kept as long as the options), each with its
	 * record --filter or NULL */
	char *tracepoints[AP_COLLECT_TP_MAX];
	const char *tp_filters[AP_COLLECT_TP_MAX];
	int nr_tracepoints;
};

/* the ring's size for o: o->ring_bytes, else the default for its events
 * and this machine's CPUs */
uint64_t ap_collect_opts__ring_bytes(const struct ap_collect_opts *o,
				     int ncpus);

/* the events the cpu sensor can sample on (perf's names) */
struct ap_cpu_event {
	const char *name;
	const char *alias;		/* perf's other name, or NULL */
	uint32_t type;			/* PERF_TYPE_* */
	uint64_t config;
	const char *what;		/* a few words for aperture list */
};
extern const struct ap_cpu_event ap_cpu_events[];
extern const size_t ap_nr_cpu_events;

/* is cpu in o->cpu_mask (every CPU without one)? */
int ap_collect_opts__cpu(const struct ap_collect_opts *o, int cpu);

/* ap_collect_opts.call_graph */
#define AP_CALL_GRAPH_CFI	0	/* CFI unwinding in BPF (default) */
#define AP_CALL_GRAPH_FP	1	/* frame pointers (bpf_get_stack) */

/* called for every ring buffer record; non-zero stops the poll */
typedef int (*ap_event_fn)(void *ctx, const void *data, size_t size);
/* called with warnings and sensor notes meant for the user */
typedef void (*ap_note_fn)(void *ctx, const char *msg);

/* Opens and loads the BPF object.  On failure returns -errno and writes
 * one line naming the cause and the fix into err. */
int ap_collector__open(struct ap_collector **out,
		       const struct ap_collect_opts *o, ap_event_fn fn,
		       ap_note_fn note, void *ctx, char *err, size_t errlen);
/* Adds a process (thread group) to the targets; before or after start. */
int ap_collector__add_target(struct ap_collector *c, pid_t pid);
/* A target exec'd, was forked or mapped code outside what was known:
 * lets sensors that probe per target (uprobes, per-thread perf events)
 * catch up. */
void ap_collector__target_changed(struct ap_collector *c, pid_t pid);
/* The recorder wrote a mapping of a target (snapshot, kernel event or
 * rescan), or a forked child inherited one from its parent (not written:
 * readers of the file inherit them too): the unwinder loads its file's
 * table and mirrors it. */
void ap_collector__mapping(struct ap_collector *c, const struct ap_mmap *m);
/* The recorder interned a user stack of pid (uflags AP_USTACK_*): frames
 * that went without a table ask for their files' tables. */
void ap_collector__user_stack(struct ap_collector *c, pid_t pid,
			      const uint64_t *ips, size_t n, uint32_t uflags);
/* 1 under -a: every process is a target */
int ap_collector__system_wide(const struct ap_collector *c);
/* 1 when mappings come from the kernel as they happen (lib/record/kmaps.h) and
 * none was lost: /proc need not be re-read when a frame is unknown */
int ap_collector__mappings_live(const struct ap_collector *c);
/* the map of Python interpreters by process (lib/python) */
int ap_collector__py_fd(const struct ap_collector *c);
/* the kernel's mapping records lost (a CPU's buffer was full) */
uint64_t ap_collector__mappings_lost(const struct ap_collector *c);
/* pid exec'd or exited: the unwinder's mirror of its old image goes. */
void ap_collector__image_gone(struct ap_collector *c, pid_t pid);
/* The recording's window in CLOCK_MONOTONIC (the events' clock) ns */
struct ap_window {
	uint64_t start_ns;		/* the first sensor attaches */
	uint64_t attached_ns;		/* every sensor is on */
	uint64_t end_ns;		/* record -d: start + its duration; 0 */
	uint64_t late;			/* records from end_ns on: discarded */
	uint64_t unread;		/* left in the ring by the drain: lost */
};
/* record -d: the window lasts ns from the first sensor's attach; the
 * kernel traces nothing from its end on, and what comes after it is
 * discarded.  Before ap_collector__start. */
void ap_collector__set_window(struct ap_collector *c, uint64_t ns);
const struct ap_window *ap_collector__window(const struct ap_collector *c);
/* Attaches every sensor; a sensor that cannot run is recorded as
 * unavailable (with the reason) and the others go on.  Fails only when no
 * sensor at all could start. */
int ap_collector__start(struct ap_collector *c, char *err, size_t errlen);
/* Waits up to timeout_ms for records and delivers them; returns the
 * number delivered or -errno (-EINTR when a signal interrupted).  One call
 * works for AP_POLL_BUDGET_MS at most, so that a caller under overload
 * still sees its deadline and its signals. */
#define AP_POLL_BUDGET_MS	50
int ap_collector__poll(struct ap_collector *c, int timeout_ms);
/* The ring's records taken, then every sensor's totals kept in the
 * kernel read now rather than on their period (stat -I: an interval's
 * totals); the number delivered or -errno. */
int ap_collector__read_sums(struct ap_collector *c);
/* Recording stops: no sensor starts anything new; polls and finish then
 * deliver only what was produced before (and calls completing). */
void ap_collector__stop(struct ap_collector *c);
/* After ap_collector__stop: delivers what the ring holds, until it is
 * empty or CLOCK_MONOTONIC reaches until_ns; the records left are
 * counted as lost (ring buffer).  0 or -errno. */
int ap_collector__drain(struct ap_collector *c, uint64_t until_ns);
/* When *flag becomes non-zero (a second Ctrl-C), poll and finish return
 * at once: the caller ends with what it has. */
void ap_collector__set_abort(struct ap_collector *c,
			     const volatile sig_atomic_t *flag);
/* Recording stops: each sensor delivers what it still holds (calls in
 * flight); after the last poll, before the status frames.  Returns the
 * number of records delivered or -errno. */
int ap_collector__finish(struct ap_collector *c);
/* How user stacks are unwound (CFI falls back to frame pointers where the
 * kernel cannot load the unwinder) and the unwinder's counters, from
 * counters as ap_collector__counters gives them. */
struct ap_unwind_info;
struct ap_unwind_stats;
/* the unwinder's own counters (lib/unwind/unwind.h); zero with frame pointers */
void ap_collector__unwind_stats(const struct ap_collector *c,
				struct ap_unwind_stats *st);
void ap_collector__unwind_info(const struct ap_collector *c,
			       const uint64_t *counters,
			       struct ap_unwind_info *out);
/* the records in the ring not read yet (one being written counts):
 * record --switch-output finishes a window when it is 0 */
uint64_t ap_collector__unread(struct ap_collector *c);
/* Sums the per-CPU drop counters into out[AP_STAT_NR]. */
void ap_collector__counters(struct ap_collector *c, uint64_t *out);
/* status of each sensor asked for */
/*
 * The losses by process (bpf/aperture.h): fn is called for each process
 * that lost something, with its pid, start time (ns since boot, as
 * start_boottime), comm and counts by AP_STAT_* index (AP_LOSS_NR of
 * them), then once with pid 0 and others set for the processes beyond
 * the table, when they lost anything.
 */
typedef void (*ap_loss_fn)(void *ctx, uint32_t pid, uint64_t start_ns,
			   const char *comm, int others, const uint64_t *n);
void ap_collector__losses(struct ap_collector *c, ap_loss_fn fn, void *ctx);
size_t ap_collector__sensors(const struct ap_collector *c,
			     const struct ap_sensor **out);
/* the AP_EVMASK bits asked for */
uint32_t ap_collector__events(const struct ap_collector *c);
/* CPU samples per second, after start: -F, or what the cpu sensor
 * lowered it to (the kernel's limits, the CPU budget) */
uint32_t ap_collector__freq(const struct ap_collector *c);
void ap_collector__close(struct ap_collector *c);

/* "cpu,syscall,lock:pthread" -> mask, and the options a qualified name
 * turns on (lock:pthread, cycles:u) into o when o is not NULL; on an
 * unknown name returns -EINVAL and copies it into bad; on a second CPU
 * sampling event (cycles,page-faults) -EEXIST, the second in bad.  A
 * tracepoint CAT:NAME (a glob) goes into o->tracepoints; -ENOENT: no
 * such tracepoint (or a bare "tracepoint"), -ENODEV: no tracefs, -E2BIG:
 * more than AP_COLLECT_TP_MAX, the name in bad. */
int ap_events__parse(const char *list, uint32_t *mask,
		     struct ap_collect_opts *o, char *bad, size_t badlen);
/* "cpu, syscall, lock, ..." for help texts */
const char *ap_events__valid(void);

#endif /* APERTURE_COLLECTOR_H */
