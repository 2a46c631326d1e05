/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The head of aperture report's output: what the recording was (command
 * line, target, host, time, duration), what it lost and where (ring
 * buffer, stacks, full tables, processes that lost records), how user
 * stacks were unwound, and the sensors; as '#' lines above a table or
 * as the "header" member of the JSON output.
 */
#ifndef APERTURE_REPORT_HEADER_H
#define APERTURE_REPORT_HEADER_H

#include <stdint.h>
#include <stdio.h>

struct ap_header;
struct ap_read_stats;
struct ap_session;

/* from the start to the summary's end, else the last event */
uint64_t ap_report_header__duration_ns(const struct ap_header *h,
				       const struct ap_read_stats *st,
				       const struct ap_session *s);
double ap_report_header__duration_s(const struct ap_header *h,
				    const struct ap_read_stats *st,
				    const struct ap_session *s);
/* "# aperture report of PATH ..." lines, ending with "#"; whole: every
 * unwinding fallback and failure by reason (report --header, -v) */
void ap_report_header__table(FILE *out, const char *path,
			     const struct ap_header *h,
			     const struct ap_read_stats *st,
			     const struct ap_session *s, int whole);
/*
 * The JSON output's own version (aperture-report(1), json): the major
 * changes when a stable field is renamed, removed or changes its type or
 * meaning, the minor when a field or a view is added.
 * doc/aperture-report.schema.json describes this version.
 */
#define AP_REPORT_SCHEMA_NAME		"aperture-report"
#define AP_REPORT_SCHEMA_VERSION	"1.0"

/* "  \"schema\": {...},\n  \"header\": {...}", no newline after */
void ap_report_header__json(FILE *out, const struct ap_header *h,
			    const struct ap_read_stats *st,
			    const struct ap_session *s);

#endif /* APERTURE_REPORT_HEADER_H */
