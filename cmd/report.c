// SPDX-License-Identifier: GPL-2.0
/* aperture report: read a record file and print what it holds. */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "util/escape.h"
#include "util/num.h"
#include "report/evdump.h"
#include "report/header.h"
#include "report/opts.h"
#include "report/ttycut.h"
#include "export/export.h"
#include "format/format.h"
#include "report/input.h"
#include "format/reader.h"
#include "report/session.h"
#include "record/bidcache.h"
#include "symbols/debuginfod.h"
#include "symbols/dwcache.h"
#include "symbols/symbolizer.h"
#include "lock/codec.h"
#include "report/view.h"
#include "report/viewset.h"

struct report_opts {
	struct ap_cli_input src;	/* -i, --events, --no-inline */
	int no_demangle, no_params;
	int icicle;
	const char *symfs;
	const char *buildid_dir;	/* NULL: from the environment */
	int no_debuginfod;
	struct ap_debuginfod_opts dio;	/* 0: from the environment */
	int no_debug_cache;
	/* fields 0: from the environment */
	struct ap_dwcache_limits debug_limits;
	int verbose;
	const char *format_name;	/* as given to --format */
	const char *diff;		/* --diff: the old file */
	int g_bare;			/* -g came without its order */
	int quiet;			/* -q: no header, no warnings */
	int header;			/* --header: the header whole */
	int header_only;		/* --header-only */
	struct ap_report_opts r;
};

