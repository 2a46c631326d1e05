// SPDX-License-Identifier: GPL-2.0
/*
 * Memory accesses: AMD IBS op sampling, or software page faults where the
 * CPU has no IBS.  Either way bpf/mem.bpf.c runs on each overflow of the
 * events and sends the sample, with its kernel stack and its user stack
 * (CFI, or frame pointers with --call-graph fp), into the ring buffer
 * every sensor writes: the stack is the sample's own, whatever the
 * reader's delay.  The perf events have no ring of their own.
 *
 * One event per thread of each target, opened with inherit=1 so that the
 * threads and processes they create later are sampled too (they inherit
 * the program); per CPU with -a (and for IBS on kernels that refuse
 * per-task IBS, where the program keeps the targets' samples alone).
 *
 * When samples are lost (the BPF program counts them in ap_mem_lost) the
 * period doubles, up to a bound, on every event at once, and the change
 * is delivered as an AP_MEM_KIND_PERIOD record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "mem.h"
#include "record/perf_decode.h"
#include "record/sensor.h"

#define IBS_OP_DIR	"/sys/bus/event_source/devices/ibs_op"

struct mem_priv {
	uint32_t source;		/* AP_MEM_SRC_* */
	uint64_t sample_type;
	uint64_t period;
	int per_cpu;			/* events per CPU, not per thread */
	int filter;			/* per CPU for targets: BPF filters */
	int *fds;			/* every event, for ioctl and close */
	size_t nr, cap;
	uint64_t lost;			/* ap_mem_lost's sum, as last read */
	uint64_t *lost_cpu;		/* [ncpus]: one lookup's values */
	int prog_fd;			/* ap_mem_sample */
	struct ap_ev_mem *ev;		/* PERIOD records */
};

static struct mem_priv *priv_of(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "mem");

	return idx >= 0 ? c->priv[idx] : NULL;
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static int read_u64_file(const char *path, uint64_t *v)
{
	unsigned long long x;
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%llu", &x) == 1;
	fclose(f);
	if (!ok)
		return -EINVAL;
	*v = x;
	return 0;
}

/* the config bit of a format field ("config:19"), or -1 */
static int format_bit(const char *field)
{
	char path[256];
	int bit = -1;
	FILE *f;

	snprintf(path, sizeof(path), IBS_OP_DIR "/format/%s", field);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "config:%d", &bit) != 1)
		bit = -1;
	fclose(f);
	return bit;
}

static int mem_prepare(struct ap_collector *c, struct aperture_bpf *skel,
		       int enabled)
{
	bpf_program__set_autoload(skel->progs.ap_mem_sample, enabled);
	return 0;
}

static void fill_attr(struct mem_priv *p, struct perf_event_attr *attr,
		      uint32_t type, uint64_t config, int inherit)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->sample_period = p->period;
	attr->sample_type = p->sample_type;
	attr->inherit = inherit;
	/* enabled once the program is on it (add_event) */
	attr->disabled = 1;
}

static int add_event(struct mem_priv *p, int fd)
{
	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		int *n = realloc(p->fds, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->fds = n;
		p->cap = cap;
	}
	/* the samples reach user space only through the program */
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, p->prog_fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return -errno;
	p->fds[p->nr++] = fd;
	return 0;
}

struct open_ctx {
	struct ap_collector *c;
	struct mem_priv *p;
	struct perf_event_attr *attr;
	int opened;
	int err;			/* first error other than a gone thread */
};

/* the event of pid (-1: all) on cpu (-1: all); an offline CPU is
 * skipped */
static int open_one(struct open_ctx *oc, pid_t pid, int cpu)
{
	int fd = perf_open(oc->attr, pid, cpu), err;

	if (fd < 0) {
		err = -errno;
		/* a thread that exited since it was listed */
		if (err == -ESRCH || err == -ENODEV)
			return 0;
		if (!oc->err)
			oc->err = err;
		return err;
	}
	err = add_event(oc->p, fd);
	if (err) {
		close(fd);
		if (!oc->err)
			oc->err = err;
		return err;
	}
	oc->opened++;
	return 0;
}

/* every thread of pid, from /proc/PID/task: with no ring to mmap, one
 * inherited event a thread follows it on every CPU */
