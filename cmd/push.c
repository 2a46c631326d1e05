// SPDX-License-Identifier: GPL-2.0
/* aperture push: send recordings' profiles to Pyroscope or Parca. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "push/push.h"

struct push_opts {
	struct ap_push_opts p;
	char *base;
	char *token;
	const char **files;
	int nr_files;
};

enum {
	OPT_TO = 0x100,
	OPT_LABEL,
	OPT_NAME,
	OPT_TOKEN_FILE,
	OPT_CA_FILE,
	OPT_TIMEOUT,
	OPT_RETRIES,
};

static const struct argp_option options[] = {
	{ "to", OPT_TO, "URL", 0, "The server: pyroscope+http://HOST:PORT, parca+http://HOST:PORT, or https", 1 },
	{ "label", OPT_LABEL, "NAME=VALUE", 0, "A label of every series (repeatable, 16 at most, the recording's included); host and service replace the file's host and the program's name", 1 },
	{ "name", OPT_NAME, "APP", 0, "Pyroscope's application name (default: the service label, else the recorded command)", 1 },
	{ "token-file", OPT_TOKEN_FILE, "FILE", 0, "Send the bearer token in FILE (which only you or root may write)", 1 },
	{ "ca-file", OPT_CA_FILE, "FILE", 0, "Trust the certificates in FILE for https", 1 },
	{ "timeout", OPT_TIMEOUT, "SECONDS", 0, "Give up on a request after SECONDS (1 to 3600, default 10)", 1 },
	{ "retries", OPT_RETRIES, "N", 0, "Try again N times (0 to 10, default 3), backing off from 0.25 s doubling to 8 s, when the server is down, slow, busy (429) or failing (5xx)", 1 },
	{ "verbose", 'v', NULL, 0, "Say what each request sent and got", 1 },
	AP_CLI_HELP_OPTIONS,
	{ NULL },
};

static const char doc[] =
	"Send each record file's profiles to a continuous-profiling server: "
	"pprof as 'aperture report --format pprof' writes it, one profile per "
	"view the file holds, to Grafana Pyroscope's /ingest (with a "
	"sample_type_config naming every sample type) or to Parca's WriteRaw "
	"(its HTTP/JSON gateway, __name__ aperture).  Series labels: host, "
	"service and --label; every sample has pid, tid and comm.  Exit "
	"status: 0 sent; 75 not sent now, try again later (no connection, a "
	"timeout, 429, 5xx); 65 the file is bad or the server refused it for "
	"good (another 4xx); 64 a usage error."
	"\v"
	"Examples:\n"
	"  aperture push --to pyroscope+http://localhost:4040 aperture.data\n"
	"  aperture push --to parca+https://parca:7070 --ca-file ca.pem \\\n"
	"      --token-file /etc/aperture/token --label env=prod w1.data\n";

static long parse_num(struct argp_state *state, const char *opt,
		      const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		ap_cli_usage_error(state, "bad --%s '%s': give %ld to %ld", opt,
				   arg, min, max);
	return v;
}

static void add_label(struct argp_state *state, struct push_opts *o,
		      char *arg)
{
	struct ap_push_label l;
	char why[256];
	int i;

	if (o->p.nr_labels == AP_PUSH_MAX_LABELS)
		ap_cli_usage_error(state, "more than %d --label", AP_PUSH_MAX_LABELS);
	if (ap_push__parse_label(arg, &l, why, sizeof(why)))
		ap_cli_usage_error(state, "bad --label: %s", why);
	for (i = 0; i < o->p.nr_labels; i++)
		if (!strcmp(o->p.labels[i].name, l.name))
			ap_cli_usage_error(state, "--label %s given twice",
					   l.name);
	o->p.labels[o->p.nr_labels++] = l;
}

/* Pyroscope's service name: letters, digits and "_.-/" */
static int app_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr("_.-/", c)))
			return 0;
	}
	return i > 0 && i < 256;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct push_opts *o = state->input;
	char why[256];

	switch (key) {
	case OPT_TO:
		free(o->base);
		if (ap_push__parse_to(arg, &o->p, &o->base, why, sizeof(why)))
			ap_cli_usage_error(state, "bad --to '%s': %s", arg, why);
		break;
	case OPT_LABEL:
		add_label(state, o, arg);
		break;
	case OPT_NAME:
		if (!app_ok(arg))
			ap_cli_usage_error(state, "bad --name '%s': 1 to 255 letters, digits, '_', '.', '-' or '/'",
					   arg);
		o->p.name = arg;
		break;
	case OPT_TOKEN_FILE:
		free(o->token);
		o->token = NULL;
		if (ap_push__read_token(arg, &o->token, why, sizeof(why)))
			ap_cli_usage_error(state, "--token-file %s: %s", arg,
					   why);
		o->p.token = o->token;
		break;
	case OPT_CA_FILE:
		if (access(arg, R_OK))
			ap_cli_usage_error(state, "--ca-file %s: %s", arg,
					   strerror(errno));
		o->p.ca_file = arg;
		break;
	case OPT_TIMEOUT:
		o->p.timeout_s = parse_num(state, "timeout", arg, 1, 3600);
		break;
	case OPT_RETRIES:
		o->p.retries = parse_num(state, "retries", arg, 0, 10);
		break;
	case 'v':
		o->p.verbose = 1;
		break;
	case ARGP_KEY_ARG:
		o->files[o->nr_files++] = arg;
		break;
	case ARGP_KEY_END:
		if (!o->base)
			ap_cli_usage_error(state, "no server: give --to pyroscope+http://HOST:PORT or parca+http://HOST:PORT");
		if (!o->nr_files)
			ap_cli_usage_error(state, "no record file given");
		break;
	default:
		return ap_cli_key(key, arg, state);
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, "FILE...", doc };

int cmd_push(int argc, char **argv)
{
	struct push_opts o = { .p.timeout_s = 10, .p.retries = 3 };
	int i, ret = AP_PUSH_SENT, r;

	o.files = calloc(argc, sizeof(*o.files));
	if (!o.files) {
		ap_err("out of memory");
		return 1;
	}
	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS, NULL, &o);
	/* each file on its own; the status the worst: a file that may go
	 * later is kept over one refused for good */
	for (i = 0; i < o.nr_files; i++) {
		r = ap_push__file(&o.p, o.files[i]);
		if (r == AP_PUSH_TEMPFAIL ||
		    (r == AP_PUSH_DATAERR && ret == AP_PUSH_SENT))
			ret = r;
	}
	if (o.token)
		memset(o.token, 0, strlen(o.token));
	free(o.token);
	free(o.base);
	free(o.files);
	return ret;
}
