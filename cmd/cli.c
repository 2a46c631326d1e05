// SPDX-License-Identifier: GPL-2.0
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/collector.h"
#include "record/procfs.h"
#include "report/view.h"
#include "tracepoint/tpformat.h"
#include "util/num.h"

/* PREFIX MESSAGE, a line on stderr */
static void say(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void ap_cli_usage_error(struct argp_state *state, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", state ? state->name : "aperture");
	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

void ap_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("aperture: ", fmt, ap);
	va_end(ap);
}

void ap_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("aperture: warning: ", fmt, ap);
	va_end(ap);
}

void ap_cli_add_pids(struct argp_state *state, const char *list, int *pids,
		     int *nr, int max)
{
	char *dup = strdup(list), *tok, *save = NULL;

	if (!dup)
		ap_cli_usage_error(state, "out of memory");
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long v;

		if (ap_parse_u64(tok, 1, INT32_MAX, &v))
			ap_cli_usage_error(state, "invalid pid '%s'", tok);
		if (*nr == max)
			ap_cli_usage_error(state, "at most %d pids", max);
		pids[(*nr)++] = (int)v;
	}
	free(dup);
}

static unsigned int max_sample_rate(void)
{
	unsigned long long v = 100000;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 100000;
		fclose(f);
	}
	return (unsigned int)v;
}

void ap_cli_parse_events(struct argp_state *state, const char *arg,
			 uint32_t *mask, struct ap_collect_opts *o)
{
	uint32_t m;
	char bad[128];
	int err = ap_events__parse(arg, &m, o, bad, sizeof(bad));

	if (err == -EEXIST)
		ap_cli_usage_error(state,
				   "'%s': one CPU sampling event at a time (cpu, cycles, instructions, cpu-clock, page-faults or context-switches, once)",
				   bad);
	if (err == -ENOENT)
		ap_cli_usage_error(state,
				   "unknown tracepoint '%s': give CATEGORY:NAME (a glob) of %s/events ('aperture list tracepoint' lists them)",
				   bad, ap_tracefs() ? ap_tracefs() :
				   "/sys/kernel/tracing");
	if (err == -ENODEV)
		ap_cli_usage_error(state,
				   "tracepoint '%s': tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)",
				   bad);
	if (err == -E2BIG)
		ap_cli_usage_error(state,
				   "'%s': more than %d tracepoints at once",
				   bad, AP_COLLECT_TP_MAX);
	if (err)
		ap_cli_usage_error(state, "unknown event '%s'; valid events: %s",
				   bad, ap_events__valid());
	*mask |= m;	/* -e cpu -e syscall adds up, as in perf */
}

unsigned int ap_cli_parse_freq(struct argp_state *state, const char *arg)
{
	unsigned int max = max_sample_rate();
	unsigned long long v;

	if (!strcmp(arg, "max"))	/* perf's spelling of the limit */
		return max;
	if (ap_parse_u64(arg, 1, max, &v))
		ap_cli_usage_error(state,
				   "bad frequency '%s': give 1 to %u Hz (perf_event_max_sample_rate), or max",
				   arg, max);
	return (unsigned int)v;
}

error_t ap_cli_collect_key(int key, char *arg, struct argp_state *state,
			   struct ap_cli_targets *t, struct ap_collect_opts *c)
{
	switch (key) {
	case 'p':
		ap_cli_add_pids(state, arg, t->pids, &t->nr_pids,
				AP_CLI_MAX_PIDS);
		return 0;
	case 'a':
		t->system_wide = 1;
		return 0;
	case 'e':
		ap_cli_parse_events(state, arg, &t->events, c);
		return 0;
	case 'F':
		t->freq = ap_cli_parse_freq(state, arg);
		return 0;
	}
	return ap_cli_key(key, arg, state);
}

int ap_cli_pids_alive(const struct ap_cli_targets *t)
{
	int i;

	for (i = 0; i < t->nr_pids; i++) {
		if (!ap_proc_alive(t->pids[i])) {
			ap_err("no such process: %d", t->pids[i]);
			return 0;
		}
	}
	return 1;
}

