/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The last place report looks for a file: the debuginfod servers named by
 * DEBUGINFOD_URLS, through libdebuginfod (loaded on first use, as libdw
 * loads it for separate debug info).  Unset or empty: nothing is loaded
 * and nothing leaves the machine.
 *
 * The servers are another's: a stalled or dripping server, a redirect
 * loop or an answer of gigabytes must not hold a report.  All lookups of
 * a process share one budget of time and of bytes downloaded; each
 * download is bounded by what is left of it (and by the client's own
 * DEBUGINFOD_MAXTIME and DEBUGINFOD_MAXSIZE where smaller), stopped when
 * it runs out, and once it is spent nothing more is asked.  Each
 * (build-id, kind) is asked once: a failure is remembered, and
 * libdebuginfod's retries (DEBUGINFOD_RETRY_LIMIT) are off unless set.
 */
#ifndef APERTURE_DEBUGINFOD_H
#define APERTURE_DEBUGINFOD_H

#include <stddef.h>
#include <stdint.h>

#define AP_DEBUGINFOD_TIME	60		/* seconds */
#define AP_DEBUGINFOD_SIZE	(1ull << 30)	/* bytes */
/* redirects a lookup may follow, for each server: libcurl's own bound
 * (30 from 8.3 on) is higher, and before 8.3 there is none */
#define AP_DEBUGINFOD_REDIRS	8

struct ap_debuginfod_opts {
	/* seconds all lookups may take; 0: DEBUGINFOD_MAXTIME, else
	 * AP_DEBUGINFOD_TIME */
	uint64_t time;
	/* bytes all downloads may take; 0: DEBUGINFOD_MAXSIZE, else
	 * AP_DEBUGINFOD_SIZE */
	uint64_t size;
	int progress;		/* a line on stderr when a lookup waits */
};

/* The budget and progress lines of the lookups to come (before the
 * first); without it, the defaults and no progress line. */
void ap_debuginfod__setup(const struct ap_debuginfod_opts *o);

/* 1 when DEBUGINFOD_URLS names a server */
int ap_debuginfod__enabled(void);

/* The executable or library of build-id id, downloaded into (or found in)
 * libdebuginfod's cache: 0 with its path in buf, -ENOENT when no server has
 * it, -ENOSYS when lookups are off or libdebuginfod is missing, -ETIME
 * when the time budget ran out (this lookup, or before it), -EFBIG when
 * the answer is larger than what is left of the size budget, -ELOOP when
 * the servers redirected it more than AP_DEBUGINFOD_REDIRS times each
 * (counted where libdebuginfod has a verbose output), or another
 * -errno the servers caused.  The caller checks the file's build-id. */
int ap_debuginfod__find_executable(const uint8_t *id, size_t len, char *buf,
				   size_t buflen);

/* The same for the separate debug file of build-id id. */
int ap_debuginfod__find_debuginfo(const uint8_t *id, size_t len, char *buf,
				  size_t buflen);

/* What the lookups took: seconds and bytes of the budgets, lookups made
 * and those not made once it was spent. */
struct ap_debuginfod_stats {
	double secs;
	uint64_t bytes;
	uint64_t asked;
	uint64_t not_asked;
	uint64_t time, size;	/* the budgets */
};
void ap_debuginfod__stats(struct ap_debuginfod_stats *st);

#endif /* APERTURE_DEBUGINFOD_H */
