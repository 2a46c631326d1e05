// SPDX-License-Identifier: GPL-2.0
/*
 * Memory accesses: AMD IBS op sampling, or software page faults where the
 * CPU has no IBS.  Either way the samples come from perf ring buffers read
 * here, in user space: the BPF object never sees them (IBS's registers
 * reach only PERF_SAMPLE_RAW).
 *
 * One event per thread of each target, opened with inherit=1 so that the
 * threads and processes they create later are sampled into the same ring;
 * per CPU with -a (and for IBS on kernels that refuse per-task IBS, then
 * filtered against the target set).  Kernel stacks come from
 * PERF_SAMPLE_CALLCHAIN; user stacks from the CFI unwinder, run by
 * bpf/mem.bpf.c on each sample as the kernel takes it (bpf/mem.h), or
 * with --call-graph fp (or when that is not to be had) from the
 * callchain's frame-pointer walk.
 *
 * When samples are lost the period doubles, up to a bound, on every event
 * at once, and the change is delivered as an AP_MEM_KIND_PERIOD record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "util/hmap.h"
#include "mem.h"
#include "record/perf_decode.h"
#include "record/sensor.h"

#define IBS_OP_DIR	"/sys/bus/event_source/devices/ibs_op"
#define RING_PAGES	64		/* data pages per ring: 256 KiB */
#define MAX_RECORD	65536		/* u16 header size */

/* one ring per CPU: every event on that CPU writes into it */
struct mem_ring {
	int fd;				/* the event that owns the buffer */
	int hup;			/* owner's task gone: out of epoll */
	void *base;
	size_t len;
};

struct mem_priv {
	uint32_t source;		/* AP_MEM_SRC_* */
	uint64_t sample_type;
	uint64_t period;
	int per_cpu;			/* events per CPU, not per thread */
	int filter;			/* per CPU for targets: filter here */
	struct mem_ring *rings;		/* [ncpus]; fd -1: none yet */
	int nr_rings;
	int *fds;			/* every event, for ioctl and close */
	size_t nr, cap;
	uint64_t lost;
	size_t page;
	pid_t self;
	uint8_t *rec;			/* one record, copied out of a ring */
	int prog_fd;			/* ap_mem_stack; -1: user stacks by fp */
	struct ap_mem_ustack *ustacks;	/* [ncpus * AP_MEM_SLOTS], mmap'ed */
	size_t ustacks_len;
	uint64_t *next_seq;		/* [ncpus]: where the next one may be */
	uint64_t ustack_miss;		/* samples whose slot was gone */
	struct ap_ev_mem *ev;
	struct ap_hmap target_cache;	/* pid -> 1 target, 2 not; per poll */
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
	int cfi = enabled && c->opts.call_graph == AP_CALL_GRAPH_CFI;

	/* the samples are read in user space; the BPF side only unwinds */
	bpf_program__set_autoload(skel->progs.ap_mem_stack, cfi);
	bpf_map__set_max_entries(skel->maps.ap_mem_ustacks,
				 cfi ? c->ncpus * AP_MEM_SLOTS : 1);
	return 0;
}

/* after load: the slots mapped, the program ready for each event */
static int ustacks_open(struct ap_collector *c, struct mem_priv *p)
{
	size_t len = (size_t)c->ncpus * AP_MEM_SLOTS *
		     sizeof(struct ap_mem_ustack);
	void *m;

	_Static_assert(sizeof(struct ap_mem_ustack) % 8 == 0,
		       "slots are laid out as the array map lays out elements");
	p->prog_fd = -1;
	if (c->opts.call_graph != AP_CALL_GRAPH_CFI ||
	    bpf_program__fd(c->skel->progs.ap_mem_stack) < 0)
		return 0;
	len = (len + p->page - 1) & ~(p->page - 1);
	m = mmap(NULL, len, PROT_READ, MAP_SHARED,
		 bpf_map__fd(c->skel->maps.ap_mem_ustacks), 0);
	p->next_seq = calloc(c->ncpus, sizeof(*p->next_seq));
	if (m == MAP_FAILED || !p->next_seq) {
		if (m != MAP_FAILED)
			munmap(m, len);
		return 0;		/* frame pointers, as before */
	}
	p->ustacks = m;
	p->ustacks_len = len;
	p->prog_fd = bpf_program__fd(c->skel->progs.ap_mem_stack);
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
	/* the BPF side's clock, so that samples and task events order */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->sample_id_all = 1;
	/* exec shows in the ring where it happened: see handle_comm() */
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->watermark = 1;
	attr->wakeup_watermark = RING_PAGES * p->page / 2;
	/* enabled once the unwinder is on it (add_event) */
	attr->disabled = 1;
}

