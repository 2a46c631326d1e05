// SPDX-License-Identifier: GPL-2.0
#include "cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/collector.h"
#include "report/view.h"

void ap_cli_usage_error(struct argp_state *state, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", state ? state->name : "aperture");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

void ap_err(const char *fmt, ...)
{
	va_list ap;

	fputs("aperture: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ap_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("aperture: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int ap_parse_u64(const char *s, unsigned long long min,
		 unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
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

error_t ap_cli_read_key(int key, char *arg, struct argp_state *state,
			struct ap_report_opts *r, int *no_inline)
{
	unsigned long long v;
	int n;

	switch (key) {
	case AP_OPT_PID:
		n = ap_cli_parse_ids(arg, r->pids, AP_MAX_FILTER);
		if (n < 0)
			ap_cli_usage_error(state, "bad pid list '%s'", arg);
		r->nr_pids = n;
		return 0;
	case AP_OPT_TID:
		n = ap_cli_parse_ids(arg, r->tids, AP_MAX_FILTER);
		if (n < 0)
			ap_cli_usage_error(state, "bad tid list '%s'", arg);
		r->nr_tids = n;
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
		*no_inline = 1;
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
