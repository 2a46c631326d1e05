/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aperture stat's run: the counters opened on the targets, the command
 * (held until they are, then counted from its exec) run -r times, -I's
 * intervals printed as they end, and the block of totals (or means and
 * spreads) at the end, as perf stat.
 */
#ifndef APERTURE_STAT_SESSION_H
#define APERTURE_STAT_SESSION_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "stat/counters.h"
#include "stat/ksums.h"

struct ap_stat_opts {
	struct ap_stat_counters *counters;
	struct ap_stat_ksums *ksums;	/* -e syscall: the kernel's sums */
	char **cmd;			/* -- CMD ARGS, or NULL */
	const pid_t *pids;		/* -p: every thread of these */
	int nr_pids;
	const pid_t *tids;		/* -t */
	int nr_tids;
	int system_wide;		/* -a */
	unsigned int interval_ms;	/* -I; 0: none */
	unsigned int runs;		/* -r; 0 or 1: once */
	const char *sep;		/* -x; NULL: aligned */
	FILE *out;			/* the counts (perf's: stderr) */
	FILE *err;			/* notes and errors */
	volatile sig_atomic_t *stop;	/* set by a signal: stop counting */
};

/* counts as o says and prints them; the exit status: the command's
 * (the last run's), 127 when it cannot run, 1 on an error, else 0 */
int ap_stat__run(const struct ap_stat_opts *o);

#endif /* APERTURE_STAT_SESSION_H */
