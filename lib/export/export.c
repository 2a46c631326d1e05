// SPDX-License-Identifier: GPL-2.0
/* The output formats of report, by name. */
#include "export/export.h"

#include <errno.h>
#include <string.h>

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

int ap_format__is_dump(int format)
{
	return format == AP_FMT_TRACE || format == AP_FMT_EVENTS ||
	       format == AP_FMT_JSONL;
}

int ap_format__is_binary(int format)
{
	return format == AP_FMT_PPROF;
}
