// SPDX-License-Identifier: GPL-2.0
#include "report/viewset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/event.h"
#include "export/export.h"
#include "export/profile.h"
#include "format/format.h"
#include "report/view.h"
#include "util/num.h"

void ap_viewset__init(struct ap_viewset *vs, const char *cmd,
		      const struct ap_report_opts *o, struct ap_session *s)
{
	memset(vs, 0, sizeof(*vs));
	vs->cmd = cmd;
	vs->o = o;
	vs->s = s;
}

int ap_viewset__add(struct ap_viewset *vs, const char *name)
{
	const struct ap_view_ops *ops = ap_view__find(name);
	int i;

	if (!ops)
		return -ENOENT;
	for (i = 0; i < vs->nr; i++)
		if (vs->vi[i].ops == ops)
			return 0;
	if (vs->nr == AP_VIEWSET_MAX)
		return -E2BIG;
	vs->vi[vs->nr].ops = ops;
	vs->vi[vs->nr].v = ops->new(vs->o, vs->s);
	if (!vs->vi[vs->nr].v)
		return -ENOMEM;
	vs->nr++;
	return 0;
}

void ap_viewset__add_held(struct ap_viewset *vs, uint32_t held)
{
	uint32_t tag;

	for (tag = 0; tag < 32; tag++) {
		const char *name = ap_tag__name(tag);

		if ((held & AP_EVMASK(tag)) && name)
			ap_viewset__add(vs, name);
	}
	if (!vs->nr)
		ap_viewset__add(vs, "cpu");
}

/* "cpu, syscall": the events a file holds */
static void held_names(uint32_t mask, char *buf, size_t len)
{
	size_t off = 0;
	uint32_t tag;

	buf[0] = 0;
	for (tag = 0; tag < 32 && off < len; tag++)
		if ((mask & AP_EVMASK(tag)) && ap_tag__name(tag))
			off += snprintf(buf + off, len - off, "%s%s",
					off ? ", " : "", ap_tag__name(tag));
	if (!off)
		snprintf(buf, len, "no events");
}

int ap_viewset__select(struct ap_viewset *vs, const char *list,
		       const char *path, uint32_t held)
{
	char *dup = strdup(list), *tok, *save = NULL;
	char names[256];
	int missing = 0;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct ap_view_ops *ops = ap_view__find(tok);

		if (!ops) {
			fprintf(stderr,
				"aperture %s: unknown event '%s'; valid events: %s\n",
				vs->cmd, tok,
				ap_view__names(names, sizeof(names)));
			free(dup);
			return -EINVAL;
		}
		/* an empty table would look like nothing happened */
		if (!(held & AP_EVMASK(ops->tag))) {
			held_names(held, names, sizeof(names));
			fprintf(stderr,
				"aperture: '%s' holds no %s events (it holds: %s); record them with 'aperture record -e %s'\n",
				path, tok, names, tok);
			missing++;
			continue;
		}
		ap_viewset__add(vs, tok);
	}
	free(dup);
	return !vs->nr && missing ? -ENOENT : 0;
}

int ap_viewset__check_sort(const struct ap_viewset *vs)
{
	const struct ap_report_opts *o = vs->o;
	char can[64];
	size_t n;
	int i, k;

	for (i = 0; i < vs->nr; i++) {
		const struct ap_view_ops *ops = vs->vi[i].ops;
		int bad = -1;

		for (k = 0; k < o->nr_keys && o->sort_given; k++)
			if (!(ops->sort_keys & (1u << o->keys[k])))
				bad = o->keys[k];
		if (bad < 0 && !(o->order_given && !ops->sort_names))
			continue;
		for (n = 0, k = 0; k < AP_KEY_NR; k++)
			if (ops->sort_keys & (1u << k))
				n += snprintf(can + n, sizeof(can) - n, "%s%s",
					      n ? ", " : "", ap_key_names[k]);
		fprintf(stderr,
			"aperture %s: the %s view cannot sort by %s (%s%s); give --events with views that can\n",
			vs->cmd, ops->name, bad < 0 ? (o->top_sort ?
			"children" : "self") : ap_key_names[bad],
			n ? "its keys: " : "it takes none",
			n ? can : "");
		return -EINVAL;
	}
	return 0;
}

