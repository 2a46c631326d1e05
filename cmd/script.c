// SPDX-License-Identifier: GPL-2.0
/* aperture script: every event of a record file, one line each. */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "evdump.h"
#include "format.h"
#include "reader.h"
#include "session.h"
#include "symbolizer.h"
#include "view.h"

struct script_opts {
	const char *input;
	const char *events;		/* NULL: every event */
	int no_inline;
	struct ap_report_opts r;
};

enum {
	OPT_FORMAT = 0x100,
	OPT_EVENTS,
	OPT_PID,
	OPT_TID,
	OPT_COMM,
	OPT_USER_ONLY,
	OPT_NO_INLINE,
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "Read FILE (default: aperture.data)", 1 },
	{ "events", OPT_EVENTS, "LIST", 0, "Only these events (default: every event the file holds)", 1 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default, like perf script) or jsonl (one JSON object a line)", 1 },
	{ "user-only", OPT_USER_ONLY, NULL, 0, "Hide kernel frames", 1 },
	{ "no-inline", OPT_NO_INLINE, NULL, 0, "Do not expand inlined functions (skips loading DWARF)", 1 },
	{ NULL, 0, NULL, 0, "Filters:", 2 },
	{ "pid", OPT_PID, "PID[,PID..]", 0, "Only these processes", 2 },
	{ "tid", OPT_TID, "TID[,TID..]", 0, "Only these threads", 2 },
	{ "comm", OPT_COMM, "NAME", 0, "Only threads named NAME", 2 },
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

static int parse_ids(const char *arg, uint32_t *out, int max)
{
	char *dup = strdup(arg), *tok, *save = NULL;
	unsigned long long v;
	int n = 0;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max || ap_parse_u64(tok, 1, UINT32_MAX, &v)) {
			free(dup);
			return -EINVAL;
		}
		out[n++] = (uint32_t)v;
	}
	free(dup);
	return n ? n : -EINVAL;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct script_opts *o = state->input;
	int n;

	switch (key) {
	case 'i':
		o->input = arg;
		break;
	case OPT_EVENTS:
		o->events = arg;
		break;
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			o->r.format = AP_FMT_EVENTS;
		else if (!strcmp(arg, "jsonl"))
			o->r.format = AP_FMT_JSONL;
		else
			ap_cli_usage_error(state,
					   "unknown format '%s': give text or jsonl",
					   arg);
		break;
	case OPT_PID:
		n = parse_ids(arg, o->r.pids, AP_MAX_FILTER);
		if (n < 0)
			ap_cli_usage_error(state, "bad pid list '%s'", arg);
		o->r.nr_pids = n;
		break;
	case OPT_TID:
		n = parse_ids(arg, o->r.tids, AP_MAX_FILTER);
		if (n < 0)
			ap_cli_usage_error(state, "bad tid list '%s'", arg);
		o->r.nr_tids = n;
		break;
	case OPT_COMM:
		o->r.comm = arg;
		break;
	case OPT_USER_ONLY:
		o->r.user_only = 1;
		break;
	case OPT_NO_INLINE:
		o->no_inline = 1;
		break;
	case ARGP_KEY_ARG:
		ap_cli_usage_error(state, "unexpected argument '%s'", arg);
	default:
		return ap_cli_key(key, arg, state);
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, NULL, doc };

static void warn_cb(void *ctx, const char *msg)
{
	fprintf(stderr, "aperture: warning: %s\n", msg);
}

/* --events LIST into event bits; -1 (after saying so) on a bad name */
static int event_mask(const char *list, uint32_t *mask)
{
	char *dup = strdup(list), *tok, *save = NULL, names[256];
	int err = 0;

	if (!dup)
		return -1;
	for (tok = strtok_r(dup, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct ap_view_ops *v = ap_view__find(tok);

		if (!v) {
			fprintf(stderr,
				"aperture script: unknown event '%s'; valid events: %s\n",
				tok, ap_view__names(names, sizeof(names)));
			err = -1;
		} else {
			*mask |= AP_EVMASK(v->tag) | v->more_tags;
		}
	}
	free(dup);
	return err;
}

int cmd_script(int argc, char **argv)
{
	struct script_opts o = { .input = "aperture.data",
				 .r.format = AP_FMT_EVENTS };
	struct ap_symbolizer_opts so = { .warn = warn_cb, .no_srcline = 1 };
	struct ap_symbolizer *sym = NULL;
	struct ap_evsink *sink = NULL;
	struct ap_session *s = NULL;
	struct ap_reader *rd;
	struct ap_frame f;
	uint32_t mask = 0;
	char errbuf[512];
	int err, ret = 1;

	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS, NULL, &o);
	if (o.events && event_mask(o.events, &mask))
		return EXIT_USAGE;
	so.no_inline = o.no_inline;
	rd = ap_reader__open(o.input, &err, errbuf, sizeof(errbuf));
	if (!rd) {
		ap_err("%s", errbuf);
		return 1;
	}
	ap_reader__set_warn(rd, warn_cb, NULL);
	if (!o.events)
		mask = UINT32_MAX;
	sym = ap_symbolizer__new(&so);
	s = sym ? ap_session__new(sym) : NULL;
	sink = s ? ap_evsink__new(o.r.format, mask, &o.r, s, stdout) : NULL;
	if (!sink) {
		ap_err("out of memory");
		goto out;
	}
	while ((err = ap_reader__next(rd, &f)) > 0) {
		if (ap_session__feed(s, &f) != 1)
			continue;
		err = ap_evsink__event(sink, &f);
		if (err == -ENOMEM) {
			ap_err("out of memory");
			goto out;
		}
	}
	if (err < 0)
		ap_err("reading '%s': %s; printed what was read", o.input,
		       strerror(-err));
	if (ap_session__bad_frames(s))
		ap_warn("%" PRIu64 " frames did not decode and were skipped",
			ap_session__bad_frames(s));
	ret = ap_evsink__finish(sink) ? 1 : 0;
out:
	ap_evsink__free(sink);
	ap_session__free(s);
	ap_symbolizer__free(sym);
	ap_reader__close(rd);
	return ret;
}
