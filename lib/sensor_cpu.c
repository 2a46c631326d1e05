// SPDX-License-Identifier: GPL-2.0
/* CPU samples: one perf event per CPU (cycles, else cpu-clock) running the
 * ap_cpu_sample BPF program, which keeps only the targets' samples. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "sensor.h"

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

static int open_all(struct cpu_priv *p, int ncpus, uint32_t type,
		    uint64_t config, uint32_t freq)
{
	struct perf_event_attr attr;
	int cpu, opened = 0, err = 0;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.freq = 1;
	attr.sample_freq = freq;
	for (cpu = 0; cpu < ncpus; cpu++) {
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

	/* cycles where a hardware PMU exists, else the cpu-clock timer */
	err = open_all(p, p->nr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
		       c->opts.freq);
	if (!err) {
		snprintf(st->source, sizeof(st->source), "cycles");
	} else {
		err = open_all(p, p->nr, PERF_TYPE_SOFTWARE,
			       PERF_COUNT_SW_CPU_CLOCK, c->opts.freq);
		if (err) {
			if (err == -EACCES || err == -EPERM)
				snprintf(st->reason, sizeof(st->reason),
					 "perf_event_open(cpu-clock): %s; run as root or grant CAP_PERFMON",
					 strerror(-err));
			else if (err == -EINVAL)
				snprintf(st->reason, sizeof(st->reason),
					 "perf_event_open(cpu-clock, %u Hz): %s; check -F against /proc/sys/kernel/perf_event_max_sample_rate",
					 c->opts.freq, strerror(-err));
			else
				snprintf(st->reason, sizeof(st->reason),
					 "perf_event_open(cpu-clock): %s",
					 strerror(-err));
			return err;
		}
		snprintf(st->source, sizeof(st->source), "cpu-clock");
	}
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
