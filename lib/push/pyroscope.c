// SPDX-License-Identifier: GPL-2.0
/*
 * Pyroscope's /ingest (grafana/pyroscope, pkg/ingester/pyroscope and
 * pkg/og/convert/pprof): POST /ingest?name=APP{k=v,..}&from=S&until=S
 * with a multipart/form-data body of a "profile" part (the gzipped
 * pprof) and a "sample_type_config" part (JSON).  No format=pprof: with
 * it the server takes the whole body for the profile and never parses
 * the form, so the config would be lost.
 *
 * The series' __name__ comes from the sample types' display names (the
 * config's "display-name"): the first containing "cpu" makes it
 * process_cpu, then alloc_/inuse_ memory, mutex_ mutex, block_ block;
 * else the last type's name.  So every view has a config naming its
 * types: the CPU's "cpu" (process_cpu, as Pyroscope's own agents), the
 * lock view's mutex_duration and mutex_count (mutex, Go's contention
 * profile's name), any other view its own name, which holds no "cpu":
 * off-CPU time is "sched", never process_cpu.
 */
#include "push/send.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a pprof sample type's name, as lib/export/pprof.c writes it */
static void type_name(const char *t, char *buf, size_t len)
{
	size_t i;

	for (i = 0; t[i] && i + 1 < len; i++)
		buf[i] = t[i] == '-' ? '_' : t[i];
	buf[i] = '\0';
}

static const char *display_name(const struct ap_prof_view *v, int t)
{
	if (!strcmp(v->name, "cpu"))
		return "cpu";
	if (!strcmp(v->name, "lock"))
		return strcmp(v->types[t].unit, "count") ? "mutex_duration" :
							    "mutex_count";
	return v->name;
}

/* metadata.Units of the type, the old API's, or NULL */
static const char *units(const struct ap_prof_view *v, int t)
{
	const char *u = v->types[t].unit;

	if (!strcmp(v->name, "lock"))
		return strcmp(u, "count") ? "lock_nanoseconds" : "lock_samples";
	if (!strcmp(u, "bytes"))
		return "bytes";
	if (!strcmp(u, "count"))
		return "samples";
	return NULL;
}

/* the config of view v's types: JSON in buf, its length or -1 */
static int sample_type_config(const struct ap_prof_view *v, char *buf,
			      size_t len)
{
	size_t n = 0;
	int t;

	n += snprintf(buf + n, len - n, "{");
	for (t = 0; t < v->nr_types && n < len; t++) {
		char name[64];
		const char *u = units(v, t);

		type_name(v->types[t].type, name, sizeof(name));
		n += snprintf(buf + n, len - n,
			      "%s\"%s\":{\"display-name\":\"%s\",\"aggregation\":\"sum\"%s%s%s%s}",
			      t ? "," : "", name, display_name(v, t),
			      u ? ",\"units\":\"" : "", u ? u : "",
			      u ? "\"" : "",
			      !strcmp(v->name, "cpu") ? ",\"sampled\":true" : "");
	}
	if (n < len)
		n += snprintf(buf + n, len - n, "}");
	return n < len ? (int)n : -1;
}

/* Pyroscope's service name: letters, digits and "_.-/" */
static void app_name(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++) {
		char c = s[i];

		buf[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || strchr("_.-/", c) ? c : '_';
	}
	buf[i] = '\0';
	if (!buf[0])
		snprintf(buf, len, "aperture");
}

int ap_push__pyroscope(const struct ap_push_opts *o,
		       const struct ap_push_req *rq)
{
	struct ap_push_label ls[AP_PUSH_MAX_LABELS + 2];
	size_t cap = 512, n;
	char *name, *esc = NULL, *url = NULL, app[256];
	int i, nl, ret = AP_PUSH_SENT;

	nl = ap_push__series_labels(rq, ls);
	for (i = 0; i < nl; i++)
		cap += strlen(ls[i].name) + strlen(ls[i].value) + 2;
	name = malloc(cap);
	if (!name)
		goto oom;
	app_name(rq->app, app, sizeof(app));
	n = snprintf(name, cap, "%s{", app);
	for (i = 0; i < nl; i++)
		n += snprintf(name + n, cap - n, "%s%s=%s", i ? "," : "",
			      ls[i].name, ls[i].value);
	snprintf(name + n, cap - n, "}");
	esc = ap_http__escape(name);
	url = esc ? malloc(strlen(o->base) + strlen(esc) + 96) : NULL;
	if (!url)
		goto oom;
	sprintf(url, "%s/ingest?name=%s&from=%" PRIu64 "&until=%" PRIu64
		"&spyName=aperture", o->base, esc, rq->from_s, rq->until_s);
	for (i = 0; i < rq->nr && ret == AP_PUSH_SENT; i++) {
		const struct ap_push_view *pv = &rq->views[i];
		char config[2048], what[64];
		struct ap_http_part parts[2] = {
			{ "profile", "profile.pprof", "application/octet-stream",
			  pv->pprof, pv->len },
			{ "sample_type_config", "sample_type_config.json",
			  "application/json", config, 0 },
		};
		int clen = sample_type_config(&pv->view, config,
					      sizeof(config));

		if (clen < 0)
			goto oom;
		parts[1].len = clen;
		snprintf(what, sizeof(what), "the %s profile", pv->view.name);
		ret = ap_http__post(o, rq->path, what, url, NULL, NULL, 0,
				    parts, 2);
		if (ret == AP_PUSH_SENT && o->verbose)
			fprintf(stderr, "aperture push: %s: %s: %zu stacks, %zu bytes to %s\n",
				rq->path, what, pv->nr_samples, pv->len,
				o->base);
	}
	free(name);
	free(esc);
	free(url);
	return ret;
oom:
	fprintf(stderr, "aperture push: %s: out of memory\n", rq->path);
	free(name);
	free(esc);
	free(url);
	return AP_PUSH_TEMPFAIL;
}
