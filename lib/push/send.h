/* SPDX-License-Identifier: GPL-2.0 */
/* Inside push: a recording's profiles, ready for a server's request. */
#ifndef APERTURE_PUSH_SEND_H
#define APERTURE_PUSH_SEND_H

#include <stddef.h>
#include <stdint.h>

#include "export/profile.h"
#include "push/push.h"

struct ap_push_view {
	struct ap_prof_view view;	/* its name, types and period */
	char *pprof;			/* gzipped, len bytes */
	size_t len;
	size_t nr_samples;
};

struct ap_push_req {
	const char *path;
	char host[256];			/* the header's, cleaned */
	char app[256];			/* --name, service, command */
	uint64_t from_s, until_s;	/* the window, UNIX seconds */
	/* record --label's (those --label leaves) then --label's, at most
	 * AP_PUSH_MAX_LABELS: Pyroscope's 30 names a series hold its own
	 * four, host, service and the samples' five */
	struct ap_push_label labels[AP_PUSH_MAX_LABELS];
	int nr_labels;
	char names[AP_PUSH_MAX_LABELS][160];
	char values[AP_PUSH_MAX_LABELS][AP_PUSH_LABEL_MAX + 1];
	struct ap_push_view views[AP_PROF_MAX_VIEWS];
	int nr;
};

/* the series' labels: host (the header's), service (rq->app), then
 * rq->labels, which replace either: the count (at most
 * AP_PUSH_MAX_LABELS + 2) */
int ap_push__series_labels(const struct ap_push_req *rq,
			   struct ap_push_label *out);

/* each server's requests for rq: AP_PUSH_* */
int ap_push__pyroscope(const struct ap_push_opts *o,
		       const struct ap_push_req *rq);
int ap_push__parca(const struct ap_push_opts *o,
		   const struct ap_push_req *rq);

/* one part of a multipart form */
struct ap_http_part {
	const char *name;
	const char *filename;		/* NULL: a plain field */
	const char *type;		/* its Content-Type, or NULL */
	const void *data;
	size_t len;
};

/* a POST of body (content_type) or of the nr_parts form parts to url,
 * retried with backoff on what may pass (no connection, a timeout, 429,
 * 5xx): AP_PUSH_*, after one line "aperture push: PATH: WHAT: why" on
 * stderr when it fails (-v: a line for each try too) */
int ap_http__post(const struct ap_push_opts *o, const char *path,
		  const char *what, const char *url, const char *content_type,
		  const void *body, size_t len,
		  const struct ap_http_part *parts, int nr_parts);

/* a malloc'ed, NUL-terminated URL-encoding of s, or NULL */
char *ap_http__escape(const char *s);

#endif /* APERTURE_PUSH_SEND_H */