enum {
	OPT_FORMAT = 0x100,
	OPT_SORT,
	OPT_NO_CHILDREN,
	OPT_PER_THREAD,
	OPT_LOCK_CLASS,
	OPT_ERRORS,
	OPT_HIST,
	OPT_INLINE,
	OPT_NO_DEMANGLE,
	OPT_NO_PARAMS,
	OPT_PERCENTAGE,
	OPT_PERCENT_LIMIT,
	OPT_ICICLE,
	OPT_SYMFS,
	OPT_BUILDID_DIR,
	OPT_FOLDED_SRCLINE,
	OPT_NO_DEBUGINFOD,
	OPT_DEBUGINFOD_TIME,
	OPT_DEBUGINFOD_SIZE,
	OPT_NO_DEBUG_CACHE,
	OPT_DEBUG_CACHE_SIZE,
	OPT_DEBUG_CACHE_FILES,
	OPT_DEBUG_INFLATE,
	OPT_DIFF,
	OPT_TIME,
	OPT_STDIO,
	OPT_HEADER,
	OPT_HEADER_ONLY,
	OPT_CHILDREN,
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "Read FILE (default: aperture.data); - for standard input", 1 },
	{ "events", AP_OPT_EVENTS, "LIST", 0, "Views to print (default: every event the file holds)", 1 },
	{ "diff", OPT_DIFF, "OLD", OPTION_ARG_OPTIONAL, "Compare with OLD (default: aperture.data.old) as 'aperture diff OLD FILE' does: --events VIEW, --format table, json, folded or svg", 1 },
	{ NULL, 0, NULL, 0, "Output:", 2 },
	{ "format", OPT_FORMAT, "FMT", 0, "table (default), folded (flamegraph.pl input), json, pprof (gzipped profile.proto), speedscope, svg (flame graph), trace (Perfetto timeline), events (one line per event)", 2 },
	{ "icicle", OPT_ICICLE, NULL, 0, "svg: roots at the top (an icicle graph)", 2 },
	{ "sort", 's', "KEYS", 0, "Row keys, comma-separated: comm, pid, tid, cpu, dso, sym (or symbol), srcline (file:line) (default: comm,dso,sym); children or self among them orders cpu rows (default: self); syscall takes pid (a table per process) and tid; a key a view shown cannot take is an error", 2 },
	{ "folded-srcline", OPT_FOLDED_SRCLINE, NULL, 0, "folded: frames as 'sym (file.c:12)' where the line is known", 2 },
	{ "call-graph", 'g', "ORDER", OPTION_ARG_OPTIONAL, "cpu: a call graph under each row: callee (default: the row's callers, up to the roots) or caller (what the row calls; for its self samples, the chain from the root), or perf's graph,MIN,ORDER (none: no graph)", 2 },
	{ "inverted", 'G', NULL, 0, "cpu: the call graph in caller order (as -g caller)", 2 },
	{ "show-nr-samples", 'n', NULL, 0, "cpu: a Samples column (sample counts)", 2 },
	{ "percent-limit", OPT_PERCENT_LIMIT, "PCT", 0, "cpu: only rows with at least PCT percent (children, else self)", 2 },
	AP_CLI_LIMIT_OPTION(2),
	{ "no-children", OPT_NO_CHILDREN, NULL, 0, "Omit the inclusive (children) column", 2 },
	{ "children", OPT_CHILDREN, NULL, 0, "The inclusive (children) column, rows in its order (the default, as perf's)", 2 },
	{ "stdio", OPT_STDIO, NULL, 0, "The table on standard output (the default; perf's spelling)", 2 },
	{ "quiet", 'q', NULL, 0, "No header lines and no warnings", 2 },
	{ "header", OPT_HEADER, NULL, 0, "The header whole: every unwinding fallback and failure by reason", 2 },
	{ "header-only", OPT_HEADER_ONLY, NULL, 0, "The whole header alone", 2 },
	AP_CLI_USER_ONLY_OPTION(2),
	AP_CLI_NO_INLINE_OPTION(2),
	{ "inline", OPT_INLINE, NULL, 0, "cpu: inlined functions get rows of their own (default: rows are ELF functions)", 2 },
	{ "no-demangle", OPT_NO_DEMANGLE, NULL, 0, "Print C++ names as the symbol table has them", 2 },
	{ "no-params", OPT_NO_PARAMS, NULL, 0, "C++ names without their parameter lists", 2 },
	{ "symfs", OPT_SYMFS, "DIR", 0, "Look for the recorded files under DIR (a copy of the target's root)", 2 },
	{ "buildid-dir", OPT_BUILDID_DIR, "DIR", 0, "The build-id cache record kept files in (default: as record)", 2 },
	{ "no-debuginfod", OPT_NO_DEBUGINFOD, NULL, 0, "Ask no debuginfod server, even with DEBUGINFOD_URLS set", 2 },
	{ "debuginfod-time", OPT_DEBUGINFOD_TIME, "SECONDS", 0, "Give the debuginfod servers SECONDS in all (default DEBUGINFOD_MAXTIME, else 60); then nothing more is asked", 2 },
	{ "debuginfod-size", OPT_DEBUGINFOD_SIZE, "SIZE", 0, "Download at most SIZE bytes in all from the debuginfod servers (K, M, G; default DEBUGINFOD_MAXSIZE, else 1G)", 2 },
	{ "no-debug-cache", OPT_NO_DEBUG_CACHE, NULL, 0, "Read compressed separate debug files as they are, not through the uncompressed copies kept in ~/.cache/aperture/debug (as APERTURE_DEBUG_CACHE=off)", 2 },
	{ "debug-cache-size", OPT_DEBUG_CACHE_SIZE, "SIZE", 0, "The debug cache's entries take at most SIZE bytes in all (K, M, G; default 2G, or APERTURE_DEBUG_CACHE_SIZE), the least recently used removed to make room", 2 },
	{ "debug-cache-files", OPT_DEBUG_CACHE_FILES, "N", 0, "At most N entries in the debug cache (default 100, or APERTURE_DEBUG_CACHE_FILES)", 2 },
	{ "debug-inflate", OPT_DEBUG_INFLATE, "SIZE", 0, "Inflate at most SIZE bytes of compressed DWARF in all, into the debug cache or by libdw (default 1G, or APERTURE_DEBUG_INFLATE); a debug file that would take more keeps its ELF symbols only", 2 },
	{ "verbose", 'v', NULL, 0, "Say on standard error what symbolizing read: modules, those whose DWARF was read with its size and the bytes inflated, the debug cache's work and the debug files refused", 2 },
	{ "per-thread", OPT_PER_THREAD, NULL, 0, "syscall, lock: split by thread (syscall: a table per thread; lock: a row per lock and thread)", 2 },
	{ "lock-class", OPT_LOCK_CLASS, "LIST", 0, "lock: futex waits shown, comma-separated mutex, cond, join, other or all (default mutex)", 2 },
	{ "errors", OPT_ERRORS, NULL, 0, "syscall: errno breakdown per syscall", 2 },
	{ "hist", OPT_HIST, NULL, 0, "syscall: log2 latency histogram per syscall", 2 },
	AP_CLI_FILTER_OPTIONS(3),
	{ "dsos", 'd', "LIST", 0, "cpu: only rows of these shared objects (as the table names them, or a path), comma-separated", 3 },
	{ "symbols", 'S', "LIST", 0, "cpu: only rows of these symbols, comma-separated", 3 },
	{ "time", OPT_TIME, "START,END", 0, "cpu: only samples taken from START to END, in seconds as 'aperture script' prints them (either may be left out)", 3 },
	{ "percentage", OPT_PERCENTAGE, "HOW", 0, "cpu: filtered percentages of all samples (absolute, default) or of the filtered ones (relative)", 3 },
	AP_CLI_HELP_OPTIONS,
	{ NULL },
};

