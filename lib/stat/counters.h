/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aperture stat's counters: perf_event_open counting events (no
 * sampling, no BPF), one per target thread (inherited by what it forks)
 * or per CPU (-a), read() and summed, as perf stat counts.
 */
#ifndef APERTURE_STAT_COUNTERS_H
#define APERTURE_STAT_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* an event stat knows by name */
struct ap_stat_event {
	const char *name;
	const char *alias;		/* perf's other spelling, or NULL */
	uint32_t type;			/* PERF_TYPE_* */
	uint64_t config;
	const char *unit;		/* "msec": a clock, counted in ns */
};

extern const struct ap_stat_event ap_stat_events[];
extern const size_t ap_nr_stat_events;

/* one read, summed over a counter's fds: the count, and the times the
 * counter was enabled and running (they differ when multiplexed) */
struct ap_stat_count {
	uint64_t val, ena, run;
};

/* mean and spread over -r runs (Welford's), as perf's struct stats */
struct ap_stat_runs {
	unsigned int n;
	double mean, m2;
};

void ap_stat_runs__add(struct ap_stat_runs *r, double v);
/* the standard error of the mean, as perf's stddev_stats: 0 under 2 runs */
double ap_stat_runs__stderr(const struct ap_stat_runs *r);
/* that as a percentage of the mean, perf's "+- x.xx%" (0 for mean 0) */
double ap_stat_runs__pct(const struct ap_stat_runs *r);

struct ap_stat_counter {
	const struct ap_stat_event *ev;
	char name[48];			/* as given: "cycles:u" */
	int excl_user, excl_kernel;
	int optional;			/* of the default set: left out where
					 * it cannot be opened */
	int *fds;
	int nr_fds;
	int err;			/* -errno: it could not be opened */
	struct ap_stat_count now;	/* the last read */
	struct ap_stat_count last;	/* at the previous interval's end */
	/* over -r runs: the scaled count, enabled and running times */
	struct ap_stat_runs runs[3];
};

struct ap_stat_counters {
	struct ap_stat_counter *c;
	int nr;
};

/* -e LIST: perf's names (NAME[:u|:k]) appended; 0, -ENOMEM, or -EINVAL
 * with the unknown name in bad[len] */
int ap_stat_counters__add(struct ap_stat_counters *s, const char *list,
			  char *bad, size_t len);
/* perf stat's default set: task-clock (cpu-clock with -a),
 * context-switches, cpu-migrations, page-faults, and cycles,
 * instructions, branches and branch-misses where there is a PMU */
int ap_stat_counters__add_defaults(struct ap_stat_counters *s,
				   int system_wide);
/* the names stat knows, comma-separated, into buf[len]: buf */
const char *ap_stat_counters__valid(char *buf, size_t len);

/* what is counted */
struct ap_stat_target {
	pid_t cmd;		/* > 0: the held command, counted from its
				 * exec (enable_on_exec), with what it forks */
	const pid_t *tids;	/* -p's threads, -t's; with what they fork */
	int nr_tids;
	int system_wide;	/* -a: every CPU */
};

/* opens each counter on t, disabled; one the machine lacks (no PMU)
 * keeps its -errno in err, and an optional one is dropped.  0, or
 * -errno with the message in err[len] */
int ap_stat_counters__open(struct ap_stat_counters *s,
			   const struct ap_stat_target *t, char *err,
			   size_t len);
int ap_stat_counters__enable(struct ap_stat_counters *s);
int ap_stat_counters__disable(struct ap_stat_counters *s);
/* each counter's now; 0 or -errno */
int ap_stat_counters__read(struct ap_stat_counters *s);
/* the fds closed: the counters can be opened again (-r) */
void ap_stat_counters__close(struct ap_stat_counters *s);
void ap_stat_counters__free(struct ap_stat_counters *s);

/* why c could not be opened, one line (no newline) */
void ap_stat_counter__why(const struct ap_stat_counter *c, char *buf,
			  size_t len);
/* does c count time (task-clock, cpu-clock)? */
int ap_stat_counter__is_clock(const struct ap_stat_counter *c);
/* count scaled up for the time it did not run (multiplexed), as perf */
double ap_stat_count__scaled(const struct ap_stat_count *c);

#endif /* APERTURE_STAT_COUNTERS_H */
