// SPDX-License-Identifier: GPL-2.0
/*
 * A recording pushed: its views read as report reads them, made into one
 * pprof profile per view (lib/export/pprof.c, in memory), and sent to
 * the server in its own request shape (pyroscope.c, parca.c) over
 * lib/push/http.c.  One profile per view: each server names a profile's
 * series after its sample types and its one period type, so views side
 * by side would file off-CPU time under the CPU's name.
 */
#include "push/push.h"
#include "push/send.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/profile.h"
#include "format/reader.h"
#include "record/bidcache.h"
#include "report/header.h"
#include "report/input.h"
#include "report/session.h"
#include "report/view.h"
#include "report/viewset.h"
#include "symbols/dwcache.h"
#include "symbols/symbolizer.h"
#include "util/labels.h"

/* view v of the whole profile all as a profile of its own in one[0]:
 * the samples borrowed, which one frees (not what they point to) */
static int view_profile(const struct ap_profile *all, int v,
			struct ap_profile *one)
{
	size_t i;
	int err;

	ap_profile__init(one, all->s);
	one->user_only = all->user_only;
	one->start_ns = all->start_ns;
	one->wall_start_ns = all->wall_start_ns;
	one->duration_ns = all->duration_ns;
	memcpy(one->kernel_build_id, all->kernel_build_id,
	       sizeof(one->kernel_build_id));
	one->kernel_build_id_len = all->kernel_build_id_len;
	err = ap_profile__add_view(one, &all->views[v]);
	for (i = 0; err >= 0 && i < all->nr; i++) {
		struct ap_prof_sample smp = all->samples[i];

		if (smp.view != v)
			continue;
		smp.view = 0;
		err = ap_profile__add(one, &smp);
	}
	if (err < 0) {
		ap_profile__free(one);
		return err;
	}
	return 0;
}

/* the program's name when --name and a service label give none: the
 * recorded command's basename, the first process of -p, else "system" */
static void default_name(const struct ap_header *h,
			 const struct ap_profile *p, char *buf, size_t len)
{
	const char *t = h->target, *s, *e, *c;
	unsigned long pid;
	size_t i;

	if (!strncmp(t, "command ", 8)) {
		s = t + 8;
		e = strchr(s, ' ');
		if (!e)
			e = s + strlen(s);
		/* its basename */
		for (c = s; c + 1 < e; c++)
			if (*c == '/')
				s = c + 1;
		snprintf(buf, len, "%.*s", (int)(e - s), s);
	} else if (!strncmp(t, "pid ", 4)) {
		pid = strtoul(t + 4, NULL, 10);
		buf[0] = '\0';
		for (i = 0; i < p->nr && !buf[0]; i++)
			if (p->samples[i].pid == pid && p->samples[i].comm)
				snprintf(buf, len, "%s", p->samples[i].comm);
	} else {
		buf[0] = '\0';
	}
	if (!buf[0])
		snprintf(buf, len, "system");
}

/* record --label's that --label does not replace, then --label's, at
 * most AP_PUSH_MAX_LABELS (the file's first left out, said) */
static void merge_labels(const struct ap_push_opts *o,
			 const struct ap_header *h, struct ap_push_req *rq)
{
	char name[sizeof(rq->names[0])], value[sizeof(rq->values[0])];
	size_t pos = 0;
	int i, r, n;

	while ((r = ap_label__next(h->labels, &pos, name, sizeof(name), value,
				   sizeof(value))) >= 0) {
		for (i = 0; r && i < o->nr_labels; i++)
			if (!strcmp(o->labels[i].name, name))
				r = 0;
		if (!r)
			continue;
		n = rq->nr_labels;
		if (n + o->nr_labels == AP_PUSH_MAX_LABELS) {
			fprintf(stderr, "aperture push: %s: warning: more than %d labels: the file's %s and after left out\n",
				rq->path, AP_PUSH_MAX_LABELS, name);
			break;
		}
		memcpy(rq->names[n], name, sizeof(name));
		memcpy(rq->values[n], value, sizeof(value));
		rq->labels[n] = (struct ap_push_label){ rq->names[n],
							rq->values[n] };
		rq->nr_labels++;
	}
	for (n = 0; n < o->nr_labels; n++)
		rq->labels[rq->nr_labels++] = o->labels[n];
}

static int read_file(const struct ap_push_opts *o, const char *path,
		     struct ap_push_req *rq)
{
	struct ap_symbolizer_opts so = { .warn = NULL };
	struct ap_report_opts r = { 0 };
	const struct ap_read_stats *st;
	const struct ap_header *h;
	struct ap_input in = { 0 };
	struct ap_viewset vs;
	struct ap_profile all;
	struct ap_frame f;
	char bid_dir[AP_PATH_MAX], dw_dir[AP_PATH_MAX];
	int err, v, ret = AP_PUSH_DATAERR;

