/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aperture push: a recording's profiles sent to a continuous-profiling
 * server, Grafana Pyroscope (its HTTP /ingest) or Parca (the HTTP/JSON
 * gateway of ProfileStoreService/WriteRaw), the rules of each as its
 * source states them (README, "push").  The exit status is what a spool
 * acts on: sent, try again later, or drop the file.
 */
#ifndef APERTURE_PUSH_H
#define APERTURE_PUSH_H

#include <stddef.h>

/* the outcome of a push: sysexits' codes */
#define AP_PUSH_SENT		0
#define AP_PUSH_DATAERR		65	/* EX_DATAERR: bad, or refused */
#define AP_PUSH_TEMPFAIL	75	/* EX_TEMPFAIL: not now, later */

enum ap_push_server {
	AP_PUSH_PYROSCOPE,
	AP_PUSH_PARCA,
};

/* series labels the user gives: Pyroscope's name syntax has no quoting
 * and allows 30 label names a series, its own and the samples' included */
#define AP_PUSH_MAX_LABELS	16
#define AP_PUSH_LABEL_MAX	2048	/* AP_LABEL_VALUE_MAX */

struct ap_push_label {
	const char *name;
	const char *value;
};

struct ap_push_opts {
	enum ap_push_server server;
	const char *base;		/* "http://HOST:PORT", no path */
	struct ap_push_label labels[AP_PUSH_MAX_LABELS];
	int nr_labels;
	const char *name;		/* --name; NULL: service label, else
					 * the recorded command */
	const char *token;		/* bearer token, or NULL */
	const char *ca_file;
	long timeout_s;			/* each request's */
	int retries;			/* tries after the first */
	int verbose;
};

/* --to URL: pyroscope+http://HOST:PORT, parca+https://... into o's
 * server and base (base points into a copy the caller frees).  0, or
 * -EINVAL with why[len] said */
int ap_push__parse_to(const char *url, struct ap_push_opts *o, char **base,
		      char *why, size_t len);
/* NAME=VALUE as a series label both servers take (ap_label__check,
 * util/labels.h): 0, or -EINVAL with why[len].  arg is split in place */
int ap_push__parse_label(char *arg, struct ap_push_label *l, char *why,
			 size_t len);
/* the bearer token in path, which nobody else may write: 0 with a
 * malloc'ed token, or -errno with why[len] */
int ap_push__read_token(const char *path, char **token, char *why,
			size_t len);

/* the recording at path sent to o's server: AP_PUSH_*, after one line
 * on stderr for a failure */
int ap_push__file(const struct ap_push_opts *o, const char *path);

/*
 * Label values from a recording (hostile: a host or thread name is
 * anyone's) made into what the servers take: valid UTF-8, no control
 * characters, none of Pyroscope's name separators ('{', '}', ',', '='),
 * at most AP_PUSH_LABEL_MAX bytes; each other byte '_'.  Returns dst.
 */
char *ap_push__clean_value(char *dst, size_t len, const char *src);

#endif /* APERTURE_PUSH_H */
