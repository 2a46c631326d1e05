// SPDX-License-Identifier: GPL-2.0
/* aperture annotate: a function's samples per instruction and source
 * line, as perf annotate --stdio prints them. */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "annotate/annotate.h"
#include "format/format.h"
#include "format/reader.h"
#include "record/bidcache.h"
#include "report/input.h"
#include "report/session.h"
#include "report/view.h"
#include "symbols/dwcache.h"
#include "symbols/symbolizer.h"
#include "util/escape.h"

struct annotate_opts {
	struct ap_cli_input src;
	struct ap_annotate_opts a;
	const char *symfs;
	const char *buildid_dir;	/* NULL: from the environment */
	struct ap_report_opts r;	/* the filters, --limit */
};

enum {
	OPT_STDIO = 0x100,
	OPT_NO_SOURCE,
	OPT_SYMFS,
	OPT_BUILDID_DIR,
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "Read FILE (default: aperture.data)", 1 },
	{ "symbol", 's', "NAME", 0, "Annotate the function NAME (its ELF or demangled name); default: the hottest ones", 1 },
	{ "limit", AP_OPT_LIMIT, "N", 0, "Without --symbol, annotate the N hottest functions (default: 3)", 1 },
	{ "no-source", OPT_NO_SOURCE, NULL, 0, "Disassembly only: no source lines, no summary of them", 1 },
	{ "stdio", OPT_STDIO, NULL, 0, "Print text (the only output; perf's spelling)", 1 },
	{ "symfs", OPT_SYMFS, "DIR", 0, "Look for the recorded files under DIR (a copy of the target's root)", 1 },
	{ "buildid-dir", OPT_BUILDID_DIR, "DIR", 0, "The build-id cache record kept files in (default: as record)", 1 },
	AP_CLI_FILTER_OPTIONS(2),
	AP_CLI_HELP_OPTIONS,
	{ NULL },
};

static const char doc[] =
	"Print where a function's CPU samples fell, as perf annotate --stdio "
	"does: each instruction of its code (read from the recorded file, "
	"or its copy in the build-id cache, and disassembled) with its share "
	"of the samples whose leaf is in the function, the source lines "
	"(DWARF; those of inlined functions marked) between them, and first "
	"a summary of the share of each source line.  Without --symbol, the "
	"hottest functions.  Kernel functions cannot be annotated: the "
	"recording holds no vmlinux."
	"\v"
	"Examples:\n"
	"  aperture annotate\n"
	"  aperture annotate -s hot_loop\n"
	"  aperture annotate -i cpu.data --stdio --symbol main --no-source\n";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct annotate_opts *o = state->input;

	switch (key) {
	case 's':
		o->a.symbol = arg;
		break;
	case OPT_NO_SOURCE:
		o->a.no_source = 1;
		break;
	case OPT_STDIO:
		break;
	case OPT_SYMFS:
		o->symfs = arg;
		break;
	case OPT_BUILDID_DIR:
		o->buildid_dir = arg;
		break;
	case ARGP_KEY_ARG:
		/* perf annotate [SYMBOL] */
		if (o->a.symbol)
			ap_cli_usage_error(state, "unexpected argument '%s': one symbol at a time",
					   arg);
		o->a.symbol = arg;
		break;
	default:
		return ap_cli_read_key(key, arg, state, &o->r, &o->src);
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, "[SYMBOL]", doc };

/* every CPU sample that passes the filters, into a */
static int collect(struct ap_input *in, const struct ap_report_opts *r,
		   struct ap_annotate *a, const char *path)
{
	struct ap_cpu_sample e;
	struct ap_frame f;
	int err;

	while ((err = ap_input__next(in, &f)) > 0) {
		if (f.tag != AP_TAG_CPU)
			continue;
		if (ap_cpu_sample__decode(f.payload, f.len, &e))
			continue;
		if (!ap_report_opts__match(r, in->s, e.pid, e.tid))
			continue;
		err = ap_annotate__sample(a, ap_session__event_as(in->s,
								  e.pid),
					  e.stack_id);
		if (err) {
			ap_err("%s", strerror(-err));
			return err;
		}
	}
	if (err < 0)
		ap_err("reading '%s': %s; annotating what was read", path,
		       strerror(-err));
	return 0;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_opts o = { .src.input = "aperture.data",
				   .r.limit = 3 };
	struct ap_symbolizer_opts so = { 0 };
	char bid_dir[AP_PATH_MAX], dw_dir[AP_PATH_MAX];
	struct ap_annotate *a = NULL;
	struct ap_input in;
	FILE *out = NULL;
	int err, ret = 1;

	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS, NULL, &o);
	o.a.limit = o.r.limit;
	/* the lines are what the DWARF is read for */
	so.no_srcline = o.a.no_source;
	so.no_inline = o.a.no_source;
	so.symfs = o.symfs;
	if (!ap_bidcache__dir(o.buildid_dir, bid_dir, sizeof(bid_dir)))
		so.buildid_dir = bid_dir;
	if (!ap_dwcache__dir(dw_dir, sizeof(dw_dir)))
		so.debug_cache = dw_dir;
	if (ap_input__open(&in, o.src.input, o.src.input_given ?
			   AP_INPUT_FIFO_OK : 0, &so))
		return 1;
	if (!(ap_reader__header(in.rd)->events_requested &
	      AP_EVMASK(AP_TAG_CPU))) {
		ap_err("'%s' holds no CPU samples (record -e cpu)",
		       o.src.input);
		goto out;
	}
	a = ap_annotate__new(in.s);
	if (!a) {
		ap_err("out of memory");
		goto out;
	}
	if (collect(&in, &o.r, a, o.src.input))
		goto out;
	/* names, paths and source text from the recording's files: the
	 * terminal takes none of their control characters */
	out = ap_escape_stream(stdout);
	if (!out) {
		ap_err("out of memory");
		goto out;
	}
	err = ap_annotate__print(a, &o.a, out);
	fclose(out);
	if (err && err != -ENOENT)
		ap_err("annotate: %s", strerror(-err));
	ret = err ? 1 : 0;
out:
	ap_annotate__free(a);
	ap_input__close(&in);
	return ret;
}
