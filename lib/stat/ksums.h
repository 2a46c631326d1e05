/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aperture stat's in-kernel sums: -e syscall, io, sched and lock load the
 * BPF collector with those sensors alone, in their totals mode (no
 * per-call records, no intervals, no stacks, no file), and add up what
 * they hand over: per-syscall calls, errors and time, as strace -c
 * counts; I/O calls, bytes, errors and time by direction; voluntary and
 * involuntary switches, on-CPU, blocked and runnable time; lock waits
 * and their time.
 */
#ifndef APERTURE_STAT_KSUMS_H
#define APERTURE_STAT_KSUMS_H

#include <stdint.h>
#include <sys/types.h>

#include "stat/counters.h"
#include "stat/print.h"
#include "util/hmap.h"

struct ap_collector;
struct ap_stat_ks_thr;

/* one syscall's totals (over every -r run) */
struct ap_stat_sc {
	uint64_t calls, errors, ns;
};

/* the lines of io, sched and lock, in the order they print */
enum ap_stat_ks {
	AP_STAT_KS_IO_RCALLS,
	AP_STAT_KS_IO_RBYTES,
	AP_STAT_KS_IO_RNS,
	AP_STAT_KS_IO_RERRS,
	AP_STAT_KS_IO_WCALLS,
	AP_STAT_KS_IO_WBYTES,
	AP_STAT_KS_IO_WNS,
	AP_STAT_KS_IO_WERRS,
	AP_STAT_KS_SCHED_VOL,
	AP_STAT_KS_SCHED_INVOL,
	AP_STAT_KS_SCHED_ON,
	AP_STAT_KS_SCHED_BLOCKED,
	AP_STAT_KS_SCHED_RUNNABLE,
	AP_STAT_KS_SCHED_WAKEUPS,
	AP_STAT_KS_SCHED_WAKEUP_NS,
	AP_STAT_KS_SCHED_MIGRATIONS,
	AP_STAT_KS_LOCK_WAITS,
	AP_STAT_KS_LOCK_FUTEX,
	AP_STAT_KS_LOCK_KERNEL,
	AP_STAT_KS_LOCK_ERRS,
	AP_STAT_KS_LOCK_NS,
	AP_STAT_KS_LOCK_MAX,
	AP_STAT_KS_NR,
};

/* a line: its name, "msec" for a time (its value in ns), the sensor
 * (AP_TAG_*) whose totals it is */
struct ap_stat_ks_line {
	const char *name;
	const char *unit;
	uint32_t tag;
};
extern const struct ap_stat_ks_line ap_stat_ks_lines[AP_STAT_KS_NR];

/* what the aligned block says next to line i: the metric of v (this
 * run's, an interval's or the mean values) over wall_ns, into l */
void ap_stat_ks__metric(int i, const double *v, double wall_ns,
			struct ap_stat_line *l);

struct ap_stat_ksums {
	uint32_t events;		/* AP_EVMASK bits; 0: none */
	struct ap_stat_sc *sc;		/* by syscall number */
	uint32_t nr_sc;
	/* this run's totals: io's added up, sched's per thread (done and
	 * live), lock's as last read */
	double io[8];			/* the AP_STAT_KS_IO_* lines */
	struct ap_hmap thr_idx;		/* tid -> index in thr */
	struct ap_stat_ks_thr *thr;
	size_t nr_thr, cap_thr;
	struct ap_stat_ks_lock {
		uint64_t waits, ns, max, errors;
	} lock[4];			/* by AP_EVLOCK_* */
	double base[AP_STAT_KS_NR];	/* when counting began */
	double last[AP_STAT_KS_NR];	/* -I: at the previous interval */
	struct ap_stat_runs runs[AP_STAT_KS_NR];	/* over -r runs */
	struct ap_collector *col;	/* while a run counts */
	int err;			/* -errno of a failed delivery */
};

/* name ("syscall", "io", "sched", "lock") is one of these sensors:
 * added, 1; else 0 */
int ap_stat_ksums__add(struct ap_stat_ksums *k, const char *name);

/* the collector loaded, the targets in (a held command: pid > 0; -p's
 * processes; -a: system_wide) and the sensors attached; 0, or -errno
 * with the message in err[len] */
int ap_stat_ksums__open(struct ap_stat_ksums *k, pid_t cmd,
			const pid_t *pids, int nr_pids, int system_wide,
			char *err, size_t len);
/* what the sensors have sent so far taken in; 0 or -errno */
int ap_stat_ksums__poll(struct ap_stat_ksums *k);
/* -I: every sensor's totals read now, and taken in; 0 or -errno */
int ap_stat_ksums__read(struct ap_stat_ksums *k);
/* counting begins (the command starts): the totals so far read, to be
 * left out (what loading and attaching took, the command held); 0 or
 * -errno */
int ap_stat_ksums__begin(struct ap_stat_ksums *k);
/* the end of a run: the last totals taken in, the collector closed */
int ap_stat_ksums__close(struct ap_stat_ksums *k);
/* the run counted: its values since begin added to runs */
void ap_stat_ksums__add_run(struct ap_stat_ksums *k);
void ap_stat_ksums__free(struct ap_stat_ksums *k);

/* this run's values so far, every line's, into v[AP_STAT_KS_NR] */
void ap_stat_ksums__values(const struct ap_stat_ksums *k, double *v);

/* the block of the kernel's sums, apart from the counters' block above
 * when after_counters: syscall's total and busiest syscalls divided by
 * runs (in CSV one line per syscall), then the lines of io, sched and
 * lock, each the mean of the runs with its spread; wall_ns: the mean
 * run's */
void ap_stat_ksums__print(const struct ap_stat_fmt *f,
			  const struct ap_stat_ksums *k, unsigned int runs,
			  double wall_ns, int after_counters);
/* -I: the io, sched and lock lines of the interval since the last, of
 * interval_ns; last becomes now */
void ap_stat_ksums__print_interval(const struct ap_stat_fmt *f,
				   struct ap_stat_ksums *k,
				   double interval_ns);
/* the lines of v (the values of events), as the two above print them */
void ap_stat_ks__print_lines(const struct ap_stat_fmt *f, uint32_t events,
			     const double *v, const double *noise_pct,
			     double wall_ns);

#endif /* APERTURE_STAT_KSUMS_H */
