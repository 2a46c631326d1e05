// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoint sensor: bpf/tracepoint.bpf.c's one program attached to
 * every tracepoint of -e CAT:NAME, its index as the link's cookie.  Each
 * tracepoint's description (its format from tracefs, its --filter) goes
 * to the recorder before the tracepoint is attached, so that the file
 * holds it before the first event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "record/sensor.h"
#include "tracepoint/codec.h"

struct tp_priv {
	struct bpf_link *links[AP_TP_MAX];
	int nr;
};

static int tp_prepare(struct ap_collector *c, struct aperture_bpf *skel,
		      int enabled)
{
	struct ap_tp_format *f;
	int i;

	/* without tracepoints (aperture list) the program is not loaded:
	 * an older kernel's refusal of the cookie then costs nothing */
	bpf_program__set_autoload(skel->progs.ap_tp,
				  enabled && c->opts.nr_tracepoints > 0);
	if (!enabled || !c->opts.nr_tracepoints)
		return 0;
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	/* a format that cannot be read now fails at attach, said there */
	for (i = 0; i < c->opts.nr_tracepoints; i++)
		if (!ap_tp_format__read(c->opts.tracepoints[i], f))
			skel->rodata->ap_tp_size[i] =
				(uint32_t)ap_tp_format__fixed_size(f);
	free(f);
	return 0;
}

static void tp_close(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "tracepoint");
	struct tp_priv *p = idx >= 0 ? c->priv[idx] : NULL;

	if (!p)
		return;
	while (p->nr)
		bpf_link__destroy(p->links[--p->nr]);
	free(p);
	c->priv[idx] = NULL;
}

/* one tracepoint: its description to the recorder, then its link */
static int attach_one(struct ap_collector *c, struct aperture_bpf *skel,
		      struct tp_priv *p, int i, struct ap_sensor *st)
{
	const char *spec = c->opts.tracepoints[i];
	const char *filter = c->opts.tp_filters[i];
	LIBBPF_OPTS(bpf_tracepoint_opts, to, .bpf_cookie = (uint64_t)i);
	char cat[AP_TP_NAME_MAX], name[AP_TP_NAME_MAX];
	struct ap_rec_tp_desc *rd;
	int err;

	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	rd->hdr.type = AP_REC_TP_DESC;
	rd->d.idx = (uint32_t)i;
	snprintf(rd->d.filter, sizeof(rd->d.filter), "%s",
		 filter ? filter : "");
	err = ap_tp_format__read(spec, &rd->d.fmt);
	if (!err)
		err = ap_tp__split(spec, cat, sizeof(cat), name, sizeof(name));
	if (err) {
		snprintf(st->reason, sizeof(st->reason),
			 "reading the format of %s: %s", spec, strerror(-err));
		free(rd);
		return err;
	}
	err = ap_collector__deliver(c, rd, sizeof(*rd));
	free(rd);
	if (err) {
		snprintf(st->reason, sizeof(st->reason),
			 "recording the format of %s: %s", spec,
			 strerror(-err));
		return err;
	}
	p->links[p->nr] = bpf_program__attach_tracepoint_opts(skel->progs.ap_tp,
							       cat, name, &to);
	if (!p->links[p->nr]) {
		err = -errno;
		snprintf(st->reason, sizeof(st->reason),
			 "attaching to %s: %s%s", spec, strerror(-err),
			 err == -EACCES || err == -EPERM ?
			 "; run as root or grant CAP_BPF and CAP_PERFMON" :
			 err == -EINVAL ? " (a BPF cookie on a tracepoint needs Linux 5.15)" :
			 "");
		return err ? err : -ENODEV;
	}
	p->nr++;
	return 0;
}

static int tp_attach(struct ap_collector *c, struct aperture_bpf *skel,
		     struct ap_sensor *st)
{
	int n = c->opts.nr_tracepoints, i, err;
	struct tp_priv *p;

	if (!ap_tracefs()) {
		snprintf(st->reason, sizeof(st->reason),
			 "tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing");
		return -ENODEV;
	}
	if (!n) {
		snprintf(st->source, sizeof(st->source),
			 "tracefs: -e CATEGORY:NAME");
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->priv[ap_sensor_index(c, "tracepoint")] = p;
	for (i = 0; i < n; i++) {
		err = attach_one(c, skel, p, i, st);
		if (err) {
			tp_close(c);
			return err;
		}
	}
	if (n == 1)
		snprintf(st->source, sizeof(st->source), "%s",
			 c->opts.tracepoints[0]);
	else
		snprintf(st->source, sizeof(st->source),
			 "%d tracepoints: %.24s, ...", n,
			 c->opts.tracepoints[0]);
	return 0;
}

const struct ap_sensor_ops ap_sensor_tracepoint = {
	.name = "tracepoint",
	.tag = AP_TAG_TRACEPOINT,
	.prepare = tp_prepare,
	.attach = tp_attach,
	.close = tp_close,
};
