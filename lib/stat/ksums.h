/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aperture stat's in-kernel sums: -e syscall loads the BPF collector with
 * the syscall sensor alone, in its totals mode (no per-call records, no
 * stacks, no file), and adds up the AP_EV_SYSCALL_SUM records it hands
 * over into per-syscall calls, errors and time, as strace -c counts.
 */
#ifndef APERTURE_STAT_KSUMS_H
#define APERTURE_STAT_KSUMS_H

#include <stdint.h>
#include <sys/types.h>

#include "stat/print.h"

struct ap_collector;

/* one syscall's totals (over every -r run) */
struct ap_stat_sc {
	uint64_t calls, errors, ns;
};

struct ap_stat_ksums {
	uint32_t events;		/* AP_EVMASK bits; 0: none */
	struct ap_stat_sc *sc;		/* by syscall number */
	uint32_t nr_sc;
	struct ap_collector *col;	/* while a run counts */
	int err;			/* -errno of a failed delivery */
};

/* name ("syscall") is one of these sensors: added, 1; else 0 */
int ap_stat_ksums__add(struct ap_stat_ksums *k, const char *name);

/* the collector loaded, the targets in (a held command: pid > 0; -p's
 * processes; -a: system_wide) and the sensor attached; 0, or -errno with
 * the message in err[len] */
int ap_stat_ksums__open(struct ap_stat_ksums *k, pid_t cmd,
			const pid_t *pids, int nr_pids, int system_wide,
			char *err, size_t len);
/* what the sensor has sent so far taken in; 0 or -errno */
int ap_stat_ksums__poll(struct ap_stat_ksums *k);
/* the end of a run: the last totals taken in, the collector closed */
int ap_stat_ksums__close(struct ap_stat_ksums *k);
void ap_stat_ksums__free(struct ap_stat_ksums *k);

/* the syscalls block: the total and the busiest syscalls, divided by
 * runs (their mean), apart from the counters' block above when
 * after_counters; in CSV one line per syscall */
void ap_stat_ksums__print(const struct ap_stat_fmt *f,
			  const struct ap_stat_ksums *k, unsigned int runs,
			  int after_counters);

#endif /* APERTURE_STAT_KSUMS_H */
