/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report's option values as perf report spells them: --sort keys and
 * orders, name lists, --time ranges, and -g's callchain specification
 * ("graph,0.5,caller").  Each returns 0 or -errno; why says what was
 * wrong or, for a spelling taken with a difference, what it means here.
 */
#ifndef APERTURE_REPORT_OPTS_H
#define APERTURE_REPORT_OPTS_H

#include <stddef.h>
#include <stdint.h>

struct ap_report_opts;

/* "comm,dso,sym" (and the orders children or self) into r; sets
 * r->sort_given when keys were named, r->order_given an order */
int ap_report_opts__sort(struct ap_report_opts *r, const char *arg);
/* comma-separated names into list (pointers into a copy kept for the
 * run); -EINVAL when empty or too many (max) */
int ap_report_opts__names(const char *arg, const char **list, int *nr,
			  int max);
/* START,END in seconds, either side empty: -EINVAL, or -ERANGE when
 * END is before START */
int ap_report_opts__time(const char *arg, uint64_t *lo, uint64_t *hi);
/*
 * -g [TYPE][,MIN][,LIMIT][,ORDER][,KEY][,VALUE] as perf report takes it:
 * TYPE graph, fractal, flat or none; MIN the least percent of a branch;
 * ORDER caller or callee; KEY function or address; VALUE percent.  NULL
 * (a bare -g): the default graph.  -EINVAL with why on a bad word; a
 * word taken with a difference (fractal, flat, address...) fills note.
 */
int ap_report_opts__call_graph(struct ap_report_opts *r, const char *arg,
			       char *note, size_t len);

#endif /* APERTURE_REPORT_OPTS_H */