static int open_process(struct open_ctx *oc, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while (!err && (d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		err = open_one(oc, atoi(d->d_name), -1);
	}
	closedir(dir);
	return err;
}

static int open_per_thread(struct open_ctx *oc)
{
	int fd = bpf_map__fd(oc->c->skel->maps.targets);
	__u32 key, next;
	__u32 *prev = NULL;
	int err;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		err = open_process(oc, (pid_t)key);
		if (err)
			return err;
	}
	return oc->opened ? 0 : (oc->err ? oc->err : -ESRCH);
}

static int open_per_cpu(struct open_ctx *oc)
{
	int cpu, err;

	for (cpu = 0; cpu < oc->c->ncpus; cpu++) {
		err = open_one(oc, -1, cpu);
		if (err)
			return err;
	}
	return oc->opened ? 0 : -ENODEV;
}

static void close_all(struct mem_priv *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		close(p->fds[i]);
	p->nr = 0;
}

/* opens the events of p->source; 0 or -errno (events closed) */
static int open_events(struct ap_collector *c, struct mem_priv *p,
		       uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;
	struct open_ctx oc = { c, p, &attr, 0, 0 };
	int err;

	/* the program names the source in each record */
	c->skel->bss->ap_mem_source = p->source;
	p->per_cpu = c->opts.system_wide;
	p->filter = 0;
	fill_attr(p, &attr, type, config, !p->per_cpu);
	err = p->per_cpu ? open_per_cpu(&oc) : open_per_thread(&oc);
	if (err && !p->per_cpu && p->source == AP_MEM_SRC_IBS_OP &&
	    (err == -EINVAL || err == -EOPNOTSUPP || err == -ENOENT)) {
		/* a kernel without per-task IBS: every CPU, filtered */
		close_all(p);
		oc.opened = 0;
		oc.err = 0;
		p->per_cpu = 1;
		p->filter = 1;
		fill_attr(p, &attr, type, config, 0);
		err = open_per_cpu(&oc);
	}
	if (err)
		close_all(p);
	return err;
}

static void explain(struct ap_sensor *st, const char *what, int err)
{
	if (err == -EACCES || err == -EPERM)
		snprintf(st->reason, sizeof(st->reason),
			 "perf_event_open(%s): %s; run as root or grant CAP_PERFMON (and check /proc/sys/kernel/perf_event_paranoid)",
			 what, strerror(-err));
	else if (err == -ESRCH)
		snprintf(st->reason, sizeof(st->reason),
			 "perf_event_open(%s): the target has no threads left",
			 what);
	else
		snprintf(st->reason, sizeof(st->reason),
			 "perf_event_open(%s) with its BPF program: %s", what,
			 strerror(-err));
}

static int mem_attach(struct ap_collector *c, struct aperture_bpf *skel,
		      struct ap_sensor *st)
{
	/* what the program reads: the address (set by the kernel only when
	 * asked for), and for IBS its registers and data source */
	const uint64_t base_type = PERF_SAMPLE_ADDR;
	char ibs_why[160] = "";
	uint64_t ibs_type = 0;
	struct mem_priv *p;
	int err, bit;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->priv[ap_sensor_index(c, "mem")] = p;
	p->ev = calloc(1, sizeof(*p->ev));
	p->lost_cpu = calloc(c->ncpus, sizeof(*p->lost_cpu));
	if (!p->ev || !p->lost_cpu)
		return -ENOMEM;
	p->prog_fd = bpf_program__fd(skel->progs.ap_mem_sample);

	err = read_u64_file(IBS_OP_DIR "/type", &ibs_type);
	if (!err) {
		/* cnt_ctl=1: count dispatched ops, not cycles, so that the
		 * period is "every N operations" as -c says */
		bit = format_bit("cnt_ctl");
		p->source = AP_MEM_SRC_IBS_OP;
		p->sample_type = base_type | PERF_SAMPLE_PERIOD |
				 PERF_SAMPLE_RAW | PERF_SAMPLE_DATA_SRC;
		p->period = ap_mem_period(p->source, c->opts.mem_density,
					  c->opts.mem_period);
		err = open_events(c, p, (uint32_t)ibs_type,
				  bit >= 0 ? 1ull << bit : 0);
		if (!err) {
			snprintf(st->source, sizeof(st->source), "ibs_op%s",
				 p->filter ? " (per CPU, filtered)" : "");
			goto out_ok;
		}
		if (err == -EACCES || err == -EPERM) {
			explain(st, "ibs_op", err);
			return err;
		}
		snprintf(ibs_why, sizeof(ibs_why),
			 "ibs_op could not be opened (%s)", strerror(-err));
	} else {
		snprintf(ibs_why, sizeof(ibs_why),
			 "no AMD IBS op PMU on this CPU");
	}

