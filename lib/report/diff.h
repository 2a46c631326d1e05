/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Comparing two recordings (aperture diff): one view of each file as a
 * profile, then per symbol the self shares of both and the change, the
 * stacks of both (difffolded: "stack OLD NEW"), or a differential flame
 * graph.
 */
#ifndef APERTURE_DIFF_H
#define APERTURE_DIFF_H

#include <stdio.h>

#include "report/view.h"

struct ap_diff_side;

/* path's view (NULL: cpu if the file holds it, else its first view) as a
 * profile; NULL after printing why.  o: filters, --user-only, the format
 * and --inline (o->inline_rows: rows of inlined functions; else rows are
 * ELF functions). */
struct ap_diff_side *ap_diff_side__load(const char *path, const char *view,
					const struct ap_report_opts *o,
					int no_inline);
void ap_diff_side__free(struct ap_diff_side *d);
/* the view it holds */
const char *ap_diff_side__view(const struct ap_diff_side *d);

/* format: AP_FMT_TABLE (limit rows; 0: all), AP_FMT_FOLDED, AP_FMT_SVG,
 * AP_FMT_JSON */
int ap_diff__print(struct ap_diff_side *old, struct ap_diff_side *new,
		   int format, long limit, FILE *out);

#endif /* APERTURE_DIFF_H */
