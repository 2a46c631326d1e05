// SPDX-License-Identifier: GPL-2.0
/* aperture stat: count events of a command, processes or the system. */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "format/format.h"
#include "stat/counters.h"
#include "stat/ksums.h"
#include "stat/session.h"
#include "util/num.h"

struct stat_opts {
	struct ap_stat_counters counters;
	struct ap_stat_ksums ksums;
	int events_given;
	pid_t pids[AP_CLI_MAX_PIDS];
	int nr_pids;
	pid_t tids[AP_CLI_MAX_PIDS];
	int nr_tids;
	int system_wide;
	unsigned int interval_ms;
	unsigned int runs;
	const char *sep;
	const char *output;
	char **cmd;
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Targets:", 1 },
	{ "pid", 'p', "PID[,PID..]", 0, "Count these processes, all their threads and what they fork", 1 },
	{ "tid", 't', "TID[,TID..]", 0, "Count these threads and what they fork", 1 },
	{ "all-cpus", 'a', NULL, 0, "Count system-wide, on every CPU", 1 },
	{ NULL, 0, NULL, 0, "What to count:", 2 },
	{ "event", 'e', "LIST", 0, "Comma-separated events to count, NAME[:u|:k], or syscall, io, sched, lock (default: task-clock, context-switches, cpu-migrations, page-faults, and cycles, instructions, branches and branch-misses where there is a PMU)", 2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "interval-print", 'I', "MS", 0, "Print the counts of every MS milliseconds (at least 10) as they end", 3 },
	{ "repeat", 'r', "N", 0, "Run the command N times: the means, and their spread as +- x.xx%", 3 },
	{ "field-separator", 'x', "SEP", 0, "CSV: value, unit, event, [spread,] run time, percentage running, metric value, metric unit, separated by SEP", 3 },
	{ "output", 'o', "FILE", 0, "Write the counts to FILE (default: standard error, as perf)", 3 },
	AP_CLI_HELP_OPTIONS,
	{ NULL },
};

static const char doc[] =
	"Count events of a command, of running processes or threads, or of "
	"the whole system, as perf stat: perf_event_open counting events, "
	"read at the end (or every -I MS).\n\n"
	"Counting ends when the command exits (its exit status is aperture's "
	"own), or, without a command, on Ctrl-C, SIGTERM, SIGHUP or when "
	"every target has exited.  With -p, -t or -a, a command only says how "
	"long to count.\n\n"
	"Events (-e):\n"
	"  task-clock, cpu-clock          CPU time, in msec\n"
	"  context-switches (cs), cpu-migrations (migrations)\n"
	"  page-faults (faults), minor-faults, major-faults\n"
	"  cycles, instructions, branches, branch-misses, cache-references,\n"
	"  cache-misses                   hardware: without a PMU (most VMs)\n"
	"                                 <not supported>, and why on stderr\n"
	"  syscall                        the calls, errors and time of each\n"
	"                                 syscall, summed in the kernel (BPF)\n"
	"  io                             read and write calls, bytes, time and\n"
	"                                 errors (the read/write, send/recv,\n"
	"                                 splice, sendfile families), in BPF\n"
	"  sched                          voluntary and involuntary switches,\n"
	"                                 on-CPU, blocked and runnable time,\n"
	"                                 wakeups and their latency, migrations\n"
	"  lock                           futex waits and kernel lock\n"
	"                                 contentions, their time and maximum\n"
	"  syscall, io, sched and lock count processes (not with -t); syscall\n"
	"  is summed at the end (not with -I)"
"\v"
	"Examples:\n"
	"  aperture stat -- ./prog args\n"
	"  aperture stat -e task-clock,page-faults -r 5 -- ./prog\n"
	"  aperture stat -e task-clock,syscall -- ./prog\n"
	"  aperture stat -e task-clock,io,sched,lock -r 3 -- ./prog\n"
	"  aperture stat -p 1234 -I 1000\n"
	"  aperture stat -a -x, -- sleep 5\n";

static unsigned int parse_uint(struct argp_state *state, const char *what,
			       const char *arg, unsigned long long min,
			       unsigned long long max)
{
	unsigned long long v;

	if (ap_parse_u64(arg, min, max, &v))
		ap_cli_usage_error(state, "bad %s '%s': give %llu to %llu",
				   what, arg, min, max);
	return (unsigned int)v;
}

