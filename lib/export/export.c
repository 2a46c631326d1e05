// SPDX-License-Identifier: GPL-2.0
/* The output formats of report, by name, and the exports' dispatch. */
#include "export/export.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "event/event.h"
#include "export/profile.h"
#include "report/view.h"

static const struct {
	const char *name;
	int fmt;
} formats[] = {
	{ "table", AP_FMT_TABLE },
	{ "folded", AP_FMT_FOLDED },
	{ "json", AP_FMT_JSON },
	{ "pprof", AP_FMT_PPROF },
	{ "speedscope", AP_FMT_SPEEDSCOPE },
	{ "svg", AP_FMT_SVG },
	{ "trace", AP_FMT_TRACE },
	{ "events", AP_FMT_EVENTS },
};

const char ap_format__names[] = "table, folded, json, pprof, speedscope, svg, trace, events";

int ap_format__parse(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return formats[i].fmt;
	return -EINVAL;
}

int ap_format__one_unit(int format)
{
	return format == AP_FMT_FOLDED || ap_format__is_export(format);
}

int ap_format__is_export(int format)
{
	return format == AP_FMT_PPROF || format == AP_FMT_SPEEDSCOPE ||
	       format == AP_FMT_SVG;
}

int ap_format__is_timed(int format)
{
	return format == AP_FMT_SPEEDSCOPE;
}

int ap_format__is_dump(int format)
{
	return format == AP_FMT_TRACE || format == AP_FMT_EVENTS ||
	       format == AP_FMT_JSONL;
}

int ap_format__is_binary(int format)
{
	return format == AP_FMT_PPROF;
}

void ap_export__no_common_unit(const char *fmt, const char *const *names,
			       int n)
{
	char buf[256];
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < sizeof(buf); i++) {
		const struct ap_event_kind *k = ap_event_kind__find(names[i]);

		off += snprintf(buf + off, sizeof(buf) - off, "%s%s (%s)",
				i ? (i == n - 1 ? " and " : ", ") : "",
				names[i],
				k ? ap_unit__name(k->folded_unit) : "?");
	}
	fprintf(stderr,
		"aperture: %s output of %s: no common unit, and not all of them are time; give --events with one of them\n",
		fmt, buf);
}

/* "CPU + syscall flame graph": every view's title (event.h), the first
 * capitalised; cpu and sched together are the wall-clock graph */
static void svg_title(const struct ap_profile *p, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	if (p->nr_views == 2 &&
	    ((!strcmp(p->views[0].name, "cpu") &&
	      !strcmp(p->views[1].name, "sched")) ||
	     (!strcmp(p->views[0].name, "sched") &&
	      !strcmp(p->views[1].name, "cpu")))) {
		snprintf(buf, len, "Wall-clock flame graph: on and off the CPU");
		return;
	}
	buf[0] = '\0';
	for (i = 0; i < p->nr_views && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? " + " : "",
				p->views[i].title ? p->views[i].title :
				p->views[i].name);
	if (off < len)
		snprintf(buf + off, len - off, "%sflame graph",
			 off ? " " : "");
	buf[0] = (char)toupper((unsigned char)buf[0]);
}

static int export_svg(const struct ap_profile *p,
		      const struct ap_export_opts *o, FILE *out)
{
	struct ap_svg_opts so = { .icicle = o->icicle, .subtitle = o->input };
	char title[256];
	int err;

	svg_title(p, title, sizeof(title));
	so.title = title;
	so.off_cpu = p->nr_views == 1 && !strcmp(p->views[0].name, "sched");
	err = ap_export_svg(p, NULL, &so, out);
	if (err == -EDOM) {
		const char *names[AP_PROF_MAX_VIEWS];
		int i;

		for (i = 0; i < p->nr_views; i++)
			names[i] = p->views[i].name;
		ap_export__no_common_unit("svg", names, p->nr_views);
	}
	return err == -EDOM ? 1 : err;
}

int ap_export__write(const struct ap_profile *p,
		     const struct ap_export_opts *o, FILE *out)
{
	switch (o->format) {
	case AP_FMT_PPROF:
		return ap_export_pprof(p, out);
	case AP_FMT_SPEEDSCOPE:
		return ap_export_speedscope(p, o->input, out);
	case AP_FMT_SVG:
		return export_svg(p, o, out);
	}
	return 0;
}