void ap_cli_catch_stop(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void ap_cli_take_command(struct argp_state *state, char ***cmd)
{
	*cmd = &state->argv[state->next - 1];
	state->next = state->argc;
}

/* does the option named by arg exist, and take an argument? */
static const struct argp_option *find_option(const struct argp *argp,
					     const char *arg)
{
	const struct argp_option *o;

	if (!argp->options)
		return NULL;
	for (o = argp->options; o->name || o->key || o->doc; o++) {
		if (arg[0] == '-' && arg[1] == '-' && o->name) {
			size_t n = strcspn(arg + 2, "=");

			if (strlen(o->name) == n && !strncmp(o->name, arg + 2, n))
				return o;
		} else if (arg[0] == '-' && arg[1] != '-' && o->key > 0 &&
			   o->key < 128 && o->key == arg[1]) {
			return o;
		}
	}
	return NULL;
}

error_t ap_cli_key(int key, char *arg, struct argp_state *state)
{
	const struct argp_option *o;
	const char *bad;

	switch (key) {
	/* argp_state_help prints nothing under ARGP_NO_ERRS: argp_help */
	case 'h':
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP,
			  state->name);
		exit(0);
	case 0x1ff:
		argp_help(state->root_argp, stdout, ARGP_HELP_USAGE, state->name);
		exit(0);
	case 'V':
		printf("%s\n", argp_program_version);
		exit(0);
	case ARGP_KEY_ERROR:
		bad = state->next > 0 && state->next <= state->argc ?
			state->argv[state->next - 1] : "?";
		o = find_option(state->root_argp, bad);
		if (o && o->arg)
			ap_cli_usage_error(state,
					   "option '%s' requires an argument",
					   bad);
		ap_cli_usage_error(state, "unrecognized option '%s'", bad);
	}
	return ARGP_ERR_UNKNOWN;
}

int ap_cli_parse_ids(const char *arg, uint32_t *out, int max)
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

/* --pid, --tid: the ids into out[AP_MAX_FILTER], their count into *nr */
static void read_ids(struct argp_state *state, const char *what,
		     const char *arg, uint32_t *out, int *nr)
{
	int n = ap_cli_parse_ids(arg, out, AP_MAX_FILTER);

	if (n < 0)
		ap_cli_usage_error(state, "bad %s list '%s'", what, arg);
	*nr = n;
}

error_t ap_cli_read_key(int key, char *arg, struct argp_state *state,
			struct ap_report_opts *r, struct ap_cli_input *in)
{
	unsigned long long v;

	switch (key) {
	case AP_OPT_PID:
		read_ids(state, "pid", arg, r->pids, &r->nr_pids);
		return 0;
	case AP_OPT_TID:
		read_ids(state, "tid", arg, r->tids, &r->nr_tids);
		return 0;
	case 'i':
		in->input_given = 1;
		/* fall through */
	case AP_OPT_EVENTS:
		*(key == 'i' ? &in->input : &in->events) = arg;
		return 0;
	case AP_OPT_COMM:
		r->comm = arg;
		return 0;
	case AP_OPT_LIMIT:
		if (ap_parse_u64(arg, 1, 1000000000, &v))
			ap_cli_usage_error(state, "bad limit '%s': give N >= 1",
					   arg);
		r->limit = (long)v;
		return 0;
	case AP_OPT_USER_ONLY:
		r->user_only = 1;
		return 0;
	case AP_OPT_NO_INLINE:
		in->no_inline = 1;
		return 0;
	}
	return ap_cli_key(key, arg, state);
}

int ap_cli_choose(struct argp_state *state, const char *what,
		  const char *arg, const struct ap_cli_choice *choices)
{
	char names[256];
	size_t i, off = 0;

	for (i = 0; choices[i].name; i++)
		if (!strcmp(arg, choices[i].name))
			return choices[i].value;
	names[0] = '\0';
	for (i = 0; choices[i].name && off < sizeof(names); i++)
		off += snprintf(names + off, sizeof(names) - off, "%s%s",
				!i ? "" : choices[i + 1].name ? ", " : " or ",
				choices[i].name);
	ap_cli_usage_error(state, "unknown %s '%s': give %s", what, arg,
			   names);
}

const struct ap_view_ops *ap_cli_view(const char *cmd, const char *name)
{
	const struct ap_view_ops *ops = ap_view__find(name);
	char names[256];

	if (!ops)
		fprintf(stderr, "aperture %s: unknown event '%s'; valid events: %s\n",
			cmd, name, ap_view__names(names, sizeof(names)));
	return ops;
}