	/* the fallback every kernel has: page faults, with their address */
	ap_collector__notef(c, "mem: %s: sampling page faults instead",
			    ibs_why);
	p->source = AP_MEM_SRC_PAGE_FAULT;
	/* no PERIOD: with it a software event samples every fault (the
	 * kernel's perf_swevent_event); the sample's period is then the
	 * event's */
	p->sample_type = base_type;
	p->period = ap_mem_period(p->source, c->opts.mem_density,
				  c->opts.mem_period);
	err = open_events(c, p, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	if (err) {
		explain(st, "page-faults", err);
		return err;
	}
	st->state = AP_SENSOR_FALLBACK;
	snprintf(st->source, sizeof(st->source), "page-faults");
	snprintf(st->reason, sizeof(st->reason),
		 "%s (%s): page faults sampled instead, no load/store split",
		 ibs_why, IBS_OP_DIR);
out_ok:
	if (c->opts.mem_period && p->period != c->opts.mem_period)
		ap_collector__notef(c,
				    "mem: period %llu adjusted to %llu for %s",
				    (unsigned long long)c->opts.mem_period,
				    (unsigned long long)p->period, st->source);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int on_lost(struct ap_collector *c, struct mem_priv *p, uint64_t n)
{
	struct ap_ev_mem *e = p->ev;
	uint64_t next;
	size_t i;

	p->lost += n;
	next = ap_mem_period_after_loss(p->source, p->period);
	if (next != p->period) {
		for (i = 0; i < p->nr; i++)
			ioctl(p->fds[i], PERF_EVENT_IOC_PERIOD, &next);
		ap_collector__notef(c,
				    "mem: %llu samples lost, period doubled to %llu",
				    (unsigned long long)p->lost,
				    (unsigned long long)next);
		p->period = next;
	}
	/* the cumulative count goes out even at the bound */
	memset(e, 0, offsetof(struct ap_ev_mem, st));
	e->st.kstack_sz = e->st.ustack_sz = 0;
	e->hdr.type = AP_EV_MEM;
	e->hdr.ts = mono_ns();
	e->kind = AP_MEM_KIND_PERIOD;
	e->source = p->source;
	e->period = p->period;
	e->lost = p->lost;
	return ap_collector__deliver(c, e, sizeof(*e)) ? -EINTR : 1;
}

/* samples the program could not send since the last poll */
static int mem_poll(struct ap_collector *c)
{
	struct mem_priv *p = priv_of(c);
	__u32 zero = 0;
	uint64_t sum = 0;
	int cpu;

	if (!p || bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.ap_mem_lost),
				      &zero, p->lost_cpu))
		return 0;
	for (cpu = 0; cpu < c->ncpus; cpu++)
		sum += p->lost_cpu[cpu];
	return sum > p->lost ? on_lost(c, p, sum - p->lost) : 0;
}

/* recording stops: the events sample no more */
static void mem_stop(struct ap_collector *c)
{
	struct mem_priv *p = priv_of(c);
	size_t i;

	for (i = 0; p && i < p->nr; i++)
		ioctl(p->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

static void mem_close(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "mem");
	struct mem_priv *p = idx >= 0 ? c->priv[idx] : NULL;

	if (!p)
		return;
	close_all(p);
	free(p->lost_cpu);
	free(p->fds);
	free(p->ev);
	free(p);
	c->priv[idx] = NULL;
}

const struct ap_sensor_ops ap_sensor_mem = {
	.name = "mem",
	.tag = AP_TAG_MEM,
	.prepare = mem_prepare,
	.attach = mem_attach,
	.poll = mem_poll,
	.stop = mem_stop,
	.close = mem_close,
};