static int map_ring(struct ap_collector *c, struct mem_priv *p,
		    struct mem_ring *r, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	size_t len = (1 + RING_PAGES) * p->page;
	void *base;

	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	/*
	 * Wake the collector's poll when a ring is half full: the fd joins
	 * the BPF ring buffer's epoll set under ring id 0, so a wakeup only
	 * makes libbpf look at its own ring, and the next poll round reads
	 * ours.  Without it, a burst of faults overruns a ring in between
	 * two 100 ms polls.
	 */
	ev.data.fd = 0;
	if (epoll_ctl(ring_buffer__epoll_fd(c->rb), EPOLL_CTL_ADD, fd, &ev)) {
		int err = -errno;

		munmap(base, len);
		return err;
	}
	r->fd = fd;
	r->hup = 0;
	r->base = base;
	r->len = len;
	return 0;
}

/*
 * Takes fd, an event on cpu: the first one of a CPU gets the ring, the
 * others write into it (PERF_EVENT_IOC_SET_OUTPUT).  The kernel refuses
 * to mmap an inherited per-task event that is not bound to a CPU, which
 * is why events are per (thread, CPU), as perf record does.
 */
static int add_event(struct ap_collector *c, struct mem_priv *p, int fd,
		     int cpu)
{
	struct mem_ring *r = &p->rings[cpu];
	int err;

	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		int *n = realloc(p->fds, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->fds = n;
		p->cap = cap;
	}
	if (r->fd < 0)
		err = map_ring(c, p, r, fd);
	else
		err = ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) ? -errno : 0;
	if (err)
		return err;
	/* the unwinder on each sample; a kernel that refuses it leaves the
	 * frame-pointer chains */
	if (p->prog_fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_BPF, p->prog_fd)) {
		ap_collector__notef(c, "mem: the CFI unwinder cannot run on %s samples (%s): user stacks by frame pointers",
				    p->source == AP_MEM_SRC_IBS_OP ? "IBS" : "page-fault",
				    strerror(errno));
		p->prog_fd = -1;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
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

/* the event of pid (-1: all) on cpu; a CPU that is offline is skipped */
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
	err = add_event(oc->c, oc->p, fd, cpu);
	if (err) {
		close(fd);
		if (!oc->err)
			oc->err = err;
		return err;
	}
	oc->opened++;
	return 0;
}

