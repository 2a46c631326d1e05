// SPDX-License-Identifier: GPL-2.0
/*
 * aperture list: what this machine can record, as perf list does for its
 * events: every -e name, whether it works here, and if not, why.  CPU
 * sampling events are tried with perf_event_open on this process; the
 * sensors by loading the BPF object and attaching every one of them, with
 * no target (nothing is recorded).  Tracepoints come from tracefs:
 * `aperture list tracepoint`, or a glob of CATEGORY:NAME.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "cli.h"
#include "event/event.h"
#include "record/collector.h"
#include "format/format.h"
#include "tracepoint/tpformat.h"

enum {
	OPT_RAW_DUMP = 0x100,
};

static const struct argp_option options[] = {
	{ "raw-dump", OPT_RAW_DUMP, "WHAT", OPTION_ARG_OPTIONAL, "Print names alone, on one line, for shell completion (as perf list --raw-dump): events (default), every -e name but the tracepoints; views, the event kinds (the views of report and top); tracepoints, every CATEGORY:NAME of tracefs", 1 },
	AP_CLI_HELP_OPTIONS,
	{ NULL },
};

static const char doc[] =
	"List the events 'aperture record -e' and 'aperture top -e' take, and "
	"whether each works on this machine; for those that do not, why.  "
	"Checking the sensors loads aperture's BPF object: run as root (or "
	"with CAP_BPF and CAP_PERFMON) for their state.\n\n"
	"With 'tracepoint', list the tracepoints of this machine (tracefs's "
	"events) instead; with a glob of CATEGORY:NAME, those it matches."
"\v"
	"Examples:\n"
	"  aperture list\n"
	"  aperture list | grep unavailable\n"
	"  aperture list tracepoint\n"
	"  aperture list 'sched:*'\n";

struct list_opts {
	int raw_dump;
	const char *tracepoints;	/* a glob; NULL: the events */
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct list_opts *o = state->input;

	switch (key) {
	case OPT_RAW_DUMP:
		if (!arg || !strcmp(arg, "events"))
			o->raw_dump = 1;
		else if (!strcmp(arg, "views"))
			o->raw_dump = 2;
		else if (!strcmp(arg, "tracepoints"))
			o->raw_dump = 3;
		else
			ap_cli_usage_error(state,
					   "unknown --raw-dump '%s': give events, views or tracepoints",
					   arg);
		break;
	case ARGP_KEY_ARG:
		if (o->tracepoints)
			ap_cli_usage_error(state, "unexpected argument '%s'",
					   arg);
		if (!strcmp(arg, "tracepoint") || !strcmp(arg, "tracepoints"))
			o->tracepoints = "*:*";
		else if (strchr(arg, ':'))
			o->tracepoints = arg;
		else
			ap_cli_usage_error(state,
					   "unexpected argument '%s': give tracepoint, or a glob of CATEGORY:NAME ('sched:*')",
					   arg);
		break;
	default:
		return ap_cli_key(key, arg, state);
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, NULL, doc };

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/* can this process sample on the event?  0, or -errno and why */
static int try_event(const struct ap_cpu_event *ev, char *why, size_t len)
{
	struct perf_event_attr attr;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = ev->type;
	attr.config = ev->config;
	attr.freq = 1;
	attr.sample_freq = 99;
	attr.disabled = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	err = -errno;
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV)
		snprintf(why, len,
			 "no hardware PMU on this machine (perf_event_open: %s; a VM often has none); -e %s samples cpu-clock instead",
			 strerror(-err), ev->name);
	else if (err == -EACCES || err == -EPERM)
		snprintf(why, len,
			 "perf_event_open: %s (perf_event_paranoid is %d): run as root or grant CAP_PERFMON",
			 strerror(-err), paranoid());
	else
		snprintf(why, len, "perf_event_open: %s", strerror(-err));
	return err;
}

