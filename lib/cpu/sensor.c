// SPDX-License-Identifier: GPL-2.0
/* CPU samples: one perf event per CPU (cycles, else cpu-clock, or the
 * event -e names as perf does) running the ap_cpu_sample BPF program,
 * which keeps only the targets' samples. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "record/sensor.h"

/* the kernel's floor for hrtimer events (perf_swevent_start_hrtimer):
 * a shorter cpu-clock period runs every 10 us anyway */
#define TIMER_MIN_NS	10000ull
/* the program's cost is checked that often */
#define CHECK_NS	200000000ull

struct cpu_priv {
	int nr;
	int *fds;
	struct bpf_link **links;
	/* cpu-clock: its period, kept within the CPU budget */
	int timer;
	uint64_t period_ns;
	uint64_t irq_ns;		/* one timer interrupt, measured */
	unsigned int budget;		/* perf_cpu_time_max_percent; 0: none */
	uint64_t at_ns, cost_ns, cost_n;	/* the last check */
	int over;			/* said once */
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

static unsigned long long sysctl_read(const char *path, unsigned long long v)
{
	FILE *f = fopen(path, "re");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static volatile uint64_t spin_sink;

/* loop iterations per ns of this thread's CPU time, over ns of it */
static double spin_rate(uint64_t ns)
{
	uint64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID), t, n = 0, x = 1;
	int i;

	do {
		for (i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		n += 1000;
		t = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	} while (t - start < ns);
	spin_sink = x;
	return (double)n / (t - start);
}

/*
 * What one cpu-clock interrupt costs the thread it interrupts, in ns:
 * this thread spins with and without a timer every 10 us, the kernel
 * charging the interrupts to it (without IRQ time accounting; with it
 * they are not seen, and only the program's cost counts).  In a VM the
 * timer alone can take most of a 10 us period.
 */
static uint64_t timer_cost_ns(void)
{
	struct perf_event_attr attr;
	double off = 0, on = 0, r, f;
	int fd, i;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = TIMER_MIN_NS;
	attr.disabled = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	/* the best of three each way: preemption only slows a run */
	for (i = 0; i < 3; i++) {
		r = spin_rate(5000000);
		off = r > off ? r : off;
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		r = spin_rate(5000000);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		on = r > on ? r : on;
	}
	close(fd);
	f = off > 0 ? 1 - on / off : 0;
	if (f < 0)
		f = 0;
	if (f > 0.95)
		f = 0.95;
	return (uint64_t)(f * TIMER_MIN_NS);
}

/*
 * The cpu-clock period for ask ns (what -F or -c asked): the kernel's
 * floor, then the CPU budget, as the kernel keeps PMU interrupts under
 * perf_cpu_time_max_percent but not this timer; what changed is said in
 * one line.  The effective rate is the recording's frequency (sample
 * weights in time).
 */
static uint64_t timer_period(struct ap_collector *c, struct cpu_priv *p,
			     uint64_t ask)
{
	uint64_t ns = ask > TIMER_MIN_NS ? ask : TIMER_MIN_NS, need = 0;
	char why[192] = "";

	p->budget = sysctl_read("/proc/sys/kernel/perf_cpu_time_max_percent",
				25);
	if (p->budget >= 100)	/* the kernel's "no limit" too */
		p->budget = 0;
	/* 100 us and slower: a timer costs less than the budget anywhere.
	 * The timer gets half of it: the program, measured later
	 * (cpu_poll), costs about as much again (2 to 3 us a sample) */
	if (p->budget && ns < 100000) {
		p->irq_ns = timer_cost_ns();
		if (p->irq_ns * 200 > ns * p->budget)
			need = (p->irq_ns * 200 / p->budget + 999) / 1000 *
			       1000;
	}
	if (need)
		snprintf(why, sizeof(why),
			 "a timer interrupt costs %.1f us here, %llu%% of each CPU every %llu ns, over half of perf_cpu_time_max_percent (%u%%)",
			 p->irq_ns / 1000.0,
			 (unsigned long long)(p->irq_ns * 100 / ns),
			 (unsigned long long)ns, p->budget);
	else if (ask < TIMER_MIN_NS)
		snprintf(why, sizeof(why),
			 "the kernel's floor for cpu-clock is %llu ns",
			 TIMER_MIN_NS);
	if (need)
		ns = need;
	if (ns != ask)
		ap_collector__notef(c,
				    "cpu: sampling cpu-clock every %llu ns (%llu Hz), not every %llu ns: %s",
				    (unsigned long long)ns,
				    (unsigned long long)(1000000000ull / ns),
				    (unsigned long long)ask, why);
	p->timer = 1;
	p->period_ns = ns;
	c->opts.freq = (uint32_t)((1000000000ull + ns / 2) / ns);
	return ns;
}

/* nanoseconds of -c count of a hardware event the machine lacks: cycles
 * at the CPU's clock, an instruction a cycle */
static uint64_t count_to_ns(uint64_t count, double *mhz)
{
	unsigned long long khz = sysctl_read(
		"/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", 0);
	char line[256];
	FILE *f;

	*mhz = khz / 1000.0;
	f = *mhz > 0 ? NULL : fopen("/proc/cpuinfo", "re");
	while (f && fgets(line, sizeof(line), f) &&
	       sscanf(line, "cpu MHz : %lf", mhz) != 1)
		;
	if (f)
		fclose(f);
	if (*mhz <= 0)
		*mhz = 1000;
	return (uint64_t)(count * 1000 / *mhz) + 1;
}

static int is_timer(uint32_t type, uint64_t config)
{
	return type == PERF_TYPE_SOFTWARE && config == PERF_COUNT_SW_CPU_CLOCK;
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
	/* cpu-clock: the period timer_period() chose; -c PERIOD: every
	 * PERIOD events; else -F HZ */
	if (is_timer(type, config) && p->timer) {
		attr.sample_period = p->period_ns;
	} else if (o->cpu_period) {
		attr.sample_period = o->cpu_period;
	} else {
		attr.freq = 1;
		attr.sample_freq = freq;
	}
	attr.exclude_user = o->cpu_exclude_user;
	attr.exclude_kernel = o->cpu_exclude_kernel;
	/* skid-free samples: a hardware PMU's (PEBS, IBS); a timer has no
	 * skid to remove */
	if (type == PERF_TYPE_HARDWARE)
		attr.precise_ip = o->cpu_precise;
again:
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
		/* as perf: a level the PMU lacks, the next one down */
		if (err && attr.precise_ip) {
			attr.precise_ip--;
			err = 0;
			opened = 0;
			goto again;
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

/* cpu-clock for ask ns (-F or -c): timer_period() then every CPU */
static int open_timer(struct ap_collector *c, struct cpu_priv *p,
		      uint64_t ask)
{
	timer_period(c, p, ask);
	return open_all(p, &c->opts, p->nr, PERF_TYPE_SOFTWARE,
			PERF_COUNT_SW_CPU_CLOCK, 0);
}

/* the period -c or -F asks of cpu-clock, in ns */
static uint64_t timer_ask(const struct ap_collect_opts *o)
{
	return o->cpu_period ? o->cpu_period : 1000000000ull / o->freq;
}

/* "cpu-clock", with the period where -c gave one or it was lengthened */
static void timer_source(struct ap_sensor *st, const struct cpu_priv *p,
			 const struct ap_collect_opts *o, uint64_t ask)
{
	const char *mod = modifier(o);

	if (p->period_ns != ask)
		snprintf(st->source, sizeof(st->source),
			 "cpu-clock%s, every %llu ns (asked %llu)",
			 mod, (unsigned long long)p->period_ns,
			 (unsigned long long)ask);
	else if (o->cpu_period)
		snprintf(st->source, sizeof(st->source),
			 "cpu-clock%s, every %llu ns", mod,
			 (unsigned long long)p->period_ns);
	else
		snprintf(st->source, sizeof(st->source), "cpu-clock%s", mod);
}

/* :p, :pp, :P on the timer: said once, as perf would have refused */
static void precise_note(struct ap_collector *c, const struct cpu_priv *p)
{
	if (p->timer && c->opts.cpu_precise)
		ap_collector__notef(c,
				    "cpu: precise modifiers (:p, :pp, :P) ask a hardware PMU for samples without skid; cpu-clock is a timer, which has none: ignored");
}

/* -e cycles, instructions, page-faults ...: that event; a hardware one
 * the machine lacks (no PMU, as in most VMs) falls back to cpu-clock,
 * said in one line, a -c count becoming the time it would take */
static int attach_named(struct ap_collector *c, struct cpu_priv *p,
			struct ap_sensor *st)
{
	const struct ap_cpu_event *ev = &ap_cpu_events[c->opts.cpu_event - 1];
	uint64_t ask = timer_ask(&c->opts);
	double mhz = 0;
	int err;

	if (is_timer(ev->type, ev->config))
		err = open_timer(c, p, ask);
	else
		err = open_all(p, &c->opts, p->nr, ev->type, ev->config,
			       c->opts.freq);
	if (err && ev->type == PERF_TYPE_HARDWARE) {
		char conv[96] = "";

		if (c->opts.cpu_period) {
			ask = count_to_ns(c->opts.cpu_period, &mhz);
			snprintf(conv, sizeof(conv),
				 ", every %llu ns for -c %llu (%.0f MHz%s)",
				 (unsigned long long)ask,
				 (unsigned long long)c->opts.cpu_period, mhz,
				 ev->config == PERF_COUNT_HW_INSTRUCTIONS ?
				 ", an instruction a cycle" : "");
		}
		ap_collector__notef(c,
				    "cpu: %s unavailable (perf_event_open: %s%s): sampling cpu-clock instead%s",
				    ev->name, strerror(-err),
				    err == -ENOENT || err == -EOPNOTSUPP ||
				    err == -ENODEV ?
				    "; no hardware PMU on this machine" : "",
				    conv);
		ev = &ap_cpu_events[2];	/* cpu-clock */
		err = open_timer(c, p, ask);
	}
	if (err) {
		explain(st, ev->name, c->opts.freq, err);
		return err;
	}
	precise_note(c, p);
	if (p->timer)
		timer_source(st, p, &c->opts, ask);
	else if (c->opts.cpu_period)
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
	unsigned long long max = sysctl_read(
		"/proc/sys/kernel/perf_event_max_sample_rate", 100000);
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
	/* -F over the limit is refused; only the default gets here, and
	 * is lowered as perf lowers its own */
	if (!c->opts.cpu_period && max && c->opts.freq > max) {
		ap_collector__notef(c,
				    "Lowering default frequency rate from %u to %llu.",
				    c->opts.freq, max);
		c->opts.freq = (uint32_t)max;
	}

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
		uint64_t ask = timer_ask(&c->opts);

		err = open_timer(c, p, ask);
		if (err) {
			explain(st, "cpu-clock", c->opts.freq, err);
			return err;
		}
		precise_note(c, p);
		timer_source(st, p, &c->opts, ask);
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

/*
 * Every CHECK_NS: what a kept sample costs, the timer's interrupt and
 * the program; over the budget the recording says so, in a line and in
 * its sensor's source (the rate stays: every sample weighs the same)
 */
static int cpu_poll(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "cpu");
	struct cpu_priv *p = idx >= 0 ? c->priv[idx] : NULL;
	uint64_t now, ns, n, cost;
	struct ap_sensor *st;
	size_t len;

	if (!p || !p->timer || !p->budget || p->over)
		return 0;
	now = clock_ns(CLOCK_MONOTONIC);
	if (now - p->at_ns < CHECK_NS)
		return 0;
	ns = c->skel->bss->ap_cpu_cost_ns;
	n = c->skel->bss->ap_cpu_cost_n;
	if (p->at_ns && n - p->cost_n >= 1000) {
		cost = p->irq_ns + (ns - p->cost_ns) / (n - p->cost_n);
		if (cost * 100 > p->period_ns * p->budget) {
			p->over = 1;
			ap_collector__notef(c,
					    "cpu: samples cost %.1f us each (timer %.1f, program %.1f): %llu%% of a busy CPU, over perf_cpu_time_max_percent (%u%%); lower -F or raise -c",
					    cost / 1000.0, p->irq_ns / 1000.0,
					    (cost - p->irq_ns) / 1000.0,
					    (unsigned long long)(cost * 100 /
								 p->period_ns),
					    p->budget);
			st = &c->status[idx];
			len = strlen(st->source);
			snprintf(st->source + len, sizeof(st->source) - len,
				 ", %llu%% of a CPU",
				 (unsigned long long)(cost * 100 /
						      p->period_ns));
		}
	}
	p->at_ns = now;
	p->cost_ns = ns;
	p->cost_n = n;
	return 0;
}

/* no more samples: the targets run free while the rest is drained */
static void cpu_stop(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "cpu");
	struct cpu_priv *p = idx >= 0 ? c->priv[idx] : NULL;
	int cpu;

	for (cpu = 0; p && cpu < p->nr; cpu++)
		if (p->fds[cpu] >= 0)
			ioctl(p->fds[cpu], PERF_EVENT_IOC_DISABLE, 0);
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
	.poll = cpu_poll,
	.stop = cpu_stop,
	.close = cpu_close,
};
