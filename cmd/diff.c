// SPDX-License-Identifier: GPL-2.0
/* aperture diff: compare two record files, as perf diff does. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report/diff.h"
#include "report/view.h"

struct diff_opts {
	const char *files[2];
	int nr_files;
	struct ap_cli_input src;	/* --events NULL: cpu, or the first */
	struct ap_report_opts r;
};

enum {
	OPT_FORMAT = 0x100,
	OPT_EVENTS,
	OPT_INLINE,
};

static const struct argp_option options[] = {
	{ "events", OPT_EVENTS, "VIEW", 0, "The view to compare: cpu (default when both files hold it), sched, lock, syscall, io, gpu or mem", 1 },
	{ "format", OPT_FORMAT, "FMT", 0, "table (default), json, folded (difffolded: stack OLD NEW) or svg (differential flame graph)", 1 },
	AP_CLI_LIMIT_OPTION(1),
	AP_CLI_USER_ONLY_OPTION(1),
	{ "inline", OPT_INLINE, NULL, 0, "Inlined functions get rows of their own (default: rows are ELF functions, as perf diff's)", 1 },
	AP_CLI_NO_INLINE_OPTION(1),
	AP_CLI_FILTER_OPTIONS(2),
	AP_CLI_HELP_OPTIONS,
	{ NULL },
};

static const char doc[] =
	"Compare two record files: per function (as the ELF symbol table names "
	"it: inlined code counts for the function it was inlined into), the "
	"share of self time in the old and the new recording and the change, sorted by the size of the "
	"change, as perf diff prints; or both recordings' stacks side by side "
	"for difffolded.pl, or a differential flame graph.  As perf diff, OLD "
	"defaults to aperture.data.old (what record kept of the previous "
	"recording) and NEW to aperture.data; 'aperture report --diff' does "
	"the same."
	"\v"
	"Examples:\n"
	"  aperture diff before.data after.data\n"
	"  aperture diff --events sched old.data new.data --limit 20\n"
	"  aperture diff old.data new.data --format svg > diff.svg\n"
	"  aperture diff old.data new.data --format folded | flamegraph.pl > diff.svg\n";

static const struct ap_cli_choice formats[] = {
	{ "table", AP_FMT_TABLE },
	{ "json", AP_FMT_JSON },
	{ "folded", AP_FMT_FOLDED },
	{ "svg", AP_FMT_SVG },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct diff_opts *o = state->input;

	switch (key) {
	case OPT_EVENTS:
		if (!ap_cli_view("diff", arg))
			exit(EXIT_USAGE);
		o->src.events = arg;
		break;
	case OPT_FORMAT:
		o->r.format = ap_cli_choose(state, "format", arg, formats);
		break;
	case OPT_INLINE:
		o->r.inline_rows = 1;
		break;
	case ARGP_KEY_ARG:
		if (o->nr_files == 2)
			ap_cli_usage_error(state, "unexpected argument '%s': give OLD and NEW",
					   arg);
		o->files[o->nr_files++] = arg;
		break;
	default:
		return ap_cli_read_key(key, arg, state, &o->r, &o->src);
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, "[OLD [NEW]]", doc };

int ap_cli_diff(const char *const files[2], const char *events,
		const struct ap_report_opts *r, int no_inline)
{
	struct ap_diff_side *old = NULL, *new = NULL;
	int err, ret = 1;

	old = ap_diff_side__load(files[0], events, r, no_inline);
	if (!old)
		goto out;
	/* the new file's view: the one the old file gave */
	new = ap_diff_side__load(files[1], ap_diff_side__view(old), r,
				 no_inline);
	if (!new)
		goto out;
	err = ap_diff__print(old, new, r->format, r->limit, stdout);
	if (err)
		ap_err("diff: %s", strerror(-err));
	else
		ret = 0;
out:
	ap_diff_side__free(old);
	ap_diff_side__free(new);
	return ret;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = { 0 };
	const char *files[2] = { "aperture.data.old", "aperture.data" };

	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS, NULL, &o);
	/* perf diff's defaults: one file is the old one */
	if (o.nr_files > 0)
		files[0] = o.files[0];
	if (o.nr_files > 1)
		files[1] = o.files[1];
	return ap_cli_diff(files, o.src.events, &o.r, o.src.no_inline);
}
