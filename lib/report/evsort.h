/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records put back in time order in bounded memory, for the event dump
 * and the timeline (lib/export/trace.c): the file holds events in the
 * order the recorder took them from one ring buffer that every CPU
 * writes to, and a slice (a syscall, an off-CPU interval, a GPU kernel)
 * comes when it ends, so nothing bounds how far back an event's time may
 * lie.  Records are kept in memory up
 * to a budget, then sorted and written to a temporary file (a run); the
 * end merges the runs.  Equal times keep the order they came in.
 */
#ifndef APERTURE_EVSORT_H
#define APERTURE_EVSORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ap_evsort;

/* budget: bytes of records (and their index) held before a run is
 * written; 0: the default, 64 MiB */
struct ap_evsort *ap_evsort__new(size_t budget);
/* a record of len bytes (the text to print) at time ts; 0 or -errno */
int ap_evsort__add(struct ap_evsort *s, uint64_t ts, const void *p,
		   size_t len);
/* every record, in time order, to out; 0 or -errno */
int ap_evsort__write(struct ap_evsort *s, FILE *out);
/* runs written to temporary files so far */
unsigned ap_evsort__runs(const struct ap_evsort *s);
void ap_evsort__free(struct ap_evsort *s);

#endif /* APERTURE_EVSORT_H */