static void quiet_note(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

static int no_event(void *ctx, const void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

/* what the sensors make of this machine: every one attached, no target */
static int list_sensors(uint32_t all)
{
	struct ap_collect_opts o = {
		.events = all, .freq = 99, .mem_density = 1,
		.min_block_ns = 1000,
		/* system-wide: sensors that open per-thread or per-process
		 * events judge the machine, not an absent target */
		.system_wide = 1,
	};
	const struct ap_sensor *st;
	struct ap_collector *c;
	char err[512];
	size_t i, n;
	int ret;

	ret = ap_collector__open(&c, &o, no_event, quiet_note, NULL, err,
				 sizeof(err));
	if (!ret)
		ret = ap_collector__start(c, err, sizeof(err));
	if (ret) {
		printf("  (the sensors could not be checked: %s)\n", err);
		ap_collector__close(c);
		return 1;
	}
	n = ap_collector__sensors(c, &st);
	for (i = 0; i < n; i++) {
		if (st[i].state == AP_SENSOR_UNAVAILABLE)
			printf("  %-22s unavailable: %s\n", st[i].name,
			       st[i].reason);
		else
			printf("  %-22s available: %s%s%s\n", st[i].name,
			       st[i].source, st[i].reason[0] ? "; " : "",
			       st[i].reason);
	}
	ap_collector__close(c);
	return 0;
}

static int print_tp(void *ctx, const char *cat, const char *name)
{
	int *n = ctx;

	if (!*n)
		printf("Tracepoints (-e CATEGORY:NAME, a glob names several; from %s/events):\n",
		       ap_tracefs());
	if (*n >= 0)
		printf("  %s:%s\n", cat, name);
	else
		printf("%s%s:%s", *n == -1 ? "" : " ", cat, name);
	if (*n < 0)
		*n = -2;
	else
		(*n)++;
	return 0;
}

/* the tracepoints matching glob, a line each (raw: on one line) */
static int list_tracepoints(const char *glob, int raw)
{
	int n = raw ? -1 : 0, err;

	err = ap_tp__each(glob, print_tp, &n);
	if (raw) {
		printf("\n");
		return 0;
	}
	if (err == -ENODEV) {
		fprintf(stderr, "aperture list: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)\n");
		return 1;
	}
	if (err < 0) {
		fprintf(stderr, "aperture list: reading tracefs: %s\n",
			strerror(-err));
		return 1;
	}
	if (!n) {
		fprintf(stderr, "aperture list: no tracepoint matches '%s'\n",
			glob);
		return 1;
	}
	return 0;
}

/* the kinds' names; events: every name -e takes (with the kinds'
 * variants and perf's CPU events, but no tracepoint) */
static void raw_dump(int events)
{
	const struct ap_event_variant *va;
	size_t i;

	for (i = 0; i < ap_nr_event_kinds; i++) {
		if (events && ap_event_kinds[i]->named_only)
			continue;
		printf("%s%s", i ? " " : "", ap_event_kinds[i]->name);
		for (va = ap_event_kinds[i]->variants;
		     events && va && va->name; va++)
			printf(" %s", va->name);
	}
	for (i = 0; events && i < ap_nr_cpu_events; i++)
		printf(" %s", ap_cpu_events[i].name);
	printf("\n");
}

int cmd_list(int argc, char **argv)
{
	char why[512];
	uint32_t all = 0;
	size_t i;
	struct list_opts lo = { 0 };
	int ret = 0;

	argp_parse(&argp, argc, argv, AP_ARGP_FLAGS, NULL, &lo);
	if (lo.raw_dump == 3)
		return list_tracepoints("*:*", 1);
	if (lo.raw_dump) {
		raw_dump(lo.raw_dump == 1);
		return 0;
	}
	if (lo.tracepoints)
		return list_tracepoints(lo.tracepoints, 0);

	printf("CPU sampling events (-e NAME[:u|:k], at -F HZ or every -c PERIOD):\n");
	for (i = 0; i < ap_nr_cpu_events; i++) {
		const struct ap_cpu_event *ev = &ap_cpu_events[i];
		char name[64];

		snprintf(name, sizeof(name), "%s%s%s", ev->name,
			 ev->alias ? " | " : "", ev->alias ? ev->alias : "");
		if (try_event(ev, why, sizeof(why)))
			printf("  %-22s unavailable: %s\n", name, why);
		else
			printf("  %-22s available: %s\n", name, ev->what);
	}

	for (i = 0; i < ap_nr_event_kinds; i++)
		all |= AP_EVMASK(ap_event_kinds[i]->tag);
	printf("\nSensors (-e NAME; cpu samples the first of cycles and cpu-clock that works;\n"
	       "NAME:VARIANT, as lock:pthread or syscall:calls, is a variant of a sensor;\n"
	       "tracepoint takes -e CATEGORY:NAME, 'aperture list tracepoint' lists them):\n");
	if (geteuid() != 0)
		printf("  (checked as uid %u: loading BPF needs root, or CAP_BPF and CAP_PERFMON)\n",
		       (unsigned)geteuid());
	ret = list_sensors(all);
	return ret;
}