/* every thread of pid, from /proc/PID/task, on every CPU */
static int open_process(struct open_ctx *oc, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int err = 0, cpu;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while (!err && (d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		for (cpu = 0; !err && cpu < oc->p->nr_rings; cpu++)
			err = open_one(oc, atoi(d->d_name), cpu);
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

	for (cpu = 0; cpu < oc->p->nr_rings; cpu++) {
		err = open_one(oc, -1, cpu);
		if (err)
			return err;
	}
	return oc->opened ? 0 : -ENODEV;
}

static void close_all(struct ap_collector *c, struct mem_priv *p)
{
	size_t i;
	int cpu;

	for (cpu = 0; p->rings && cpu < p->nr_rings; cpu++) {
		struct mem_ring *r = &p->rings[cpu];

		if (r->fd < 0)
			continue;
		if (!r->hup)
			epoll_ctl(ring_buffer__epoll_fd(c->rb), EPOLL_CTL_DEL,
				  r->fd, NULL);
		munmap(r->base, r->len);
		r->fd = -1;
	}
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

	p->per_cpu = c->opts.system_wide;
	p->filter = 0;
	fill_attr(p, &attr, type, config, !p->per_cpu);
	err = p->per_cpu ? open_per_cpu(&oc) : open_per_thread(&oc);
	if (err && !p->per_cpu && p->source == AP_MEM_SRC_IBS_OP &&
	    (err == -EINVAL || err == -EOPNOTSUPP || err == -ENOENT)) {
		/* a kernel without per-task IBS: every CPU, filtered */
		close_all(c, p);
		oc.opened = 0;
		oc.err = 0;
		p->per_cpu = 1;
		p->filter = 1;
		fill_attr(p, &attr, type, config, 0);
		err = open_per_cpu(&oc);
	}
	if (err)
		close_all(c, p);
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
			 "perf_event_open(%s): %s", what, strerror(-err));
}

static int mem_attach(struct ap_collector *c, struct aperture_bpf *skel,
		      struct ap_sensor *st)
{
	const uint64_t base_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
		PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
		PERF_SAMPLE_DATA_SRC;
	char ibs_why[160] = "";
	uint64_t ibs_type = 0;
	struct mem_priv *p;
	int err, bit;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->priv[ap_sensor_index(c, "mem")] = p;
	p->page = sysconf(_SC_PAGESIZE);
	p->self = getpid();
	p->rec = malloc(MAX_RECORD);
	p->ev = calloc(1, sizeof(*p->ev));
	p->nr_rings = c->ncpus;
	p->rings = calloc(p->nr_rings, sizeof(*p->rings));
	ap_hmap__init(&p->target_cache);
	if (!p->rec || !p->ev || !p->rings)
		return -ENOMEM;
	ustacks_open(c, p);
	for (err = 0; err < p->nr_rings; err++)
		p->rings[err].fd = -1;

	err = read_u64_file(IBS_OP_DIR "/type", &ibs_type);
	if (!err) {
		/* cnt_ctl=1: count dispatched ops, not cycles, so that the
		 * period is "every N operations" as -c says */
		bit = format_bit("cnt_ctl");
		p->source = AP_MEM_SRC_IBS_OP;
		p->sample_type = base_type | PERF_SAMPLE_RAW;
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
	 * kernel's perf_swevent_event); the weight is our own period */
	p->sample_type = base_type & ~(uint64_t)PERF_SAMPLE_PERIOD;
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

static int is_target(struct ap_collector *c, struct mem_priv *p, uint32_t pid)
{
	uint64_t *v;
	__u32 key = pid;
	__u8 val;
	int fresh;

	if (pid == (uint32_t)p->self)
		return 0;
	if (!p->filter)
		return 1;
	v = ap_hmap__upsert(&p->target_cache, pid, &fresh);
	if (!v)
		return 0;
	if (fresh)
		*v = bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.targets),
					 &key, &val) ? 2 : 1;
	return *v == 1;
}

/*
 * The CFI user stack of sample s, read on ring cpu, in place of the
 * callchain's: the slots of that CPU hold its samples in ring order, so
 * the sample's is at or after the one the previous sample had; a slot
 * reused since (the ring was read late) leaves the callchain's frames.
 */
static void take_ustack(struct mem_priv *p, int cpu,
			const struct ap_perf_sample *s, struct ap_stacks *st)
{
	const struct ap_mem_ustack *base = p->ustacks +
					   (size_t)cpu * AP_MEM_SLOTS;
	uint64_t next = p->next_seq[cpu], ips[AP_MAX_USTACK];
	uint32_t nk = (uint32_t)st->kstack_sz / 8, k, uflags;

	for (k = 0; k < AP_MEM_SLOTS; k++) {
		const struct ap_mem_ustack *u =
			&base[(next + k) % AP_MEM_SLOTS];
		uint64_t seq = __atomic_load_n(&u->seq, __ATOMIC_ACQUIRE);
		int32_t sz;

		if (seq == ~0ull || seq < next + k)
			break;		/* not written yet, or older */
		if (seq != next + k)
			continue;	/* reused: further on, maybe */
		if (u->tid != s->tid || u->ip != s->ip || u->addr != s->addr)
			continue;	/* a sample the ring lost */
		sz = u->ustack_sz;
		uflags = u->uflags;
		if (sz < 0 || sz > AP_MAX_USTACK * 8 || nk > AP_MAX_KSTACK)
			break;
		memcpy(ips, u->ips, (size_t)sz);
		/* still the same slot: not rewritten while copied */
		if (__atomic_load_n(&u->seq, __ATOMIC_ACQUIRE) != seq)
			break;
		memcpy(&st->ips[nk], ips, (size_t)sz);
		st->ustack_sz = sz;
		st->uflags = uflags;
		p->next_seq[cpu] = seq + 1;
		return;
	}
	p->ustack_miss++;
}

static int deliver_sample(struct ap_collector *c, struct mem_priv *p,
			  int cpu, const void *rec, size_t size)
{
	struct ap_ev_mem *e = p->ev;
	struct ap_perf_sample s;
	struct ap_ibs_op op;

	if (ap_perf_sample__parse(rec, size, p->sample_type, &s))
		return 0;
	if (!is_target(c, p, s.pid))
		return 0;
	memset(e, 0, offsetof(struct ap_ev_mem, st));
	e->hdr.type = AP_EV_MEM;
	e->hdr.pid = s.pid;
	e->hdr.tid = s.tid;
	e->hdr.cpu = s.cpu;
	e->hdr.ts = s.time;
	e->kind = AP_MEM_KIND_SAMPLE;
	e->source = p->source;
	e->ip = s.ip;
	e->addr = s.addr;
	e->period = s.period ? s.period : p->period;
	if (s.addr)
		e->flags |= AP_MEM_F_ADDR;
	if (s.ip >= 0xffff800000000000ull)
		e->flags |= AP_MEM_F_KERNEL_IP;
	if (p->source == AP_MEM_SRC_IBS_OP && !ap_ibs_op__parse(s.raw,
							s.raw_size, &op)) {
		union perf_mem_data_src k = { .val = s.data_src };

		ap_ibs_op__decode(&op, e);
		/* the kernel's own decoding (6.1+) knows more families */
		if (s.data_src && k.mem_op != PERF_MEM_OP_NA)
			e->data_src = s.data_src;
	}
	ap_perf_callchain__split(s.callchain, s.nr_callchain, &e->st);
	if (p->ustacks)
		take_ustack(p, cpu, &s, &e->st);
	return ap_collector__deliver(c, e, sizeof(*e)) ? -EINTR : 1;
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

/*
 * PERF_RECORD_COMM with the exec flag: a target exec'd here in the ring's
 * order.  The BPF exec record was written before the new image ran, so
 * draining the BPF ring now hands the recorder the exec (and the new
 * mappings) before any sample of the new image.
 */
static void handle_comm(struct ap_collector *c, const struct perf_event_header *h)
{
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
		ring_buffer__consume(c->rb);
}

static int drain_ring(struct ap_collector *c, struct mem_priv *p,
		      struct mem_ring *r)
{
	struct perf_event_mmap_page *meta = r->base;
	const uint8_t *data = (const uint8_t *)r->base + p->page;
	uint64_t size = RING_PAGES * p->page;
	uint64_t head, tail;
	int n, total = 0, err = 0;

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while ((n = ap_perf_ring__read(data, size, &tail, head, p->rec,
				       MAX_RECORD)) != 0) {
		const struct perf_event_header *h = (const void *)p->rec;
		uint64_t lost;

		if (n < 0)
			break;		/* tail is at head: nothing misread */
		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			err = deliver_sample(c, p, (int)(r - p->rings), p->rec, n);
			break;
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES:
			if (!ap_perf_lost__parse(p->rec, n, &lost) && lost)
				err = on_lost(c, p, lost);
			break;
		case PERF_RECORD_COMM:
			handle_comm(c, h);
			break;
		}
		if (err < 0)
			break;
		total += err;
		err = 0;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return err < 0 ? err : total;
}

static int mem_poll(struct ap_collector *c)
{
	struct mem_priv *p = priv_of(c);
	size_t i;
	int n, total = 0;

	if (!p)
		return 0;
	/* a pid seen as "not a target" may become one (fork): per poll */
	if (p->filter && p->target_cache.nr)
		ap_hmap__free(&p->target_cache);
	for (i = 0; i < (size_t)p->nr_rings; i++) {
		struct mem_ring *r = &p->rings[i];
		struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

		if (r->fd < 0)
			continue;
		n = drain_ring(c, p, r);
		if (n < 0)
			return n;
		total += n;
		/* the thread exited: its fd now polls HUP forever, which
		 * would spin the collector's epoll; leave the set (what
		 * inherited children write still lands here, read on the
		 * next rounds) */
		if (!r->hup && poll(&pfd, 1, 0) == 1 &&
		    (pfd.revents & POLLHUP)) {
			epoll_ctl(ring_buffer__epoll_fd(c->rb), EPOLL_CTL_DEL,
				  r->fd, NULL);
			r->hup = 1;
		}
	}
	return total;
}

/* recording stops: the events write no more; what the rings hold is
 * still read */
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
	close_all(c, p);
	if (p->ustack_miss)
		ap_collector__notef(c, "mem: %llu samples kept their frame-pointer user stacks: read after their CFI stacks were overwritten",
				    (unsigned long long)p->ustack_miss);
	if (p->ustacks)
		munmap(p->ustacks, p->ustacks_len);
	free(p->next_seq);
	ap_hmap__free(&p->target_cache);
	free(p->rings);
	free(p->fds);
	free(p->rec);
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
