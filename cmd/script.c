// SPDX-License-Identifier: GPL-2.0
/* aperture script: every event of a record file, one line each. */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report/evdump.h"
#include "format/format.h"
#include "report/input.h"
#include "format/reader.h"
#include "report/session.h"
#include "symbols/symbolizer.h"
#include "report/view.h"

struct script_opts {
	struct ap_cli_input src;	/* --events NULL: every event */
	const char *symfs;
	struct ap_report_opts r;
};

enum {
	OPT_FORMAT = 0x100,
	OPT_SYMFS,
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "Read FILE (default: aperture.data)", 1 },
	{ "events", AP_OPT_EVENTS, "LIST", 0, "Only these events (default: every event the file holds)", 1 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default, like perf script) or jsonl (one JSON object a line)", 1 },
	AP_CLI_USER_ONLY_OPTION(1),
	AP_CLI_NO_INLINE_OPTION(1),
	{ "symfs", OPT_SYMFS, "DIR", 0, "Look for the recorded files under DIR (a copy of the target's root)", 1 },
	AP_CLI_FILTER_OPTIONS(2),
	AP_CLI_HELP_OPTIONS,
	{ NULL },
};

static const char doc[] =
	"Print every event of a record file made by 'aperture record', one "
	"line each, in time order: time, command, "
	"pid/tid, CPU, the event and its fields, then its stack, as perf "
	"script does; --format jsonl for machines."
	"\v"
	"Examples:\n"
	"  aperture script\n"
	"  aperture script --events syscall --pid 1234\n"
	"  aperture script --format jsonl | jq -c 'select(.event == \"lock\")'\n";

static const struct ap_cli_choice formats[] = {
	{ "text", AP_FMT_EVENTS },
	{ "jsonl", AP_FMT_JSONL },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct script_opts *o = state->input;

	switch (key) {
	case OPT_SYMFS:
		o->symfs = arg;
		break;
	case OPT_FORMAT:
		o->r.format = ap_cli_choose(state, "format", arg, formats);
		break;
	case ARGP_KEY_ARG:
		ap_cli_usage_error(state, "unexpected argument '%s'", arg);
	default:
		return ap_cli_read_key(key, arg, state, &o->r, &o->src);
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, NULL, doc };

/* --events LIST into event bits; -1 (after saying so) on a bad name */
static int event_mask(const char *list, uint32_t *mask)
{
	char *dup = strdup(list), *tok, *save = NULL;
	int err = 0;

	if (!dup)
		return -1;
	for (tok = strtok_r(dup, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct ap_view_ops *v = ap_cli_view("script", tok);

		if (!v)
			err = -1;
		else
			*mask |= AP_EVMASK(v->tag) | v->more_tags;
	}
	free(dup);
	return err;
}

int cmd_script(int argc, char **argv)
{
	struct script_opts o = { .src.input = "aperture.data",
				 .r.format = AP_FMT_EVENTS };
	struct ap_symbolizer_opts so = { .no_srcline = 1 };
	struct ap_evsink *sink = NULL;
	struct ap_input in;
	struct ap_frame f;
	uint32_t mask = 0;
	int err, ret = 1;

	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS, NULL, &o);
	if (o.src.events && event_mask(o.src.events, &mask))
		return EXIT_USAGE;
	if (!o.src.events)
		mask = UINT32_MAX;
	so.no_inline = o.src.no_inline;
	so.symfs = o.symfs;
	if (ap_input__open(&in, o.src.input, &so))
		return 1;
	sink = ap_evsink__new(o.r.format, mask, &o.r, in.s, stdout, NULL);
	if (!sink) {
		ap_err("out of memory");
		goto out;
	}
	while ((err = ap_input__next(&in, &f)) > 0) {
		err = ap_evsink__event(sink, &f);
		if (err == -ENOMEM) {
			ap_err("out of memory");
			goto out;
		}
	}
	if (err < 0)
		ap_err("reading '%s': %s; printed what was read", o.src.input,
		       strerror(-err));
	if (ap_session__bad_frames(in.s))
		ap_warn("%" PRIu64 " frames did not decode and were skipped",
			ap_session__bad_frames(in.s));
	ret = ap_evsink__finish(sink) ? 1 : 0;
out:
	ap_evsink__free(sink);
	ap_input__close(&in);
	return ret;
}