	if (!ap_bidcache__dir(NULL, bid_dir, sizeof(bid_dir)))
		so.buildid_dir = bid_dir;
	if (!ap_dwcache__dir(dw_dir, sizeof(dw_dir)))
		so.debug_cache = dw_dir;
	/* ap_input__open says why on stderr */
	if (ap_input__open(&in, path, 0, &so))
		return AP_PUSH_DATAERR;
	h = ap_reader__header(in.rd);
	r.keys[0] = AP_KEY_COMM;
	r.keys[1] = AP_KEY_DSO;
	r.keys[2] = AP_KEY_SYM;
	r.nr_keys = 3;
	r.format = AP_FMT_PPROF;
	r.freq = h->freq;
	ap_session__escape_names(in.s, 0);
	ap_viewset__init(&vs, "push", &r, in.s);
	ap_viewset__add_held(&vs, h->events_requested);
	while ((err = ap_input__next(&in, &f)) > 0)
		ap_viewset__event(&vs, &f);
	if (err < 0) {
		/* a file cut short by a crash still holds what was read,
		 * but a spool must not send half a window twice */
		fprintf(stderr, "aperture push: %s: reading it: %s\n", path,
			strerror(-err));
		goto out;
	}
	st = ap_reader__stats(in.rd);
	err = ap_viewset__profile(&vs, "push", 0, h,
				  ap_report_header__duration_ns(h, st, in.s),
				  &all);
	if (err)
		goto out;
	ap_push__clean_value(rq->host, sizeof(rq->host), h->host);
	merge_labels(o, h, rq);
	if (o->name) {
		snprintf(rq->app, sizeof(rq->app), "%s", o->name);
	} else {
		const char *svc = NULL;
		int i;

		for (i = 0; i < rq->nr_labels; i++)
			if (!strcmp(rq->labels[i].name, "service"))
				svc = rq->labels[i].value;
		if (svc)
			snprintf(rq->app, sizeof(rq->app), "%s", svc);
		else
			default_name(h, &all, rq->app, sizeof(rq->app));
	}
	/* a thread's name is anyone's */
	ap_push__clean_value(rq->app, sizeof(rq->app), rq->app);
	rq->from_s = all.wall_start_ns / 1000000000ull;
	rq->until_s = (all.wall_start_ns + all.duration_ns + 999999999ull) /
		      1000000000ull;
	if (rq->until_s <= rq->from_s)
		rq->until_s = rq->from_s + 1;
	for (v = 0; v < all.nr_views && rq->nr < AP_PROF_MAX_VIEWS; v++) {
		struct ap_push_view *pv = &rq->views[rq->nr];
		struct ap_profile one;
		FILE *mem;

		err = view_profile(&all, v, &one);
		if (err)
			break;
		/* nothing of this kind in the window: nothing to file */
		if (!one.nr) {
			ap_profile__free(&one);
			continue;
		}
		pv->nr_samples = one.nr;
		mem = open_memstream(&pv->pprof, &pv->len);
		err = mem ? ap_export_pprof(&one, mem) : -ENOMEM;
		if (mem && fclose(mem) && !err)
			err = -EIO;
		ap_profile__free(&one);
		if (err) {
			free(pv->pprof);
			pv->pprof = NULL;
			break;
		}
		/* its name and types are the view's, static */
		pv->view = all.views[v];
		rq->nr++;
	}
	ap_profile__free(&all);
	if (err) {
		fprintf(stderr, "aperture push: %s: making its profiles: %s\n",
			path, strerror(-err));
		goto out;
	}
	ret = AP_PUSH_SENT;
out:
	ap_viewset__free(&vs);
	ap_input__close(&in);
	return ret;
}

int ap_push__file(const struct ap_push_opts *o, const char *path)
{
	struct ap_push_req *rq;
	int ret, i;

	rq = calloc(1, sizeof(*rq));
	if (!rq) {
		fprintf(stderr, "aperture push: %s: out of memory\n", path);
		return AP_PUSH_TEMPFAIL;
	}
	rq->path = path;
	ret = read_file(o, path, rq);
	if (ret == AP_PUSH_SENT && !rq->nr) {
		if (o->verbose)
			fprintf(stderr, "aperture push: %s: no samples, nothing sent\n",
				path);
	} else if (ret == AP_PUSH_SENT) {
		ret = o->server == AP_PUSH_PYROSCOPE ?
		      ap_push__pyroscope(o, rq) : ap_push__parca(o, rq);
	}
	for (i = 0; i < rq->nr; i++)
		free(rq->views[i].pprof);
	free(rq);
	return ret;
}