void ap_viewset__one_unit(struct ap_viewset *vs, const char *format_name)
{
	struct ap_view_inst *vi = vs->vi;
	char left[256];
	size_t off = 0;
	int keep = 0, i;

	if (vs->nr < 2)
		return;
	for (i = 0; i < vs->nr; i++)
		if (!strcmp(vi[i].ops->name, "cpu"))
			keep = i;
	left[0] = '\0';
	for (i = 0; i < vs->nr; i++) {
		if (i == keep)
			continue;
		if (off < sizeof(left))
			off += snprintf(left + off, sizeof(left) - off, "%s%s",
					off ? ", " : "", vi[i].ops->name);
		vi[i].ops->free(vi[i].v);
	}
	fprintf(stderr,
		"aperture %s: %s output holds one unit: wrote %s, left out %s; give --events NAME for one of them\n",
		vs->cmd, format_name, vi[keep].ops->name, left);
	vi[0] = vi[keep];
	vs->nr = 1;
}

int ap_viewset__folded_unit(const struct ap_viewset *vs,
			    struct ap_report_opts *o)
{
	struct ap_unit_pick pk[AP_VIEWSET_MAX];
	const char *names[AP_VIEWSET_MAX];
	int i, u;

	for (i = 0; i < vs->nr; i++) {
		const struct ap_event_kind *k =
			ap_event_kind__of_tag(vs->vi[i].ops->tag);

		pk[i].unit = k ? k->folded_unit : AP_UNIT_COUNT;
		/* samples are time at a known frequency */
		pk[i].time = ap_unit__is_time(pk[i].unit) &&
			     (pk[i].unit != AP_UNIT_SAMPLES || o->freq);
		names[i] = vs->vi[i].ops->name;
	}
	u = ap_unit__common(pk, vs->nr);
	if (u < 0) {
		ap_export__no_common_unit("folded", names, vs->nr);
		return u;
	}
	o->folded_us = u == AP_UNIT_TIME;
	return 0;
}

int ap_viewset__needs_inline(const struct ap_viewset *vs)
{
	int i;

	for (i = 0; i < vs->nr; i++)
		if (!vs->vi[i].ops->needs_inline ||
		    vs->vi[i].ops->needs_inline(vs->o))
			return 1;
	return 0;
}

uint32_t ap_viewset__tags(const struct ap_viewset *vs)
{
	uint32_t mask = 0;
	int i;

	for (i = 0; i < vs->nr; i++)
		mask |= AP_EVMASK(vs->vi[i].ops->tag) |
			vs->vi[i].ops->more_tags;
	return mask;
}

void ap_viewset__event(struct ap_viewset *vs, const struct ap_frame *f)
{
	int i;

	for (i = 0; i < vs->nr; i++)
		if (ap_view__wants(vs->vi[i].ops, f->tag))
			vs->vi[i].ops->event(vs->vi[i].v, f);
}

int ap_viewset__profile(const struct ap_viewset *vs, const char *format_name,
			int user_only, const struct ap_header *h,
			uint64_t duration_ns, struct ap_profile *p)
{
	int i, err = 0;

	ap_profile__init(p, vs->s);
	p->user_only = user_only;
	p->start_ns = h->start_mono_ns;
	p->wall_start_ns = h->start_mono_ns + h->mono_to_real_ns;
	/* as the views' durations: what an output's weight holds */
	p->duration_ns = duration_ns < (uint64_t)AP_WEIGHT_MAX ?
			 duration_ns : (uint64_t)AP_WEIGHT_MAX;
	_Static_assert(AP_PROF_BUILD_ID_MAX == AP_BUILD_ID_MAX,
		       "the profile holds the file's build-ids");
	memcpy(p->kernel_build_id, h->kernel_build_id,
	       sizeof(p->kernel_build_id));
	p->kernel_build_id_len = h->kernel_build_id_len;
	p->labels = h->labels;
	for (i = 0; i < vs->nr && !err; i++) {
		if (!vs->vi[i].ops->profile) {
			fprintf(stderr,
				"aperture: the %s view has no %s output yet; give --events with other views\n",
				vs->vi[i].ops->name, format_name);
			err = -EINVAL;
		} else {
			err = vs->vi[i].ops->profile(vs->vi[i].v, p);
		}
	}
	if (err)
		ap_profile__free(p);
	return err;
}

int ap_viewset__export(const struct ap_viewset *vs,
		       const struct ap_export_opts *eo,
		       const struct ap_header *h, uint64_t duration_ns)
{
	struct ap_profile p;
	int err;

	err = ap_viewset__profile(vs, eo->format_name, eo->user_only, h,
				  duration_ns, &p);
	if (err)
		return err;
	err = ap_export__write(&p, eo, stdout);
	if (err < 0)
		fprintf(stderr, "aperture: writing the %s output: %s\n",
			eo->format_name, strerror(-err));
	ap_profile__free(&p);
	return err;
}

void ap_viewset__free(struct ap_viewset *vs)
{
	int i;

	for (i = 0; i < vs->nr; i++)
		vs->vi[i].ops->free(vs->vi[i].v);
	vs->nr = 0;
}
