// SPDX-License-Identifier: GPL-2.0
/* CPU samples: one perf event per CPU (cycles, else cpu-clock, or the
 * event -e names as perf does) running the ap_cpu_sample BPF program,
 * which keeps only the targets' samples. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "record/sensor.h"

struct cpu_priv {
	int nr;
	int *fds;
	struct bpf_link **links;
};

static int perf_open(struct perf_event_attr *attr, int cpu)
{
	return syscall(__NR_perf_event_open, attr, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static int cpu_prepare(struct ap_collector *c, struct aperture_bpf *skel,
		       int enabled)
{
	bpf_program__set_autoload(skel->progs.ap_cpu_sample, enabled);
	return 0;
}

static int open_all(struct cpu_priv *p, const struct ap_collect_opts *o,
		    int ncpus, uint32_t type, uint64_t config, uint32_t freq)
{
	struct perf_event_attr attr;
	int cpu, opened = 0, err = 0;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	/* -c PERIOD: every PERIOD events; else -F HZ */
	if (o->cpu_period) {
		attr.sample_period = o->cpu_period;
	} else {
		attr.freq = 1;
		attr.sample_freq = freq;
	}
	attr.exclude_user = o->cpu_exclude_user;
	attr.exclude_kernel = o->cpu_exclude_kernel;
	for (cpu = 0; cpu < ncpus; cpu++) {
		/* record -C: no timer at all on the other CPUs */
		if (!ap_collect_opts__cpu(o, cpu))
			continue;
		p->fds[cpu] = perf_open(&attr, cpu);
		if (p->fds[cpu] < 0) {
			p->fds[cpu] = -1;
			/* an offline or absent CPU is not an error */
			if (errno == ENODEV)
				continue;
			err = -errno;
			break;
		}
		opened++;
	}
	if (err || !opened) {
		for (cpu = 0; cpu < ncpus; cpu++) {
			if (p->fds[cpu] >= 0)
				close(p->fds[cpu]);
			p->fds[cpu] = -1;
		}
		return err ? err : -ENODEV;
	}
	return 0;
}

static const char *modifier(const struct ap_collect_opts *o)
{
	return o->cpu_exclude_kernel ? ":u" : o->cpu_exclude_user ? ":k" : "";
}

/* why perf_event_open failed, with the fix where it is known */
static void explain(struct ap_sensor *st, const char *name, uint32_t freq,
		    int err)
{
	if (err == -EACCES || err == -EPERM)
		snprintf(st->reason, sizeof(st->reason),
			 "perf_event_open(%s): %s; run as root or grant CAP_PERFMON",
			 name, strerror(-err));
	else if (err == -EINVAL)
		snprintf(st->reason, sizeof(st->reason),
			 "perf_event_open(%s, %u Hz): %s; check -F against /proc/sys/kernel/perf_event_max_sample_rate",
			 name, freq, strerror(-err));
	else
		snprintf(st->reason, sizeof(st->reason),
			 "perf_event_open(%s): %s", name, strerror(-err));
}

/* -e cycles, instructions, page-faults ...: that event; a hardware one
 * the machine lacks (no PMU, as in most VMs) falls back to cpu-clock,
 * said in one line */
static int attach_named(struct ap_collector *c, struct cpu_priv *p,
			struct ap_sensor *st)
{
	const struct ap_cpu_event *ev = &ap_cpu_events[c->opts.cpu_event - 1];
	const struct ap_cpu_event *clk = NULL;
	size_t i;
	int err;

	err = open_all(p, &c->opts, p->nr, ev->type, ev->config, c->opts.freq);
	if (err && ev->type == PERF_TYPE_HARDWARE) {
		for (i = 0; i < ap_nr_cpu_events; i++)
			if (ap_cpu_events[i].type == PERF_TYPE_SOFTWARE &&
			    ap_cpu_events[i].config == PERF_COUNT_SW_CPU_CLOCK)
				clk = &ap_cpu_events[i];
		ap_collector__notef(c,
				    "cpu: %s unavailable (perf_event_open: %s%s): sampling cpu-clock instead",
				    ev->name, strerror(-err),
				    err == -ENOENT || err == -EOPNOTSUPP ||
				    err == -ENODEV ?
				    "; no hardware PMU on this machine" : "");
		ev = clk;
		err = open_all(p, &c->opts, p->nr, ev->type, ev->config,
			       c->opts.freq);
	}
	if (err) {
		explain(st, ev->name, c->opts.freq, err);
		return err;
	}
	if (c->opts.cpu_period)
		snprintf(st->source, sizeof(st->source), "%s%s, every %llu",
			 ev->name, modifier(&c->opts),
			 (unsigned long long)c->opts.cpu_period);
	else
		snprintf(st->source, sizeof(st->source), "%s%s", ev->name,
			 modifier(&c->opts));
	return 0;
}

static int cpu_attach(struct ap_collector *c, struct aperture_bpf *skel,
		      struct ap_sensor *st)
{
	struct cpu_priv *p;
	int cpu, err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->nr = c->ncpus;
	p->fds = calloc(p->nr, sizeof(*p->fds));
	p->links = calloc(p->nr, sizeof(*p->links));
	c->priv[ap_sensor_index(c, "cpu")] = p;
	if (!p->fds || !p->links)
		return -ENOMEM;
	for (cpu = 0; cpu < p->nr; cpu++)
		p->fds[cpu] = -1;

	if (c->opts.cpu_event) {
		err = attach_named(c, p, st);
		if (err)
			return err;
		goto attach;
	}
	/* cycles where a hardware PMU exists, else the cpu-clock timer */
	err = open_all(p, &c->opts, p->nr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
		       c->opts.freq);
	if (!err) {
		snprintf(st->source, sizeof(st->source), "cycles%s",
			 modifier(&c->opts));
	} else {
		err = open_all(p, &c->opts, p->nr, PERF_TYPE_SOFTWARE,
			       PERF_COUNT_SW_CPU_CLOCK, c->opts.freq);
		if (err) {
			explain(st, "cpu-clock", c->opts.freq, err);
			return err;
		}
		snprintf(st->source, sizeof(st->source), "cpu-clock%s",
			 modifier(&c->opts));
	}
attach:
	for (cpu = 0; cpu < p->nr; cpu++) {
		if (p->fds[cpu] < 0)
			continue;
		p->links[cpu] = bpf_program__attach_perf_event(
			skel->progs.ap_cpu_sample, p->fds[cpu]);
		if (!p->links[cpu]) {
			err = -errno;
			snprintf(st->reason, sizeof(st->reason),
				 "attaching to the perf event of CPU %d: %s",
				 cpu, strerror(-err));
			return err;
		}
	}
	return 0;
}

static void cpu_close(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "cpu");
	struct cpu_priv *p = idx >= 0 ? c->priv[idx] : NULL;
	int cpu;

	if (!p)
		return;
	for (cpu = 0; cpu < p->nr; cpu++) {
		if (p->links)
			bpf_link__destroy(p->links[cpu]);
		if (p->fds && p->fds[cpu] >= 0)
			close(p->fds[cpu]);
	}
	free(p->links);
	free(p->fds);
	free(p);
	c->priv[idx] = NULL;
}

const struct ap_sensor_ops ap_sensor_cpu = {
	.name = "cpu",
	.tag = AP_TAG_CPU,
	.prepare = cpu_prepare,
	.attach = cpu_attach,
	.close = cpu_close,
};