static const char doc[] =
	"Read a record file made by 'aperture record' and print where the "
	"time went: a table like perf report (self and children overhead), "
	"folded stacks for flame graphs, or JSON."
	"\v"
	"Examples:\n"
	"  aperture report\n"
	"  aperture report --sort comm,sym --limit 20\n"
	"  aperture report --format folded | flamegraph.pl > cpu.svg\n"
	"  aperture report -i old.data --format json --pid 1234\n"
	"  aperture report --diff=before.data -i after.data\n";

/* -g SPEC: perf's callchain specification (lib/report/opts.h) */
static void call_graph(struct argp_state *state, struct report_opts *o,
		       const char *arg)
{
	char note[128];

	if (ap_report_opts__call_graph(&o->r, arg, note, sizeof(note)))
		ap_cli_usage_error(state,
				   "bad --call-graph '%s': give callee or caller, or perf's graph,MIN,ORDER (none: no graph)",
				   arg);
	if (note[0])
		ap_warn("%s", note);
}

/* a bound's option: a size (is_size) or a whole number, from 1 */
static void parse_bound(struct argp_state *state, const char *opt,
			int is_size, const char *arg, uint64_t *out)
{
	unsigned long long n;

	if (is_size ? ap_parse_size(arg, 1, UINT64_MAX, out) :
		      ap_parse_u64(arg, 1, 1000000, &n))
		ap_cli_usage_error(state, "bad --%s '%s': give %s", opt, arg,
				   is_size ? "a size in bytes, or with K, M or G" :
				   "a whole number from 1 to 1000000");
	if (!is_size)
		*out = n;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;
	char *end;
	int n;

	switch (key) {
	case OPT_FORMAT:
		o->r.format = ap_format__parse(arg);
		o->format_name = arg;
		if (o->r.format < 0)
			ap_cli_usage_error(state, "unknown format '%s': give %s",
					   arg, ap_format__names);
		break;
	case 'n':
		o->r.show_samples = 1;
		break;
	case OPT_PERCENT_LIMIT:
		errno = 0;
		o->r.percent_limit = strtod(arg, &end);
		if (errno || *end || end == arg || o->r.percent_limit < 0 ||
		    o->r.percent_limit > 100)
			ap_cli_usage_error(state,
					   "bad --percent-limit '%s': give 0 to 100",
					   arg);
		break;
	case 's':
		if (ap_report_opts__sort(&o->r, arg))
			ap_cli_usage_error(state,
					   "bad sort keys '%s': give comma-separated comm, pid, tid, cpu, dso, sym, srcline, and children or self",
					   arg);
		break;
	case 'g':
		/* "-g caller" as perf users spell it: report takes no
		 * other argument, so the specification may follow */
		o->g_bare = !arg;
		call_graph(state, o, arg);
		break;
	case 'G':
		o->r.call_graph = AP_CG_CALLER;
		break;
	case 'd':
		if (ap_report_opts__names(arg, o->r.dsos, &o->r.nr_dsos,
					  AP_MAX_FILTER))
			ap_cli_usage_error(state,
					   "bad --dsos '%s': give up to %d comma-separated names",
					   arg, AP_MAX_FILTER);
		break;
	case 'S':
		if (ap_report_opts__names(arg, o->r.symbols,
					  &o->r.nr_symbols, AP_MAX_FILTER))
			ap_cli_usage_error(state,
					   "bad --symbols '%s': give up to %d comma-separated names",
					   arg, AP_MAX_FILTER);
		break;
	case OPT_TIME:
		n = ap_report_opts__time(arg, &o->r.time_lo, &o->r.time_hi);
		if (n == -ERANGE)
			ap_cli_usage_error(state,
					   "bad --time '%s': END is before START",
					   arg);
		if (n)
			ap_cli_usage_error(state,
					   "bad --time '%s': give START,END in seconds (START, or ,END for an open end)",
					   arg);
		break;
	case OPT_NO_CHILDREN:
		o->r.no_children = 1;
		break;
	case OPT_CHILDREN:
		o->r.no_children = 0;
		break;
	case OPT_STDIO:
		break;
	case 'q':
		o->quiet = 1;
		break;
	case OPT_HEADER:
		o->header = 1;
		break;
	case OPT_HEADER_ONLY:
		o->header = o->header_only = 1;
		break;
	case OPT_INLINE:
		o->r.inline_rows = 1;
		break;
	case OPT_NO_DEMANGLE:
		o->no_demangle = 1;
		break;
	case OPT_NO_PARAMS:
		o->no_params = 1;
		break;
	case OPT_PERCENTAGE:
		if (!strcmp(arg, "relative"))
			o->r.pct_relative = 1;
		else if (!strcmp(arg, "absolute"))
			o->r.pct_relative = 0;
		else
			ap_cli_usage_error(state,
					   "bad --percentage '%s': give relative or absolute",
					   arg);
		break;
	case OPT_ICICLE:
		o->icicle = 1;
		break;
	case OPT_FOLDED_SRCLINE:
		o->r.folded_srcline = 1;
		break;
	case OPT_SYMFS:
		o->symfs = arg;
		break;
	case OPT_BUILDID_DIR:
		o->buildid_dir = arg;
		break;
	case OPT_NO_DEBUGINFOD:
		o->no_debuginfod = 1;
		break;
	case OPT_DEBUGINFOD_TIME:
		parse_bound(state, "debuginfod-time", 0, arg, &o->dio.time);
		break;
	case OPT_DEBUGINFOD_SIZE:
		parse_bound(state, "debuginfod-size", 1, arg, &o->dio.size);
		break;
	case 'v':
		o->verbose = 1;
		break;
	case OPT_NO_DEBUG_CACHE:
		o->no_debug_cache = 1;
		break;
	case OPT_DEBUG_CACHE_SIZE:
		parse_bound(state, "debug-cache-size", 1, arg,
			    &o->debug_limits.size);
		break;
	case OPT_DEBUG_INFLATE:
		parse_bound(state, "debug-inflate", 1, arg,
			    &o->debug_limits.inflate);
		break;
	case OPT_DEBUG_CACHE_FILES:
		parse_bound(state, "debug-cache-files", 0, arg,
			    &o->debug_limits.files);
		break;
	case OPT_PER_THREAD:
		o->r.per_thread = 1;
		break;
	case OPT_LOCK_CLASS:
		if (ap_lock__parse_classes(arg, &o->r.lock_classes))
			ap_cli_usage_error(state,
					   "bad --lock-class '%s': give comma-separated mutex, cond, join, other or all",
					   arg);
		break;
	case OPT_ERRORS:
		o->r.errors = 1;
		break;
	case OPT_HIST:
		o->r.hist = 1;
		break;
	case OPT_DIFF:
		o->diff = arg ? arg : "aperture.data.old";
		break;
	case ARGP_KEY_ARG:
		if (o->g_bare) {
			o->g_bare = 0;
			call_graph(state, o, arg);
			return 0;
		}
		ap_cli_usage_error(state, "unexpected argument '%s'", arg);
	default:
		return ap_cli_read_key(key, arg, state, &o->r, &o->src);
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, NULL, doc };

/* --diff[=OLD]: aperture diff OLD FILE */
static int report_diff(struct report_opts *o)
{
	const char *files[2] = { o->diff, o->src.input };

	switch (o->r.format) {
	case AP_FMT_TABLE:
	case AP_FMT_JSON:
	case AP_FMT_FOLDED:
	case AP_FMT_SVG:
		break;
	default:
		fprintf(stderr, "aperture report: --diff prints table, json, folded or svg, not %s\n",
			o->format_name);
		return EXIT_USAGE;
	}
	return ap_cli_diff(files, o->src.events, &o->r, o->src.no_inline);
}

/* the symbolizer's options: what the output shows; EXIT_USAGE, said,
 * for a combination that makes no sense */
static int symbolizer_opts(struct report_opts *o,
			   struct ap_symbolizer_opts *so, char *bid_dir,
			   char *dw_dir)
{
	const char *bad;
	int i;

	so->no_inline = o->src.no_inline;
	so->no_demangle = o->no_demangle;
	so->no_params = o->no_params;
	/* pprof and JSON carry source lines; tables print them as a sort
	 * key, folded lines when asked */
	so->no_srcline = o->r.format != AP_FMT_PPROF &&
			 o->r.format != AP_FMT_JSON && !o->r.folded_srcline;
	for (i = 0; i < o->r.nr_keys; i++)
		if (o->r.keys[i] == AP_KEY_SRCLINE)
			so->no_srcline = 0;
	if (o->r.folded_srcline && o->r.format != AP_FMT_FOLDED) {
		ap_err("--folded-srcline needs --format folded");
		return EXIT_USAGE;
	}
	if (ap_format__is_binary(o->r.format) && isatty(STDOUT_FILENO)) {
		ap_err("%s output is binary: redirect it to a file",
		       o->format_name);
		return EXIT_USAGE;
	}
	so->symfs = o->symfs;
	/* libdw and lib/symbols/debuginfod.c both ask the servers this names */
	if (o->no_debuginfod)
		unsetenv("DEBUGINFOD_URLS");
	o->dio.progress = !o->quiet;
	ap_debuginfod__setup(&o->dio);
	if (!ap_bidcache__dir(o->buildid_dir, bid_dir, AP_PATH_MAX))
		so->buildid_dir = bid_dir;
	if (!o->no_debug_cache && !ap_dwcache__dir(dw_dir, AP_PATH_MAX))
		so->debug_cache = dw_dir;
	so->debug_limits = o->debug_limits;
	if (ap_dwcache__limits(&so->debug_limits, &bad)) {
		ap_err("bad %s='%s': give %s", bad, getenv(bad),
		       strcmp(bad, "APERTURE_DEBUG_CACHE_FILES") ?
		       "a size in bytes, or with K, M or G" :
		       "a count from 1 to 1000000");
		return EXIT_USAGE;
	}
	return 0;
}

static void no_warning(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

/* the event dumps' sink (--format trace: to the timeline writer) */
static struct ap_evsink *dump_sink(const struct report_opts *o,
				   const struct ap_viewset *vs,
				   struct ap_session *s)
{
	uint32_t mask = ap_viewset__tags(vs);
	struct ap_evout to;

	if (o->r.format != AP_FMT_TRACE)
		return ap_evsink__new(o->r.format, mask, &o->r, s, stdout,
				      NULL);
	if (ap_trace__evout(s, o->r.user_only, stdout, &to))
		return NULL;
	return ap_evsink__new(o->r.format, mask, &o->r, s, stdout, &to);
}

/* -q: a view's table without its '#' lines, as perf report -q */
static void print_quiet(const struct ap_view_ops *ops, void *v, FILE *out)
{
	char *buf = NULL, *line, *nl;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		return;
	ops->print(v, mem);
	fclose(mem);
	for (line = buf; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (*line != '#')
			fwrite(line, 1, nl ? (size_t)(nl - line + 1) :
			       strlen(line), out);
	}
	free(buf);
}

/* tables, folded lines and JSON */
static int print_views(struct report_opts *o, struct ap_viewset *vs,
		       struct ap_input *in, const struct ap_read_stats *st)
{
	const struct ap_header *h = ap_reader__header(in->rd);
	struct ap_tty_cut tc = { 0 };
	FILE *out = stdout;
	int i;

	/* tables and folded lines: names from other users, escaped */
	if (o->r.format != AP_FMT_JSON) {
		out = ap_escape_stream(ap_tty_cut__open(&tc, o->r.max_width));
		if (!out) {
			ap_err("out of memory");
			return 1;
		}
	}
	switch (o->r.format) {
	case AP_FMT_JSON:
		fputs("{\n", stdout);
		ap_report_header__json(stdout, h, st, in->s);
		for (i = 0; i < vs->nr; i++) {
			fprintf(stdout, ",\n  \"%s\": ", vs->vi[i].ops->name);
			vs->vi[i].ops->print(vs->vi[i].v, stdout);
		}
		fputs("\n}\n", stdout);
		break;
	case AP_FMT_FOLDED:
		for (i = 0; i < vs->nr; i++)
			vs->vi[i].ops->print(vs->vi[i].v, out);
		break;
	default:
		if (!o->quiet)
			ap_report_header__table(out, strcmp(o->src.input, "-") ?
						o->src.input :
						"standard input", h, st, in->s,
						o->header || o->verbose);
		for (i = 0; i < vs->nr && !o->header_only; i++) {
			if (i && !o->quiet)
				fputc('\n', out);
			if (o->quiet)
				print_quiet(vs->vi[i].ops, vs->vi[i].v, out);
			else
				vs->vi[i].ops->print(vs->vi[i].v, out);
		}
	}
	if (out != stdout)
		fclose(out);
	ap_tty_cut__close(&tc);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .src.input = "aperture.data",
				 .format_name = "table" };
	struct ap_viewset vs = { 0 };
	const struct ap_read_stats *st;
	const struct ap_header *h;
	/* source lines only for an output that prints them: .debug_line of
	 * a big library is costly to inflate */
	struct ap_symbolizer_opts so = { .no_srcline = 1 };
	struct ap_evsink *sink = NULL;
	struct ap_input in = { 0 };
	struct ap_frame f;
	char bid_dir[AP_PATH_MAX], dw_dir[AP_PATH_MAX];
	int err, ret = 1;

	o.r.keys[0] = AP_KEY_COMM;
	o.r.keys[1] = AP_KEY_DSO;
	o.r.keys[2] = AP_KEY_SYM;
	o.r.nr_keys = 3;
	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS, NULL, &o);
	if (o.diff)
		return report_diff(&o);
	err = symbolizer_opts(&o, &so, bid_dir, dw_dir);
	if (err)
		return err;
	if (o.quiet)
		so.warn = no_warning;
	/* as perf: rows in children order where the column is shown */
	if (!o.r.order_given && !o.r.no_children)
		o.r.top_sort = 1;
	if (ap_input__open(&in, o.src.input, o.src.input_given ?
			   AP_INPUT_FIFO_OK : 0, &so))
		return 1;
	h = ap_reader__header(in.rd);
	ap_session__escape_names(in.s, o.r.format != AP_FMT_JSON);
	ap_viewset__init(&vs, "report", &o.r, in.s);

	if (o.src.events) {
		err = ap_viewset__select(&vs, o.src.events, o.src.input,
					 h->events_requested);
		if (err == -EINVAL)
			ret = EXIT_USAGE;
		if (err)
			goto out;
	} else {
		ap_viewset__add_held(&vs, h->events_requested);
		if (ap_format__one_unit(o.r.format))
			ap_viewset__one_unit(&vs, o.format_name);
	}
	if ((o.r.format == AP_FMT_TABLE || o.r.format == AP_FMT_JSON) &&
	    ap_viewset__check_sort(&vs)) {
		ret = EXIT_USAGE;
		goto out;
	}
	/* several views folded together: one unit (cpu and sched: a
	 * wall-clock graph, CPU samples turned into microseconds like the
	 * off-CPU time) */
	o.r.freq = h->freq;
	if (o.r.format == AP_FMT_FOLDED && ap_viewset__folded_unit(&vs, &o.r))
		goto out;

	/* inline frames need DWARF, inflated whole when compressed (big
	 * separate debug info): only when an output shows them */
	if (!ap_format__is_dump(o.r.format) && !o.src.no_inline &&
	    !ap_viewset__needs_inline(&vs))
		ap_symbolizer__set_no_inline(in.sym, 1);
	if (ap_format__is_dump(o.r.format)) {
		sink = dump_sink(&o, &vs, in.s);
		if (!sink) {
			ap_err("out of memory");
			goto out;
		}
	}
	while ((err = ap_input__next(&in, &f)) > 0) {
		/* the event dumps: every event, in file order */
		if (sink && ap_evsink__event(sink, &f) == -ENOMEM)
			break;
		if (!sink)
			ap_viewset__event(&vs, &f);
	}
	if (err < 0) {
		ap_err("reading '%s': %s; reporting what was read",
		       o.src.input, strerror(-err));
	}
	st = ap_reader__stats(in.rd);
	if (ap_session__bad_frames(in.s))
		ap_warn("%" PRIu64 " frames did not decode and were skipped",
			ap_session__bad_frames(in.s));

	/* a table on a terminal is cut to its width, once escaped */
	if (o.r.format == AP_FMT_TABLE)
		o.r.max_width = ap_tty_cut__width();
	if (sink) {
		ret = ap_evsink__finish(sink) ? 1 : 0;
	} else if (ap_format__is_export(o.r.format)) {
		struct ap_export_opts eo = {
			.format = o.r.format,
			.format_name = o.format_name,
			.input = o.src.input,
			.icicle = o.icicle,
			.user_only = o.r.user_only,
		};
		uint64_t ns = ap_report_header__duration_ns(h, st, in.s);

		ret = ap_viewset__export(&vs, &eo, h, ns) ? 1 : 0;
	} else {
		ret = print_views(&o, &vs, &in, st);
	}
out:
	if (o.verbose)
		ap_input__print_stats(&in, "report", stderr);
	ap_evsink__free(sink);
	ap_viewset__free(&vs);
	ap_input__close(&in);
	return ret;
}