static void parse_events(struct argp_state *state, struct stat_opts *o,
			 const char *arg)
{
	char bad[64], names[512], *list, *tok, *save, *rest;
	size_t off = 0;
	int e;

	/* the kernel's sums (syscall, io, sched, lock) apart, the
	 * counters' names left */
	list = strdup(arg);
	rest = strdup(arg);
	if (!list || !rest)
		ap_cli_usage_error(state, "out of memory");
	rest[0] = '\0';
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (ap_stat_ksums__add(&o->ksums, tok))
			continue;
		off += (size_t)sprintf(rest + off, "%s%s", off ? "," : "",
				       tok);
	}
	free(list);
	o->events_given = 1;
	/* an empty list: the counters' parser says what is wrong */
	e = off || !o->ksums.events ?
	    ap_stat_counters__add(&o->counters, off ? rest : arg, bad,
				  sizeof(bad)) : 0;
	free(rest);
	if (e == -ENOMEM)
		ap_cli_usage_error(state, "out of memory");
	if (e)
		ap_cli_usage_error(state, "unknown event '%s'; valid events: %s, syscall, io, sched, lock",
				   bad, ap_stat_counters__valid(names,
								sizeof(names)));
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct stat_opts *o = state->input;

	switch (key) {
	case 'p':
		ap_cli_add_pids(state, arg, o->pids, &o->nr_pids,
				AP_CLI_MAX_PIDS);
		break;
	case 't':
		ap_cli_add_pids(state, arg, o->tids, &o->nr_tids,
				AP_CLI_MAX_PIDS);
		break;
	case 'a':
		o->system_wide = 1;
		break;
	case 'e':
		parse_events(state, o, arg);
		break;
	case 'I':
		o->interval_ms = parse_uint(state, "interval", arg, 10,
					    3600000);
		break;
	case 'r':
		o->runs = parse_uint(state, "repeat count", arg, 1, 100000);
		break;
	case 'x':
		if (!*arg)
			ap_cli_usage_error(state, "empty field separator");
		o->sep = arg;
		break;
	case 'o':
		if (!*arg)
			ap_cli_usage_error(state, "empty output file name");
		o->output = arg;
		break;
	case ARGP_KEY_ARG:
		ap_cli_take_command(state, &o->cmd);
		break;
	case ARGP_KEY_END:
		if ((o->nr_pids || o->nr_tids) && o->system_wide)
			ap_cli_usage_error(state,
					   "give either -p PID (or -t TID) or -a, not both");
		if (!o->nr_pids && !o->nr_tids && !o->system_wide && !o->cmd)
			ap_cli_usage_error(state,
					   "nothing to count: give -p PID, -t TID, -a or -- CMD ARGS");
		if (o->runs > 1 && !o->cmd)
			ap_cli_usage_error(state, "-r repeats a command: give -- CMD ARGS");
		if (o->ksums.events && o->nr_tids)
			ap_cli_usage_error(state, "syscall, io, sched and lock count processes: give -p PID, -a or -- CMD ARGS, not -t");
		if ((o->ksums.events & AP_EVMASK(AP_TAG_SYSCALL)) &&
		    o->interval_ms)
			ap_cli_usage_error(state, "-I prints the counters, io, sched and lock: syscall is summed at the end");
		if (o->runs > 1 && o->interval_ms)
			ap_cli_usage_error(state, "give either -r N or -I MS, not both");
		break;
	default:
		return ap_cli_key(key, arg, state);
	}
	return 0;
}

static const struct argp argp = {
	options, parse_opt, "[-- CMD ARGS..]", doc,
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { 0 };
	struct ap_stat_opts so = { .stop = &stop_signal, .err = stderr };
	FILE *out = stderr;
	int ret;

	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS | ARGP_IN_ORDER, NULL, &o);
	if (!o.events_given &&
	    ap_stat_counters__add_defaults(&o.counters, o.system_wide)) {
		ap_err("out of memory");
		return 1;
	}
	if (o.output) {
		out = fopen(o.output, "we");
		if (!out) {
			ap_err("cannot open '%s': %s", o.output,
			       strerror(errno));
			ap_stat_counters__free(&o.counters);
			ap_stat_ksums__free(&o.ksums);
			return 1;
		}
	}
	so.counters = &o.counters;
	so.ksums = &o.ksums;
	so.cmd = o.cmd;
	so.pids = o.pids;
	so.nr_pids = o.nr_pids;
	so.tids = o.tids;
	so.nr_tids = o.nr_tids;
	so.system_wide = o.system_wide;
	so.interval_ms = o.interval_ms;
	so.runs = o.runs;
	so.sep = o.sep;
	so.out = out;
	ap_cli_catch_stop(on_signal);
	ret = ap_stat__run(&so);
	if (o.output && fclose(out)) {
		ap_err("writing '%s': %s", o.output, strerror(errno));
		ret = ret ? ret : 1;
	}
	ap_stat_counters__free(&o.counters);
	ap_stat_ksums__free(&o.ksums);
	return ret;
}
