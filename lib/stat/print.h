/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aperture stat's output, perf stat's layout: the aligned block (counts
 * with thousands separators, "# 0.999 CPUs utilized", "( +- x.xx% )",
 * seconds time elapsed, user and sys), -I's timestamped lines, and -x
 * SEP's fields in perf's order: value, unit, event, [spread,] run time,
 * percentage running, metric value, metric unit.
 */
#ifndef APERTURE_STAT_PRINT_H
#define APERTURE_STAT_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stat/counters.h"

struct ap_stat_fmt {
	FILE *out;
	const char *sep;	/* -x SEP; NULL: the aligned layout */
	int runs;		/* -r N: the spreads are shown when > 1 */
	const char *prefix;	/* -I: the line's timestamp, or NULL */
};

enum ap_stat_state {
	AP_STAT_COUNTED,
	AP_STAT_NOT_COUNTED,	/* enabled but never ran */
	AP_STAT_NOT_SUPPORTED,	/* could not be opened */
};

/* one line: a counter over a run, an interval or the mean of -r runs */
struct ap_stat_line {
	const char *name;
	const char *unit;	/* "msec" (value in ns) or NULL */
	enum ap_stat_state state;
	double value;		/* scaled; ns for a clock */
	uint64_t ena, run;	/* ns */
	double noise_pct;	/* -r: the spread, in % of the mean */
	const char *metric_fmt;	/* printf format of metric, NULL: none */
	double metric;
	const char *metric_unit;
};

/* v rounded to decimals places, with a ',' between groups of thousands:
 * "1,234,567.89"; the length, as snprintf's */
int ap_stat_group(char *buf, size_t len, double v, int decimals);
/* l, one line, newline included */
void ap_stat_print_line(const struct ap_stat_fmt *f,
			const struct ap_stat_line *l);

/* which of a counter's values a block shows */
enum ap_stat_values {
	AP_STAT_TOTAL,		/* now */
	AP_STAT_DELTA,		/* now - last: an interval */
	AP_STAT_MEAN,		/* the mean of the runs */
};
/* every counter of s, a line each, with perf's metrics (CPUs utilized
 * over wall_ns, rates per second of task-clock, insn per cycle, ...) */
void ap_stat_print_counters(const struct ap_stat_fmt *f,
			    const struct ap_stat_counters *s,
			    enum ap_stat_values which, double wall_ns);

/* " Performance counter stats for TARGET (N runs):" and its blank lines;
 * nothing in CSV */
void ap_stat_print_header(const struct ap_stat_fmt *f, const char *target);
/* -I's column heads, before the first interval and every 25 after */
void ap_stat_print_interval_head(const struct ap_stat_fmt *f,
				 unsigned long nr);
/* the times: elapsed (with its spread over -r runs) and, user_ns >= 0,
 * user and sys; nothing in CSV */
void ap_stat_print_footer(const struct ap_stat_fmt *f,
			  const struct ap_stat_runs *wall_ns,
			  double user_ns, double sys_ns);

#endif /* APERTURE_STAT_PRINT_H */
