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
	uint32_t fields;		/* AP_SF_* */
	int fields_given;
	struct ap_report_opts r;
};

enum {
	OPT_FORMAT = 0x100,
	OPT_SYMFS,
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "Read FILE (default: aperture.data)", 1 },
	{ "events", AP_OPT_EVENTS, "LIST", 0, "Only these events (default: every event the file holds)", 1 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default: perf script's) or jsonl (one JSON object a line)", 1 },
	{ "fields", 'F', "LIST", 0, "The text's fields, as perf script's -F: comm,pid,tid,cpu,time,period,event,trace,ip,sym,symoff,dso (the default: all), or +FIELD,-FIELD added to or taken from those", 1 },
	AP_CLI_USER_ONLY_OPTION(1),
	AP_CLI_NO_INLINE_OPTION(1),
	{ "symfs", OPT_SYMFS, "DIR", 0, "Look for the recorded files under DIR (a copy of the target's root)", 1 },
	AP_CLI_FILTER_OPTIONS(2),
	AP_CLI_HELP_OPTIONS,
	{ NULL },
};

static const char doc[] =
	"Print every event of a record file made by 'aperture record', one "
	"line each, in time order, in perf script's layout: command, "
	"pid/tid, CPU, time, period, the event and its fields, then its "
	"stack, so that what reads perf script's output reads it "
	"(stackcollapse-perf.pl, speedscope, the Firefox Profiler); "
	"--format jsonl for machines."
	"\v"
	"Examples:\n"
	"  aperture script\n"
	"  aperture script --events cpu | stackcollapse-perf.pl | flamegraph.pl >cpu.svg\n"
	"  aperture script -F comm,tid,time,event,trace --events syscall --pid 1234\n"
	"  aperture script --format jsonl | jq -c 'select(.event == \"lock\")'\n";

static const struct ap_cli_choice formats[] = {
	{ "text", AP_FMT_EVENTS },
	{ "jsonl", AP_FMT_JSONL },
	{ NULL },
};

/* perf script's -F names, in the order of the AP_SF_* bits */
static const char *const field_names[] = {
	"comm", "pid", "tid", "cpu", "time", "period", "event", "trace",
	"ip", "sym", "symoff", "dso",
};
#define NR_FIELDS (sizeof(field_names) / sizeof(field_names[0]))

/* -F LIST as perf script takes it: the fields to print, or each one
 * +FIELD or -FIELD, added to or taken from the default ones */
static uint32_t parse_fields(struct argp_state *state, const char *list)
{
	char *dup = strdup(list), *tok, *save = NULL;
	uint32_t set = 0, add = 0, del = 0;
	size_t i;

	if (!dup)
		ap_cli_usage_error(state, "out of memory");
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char sign = *tok == '+' || *tok == '-' ? *tok++ : 0;

		for (i = 0; i < NR_FIELDS; i++)
			if (!strcmp(tok, field_names[i]))
				break;
		if (i == NR_FIELDS)
			ap_cli_usage_error(state,
					   "unknown field '%s': give comm, pid, tid, cpu, time, period, event, trace, ip, sym, symoff or dso",
					   tok);
		if (sign == '+')
			add |= 1u << i;
		else if (sign == '-')
			del |= 1u << i;
		else
			set |= 1u << i;
	}
	free(dup);
	if (set && (add || del))
		ap_cli_usage_error(state,
				   "-F '%s': cannot mix +field or -field with a list of fields",
				   list);
	if (!set && !add && !del)
		ap_cli_usage_error(state, "-F: no field given");
	set = set ? set : (AP_SF_DEFAULT | add) & ~del;
	if ((set & AP_SF_SYMOFF) && !(set & AP_SF_SYM))
		ap_cli_usage_error(state,
				   "-F '%s': symoff needs sym, as in perf script",
				   list);
	return set;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct script_opts *o = state->input;

	switch (key) {
	case OPT_SYMFS:
		o->symfs = arg;
		break;
	case 'F':
		o->fields = parse_fields(state, arg);
		o->fields_given = 1;
		break;
	case ARGP_KEY_END:
		if (o->fields_given && o->r.format == AP_FMT_JSONL)
			ap_cli_usage_error(state,
					   "-F shapes the text: jsonl has every field");
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
				 .fields = AP_SF_DEFAULT,
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
	if (ap_input__open(&in, o.src.input, o.src.input_given ?
			   AP_INPUT_FIFO_OK : 0, &so))
		return 1;
	/* the period of CPU samples taken at a frequency */
	o.r.freq = ap_reader__header(in.rd)->freq;
	sink = ap_evsink__new(o.r.format, mask, &o.r, in.s, stdout, NULL);
	if (!sink) {
		ap_err("out of memory");
		goto out;
	}
	ap_evsink__set_fields(sink, o.fields);
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
