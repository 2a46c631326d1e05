// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling: tp_btf programs on sched_switch, sched_wakeup(_new) and
 * sched_process_exit (bpf/sched.bpf.c).  Besides the records the kernel
 * side sends, this sensor reads the per-thread table every second and at
 * the end, and sends each live thread's totals, with the time of the
 * current on- or off-CPU stretch added; at the end it also sends the
 * off-CPU intervals still open, with their stacks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "util/hmap.h"
#include "record/procfs.h"
#include "sched.h"
#include "record/sensor.h"

#define SNAPSHOT_NS	(1000 * 1000 * 1000ull)

struct sched_priv {
	uint64_t last_snap;
	struct ap_hmap sent;		/* tid -> hash of the totals last sent */
	/* from the stop (sched_stop) on: each thread's run time as the
	 * kernel counted it then, + 1 (0: not readable), and when the
	 * reading ended; the final totals end there, not after the drain */
	struct ap_hmap rt_stop;
	uint64_t stop_ns;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static struct sched_priv *priv_of(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "sched");

	return idx >= 0 ? c->priv[idx] : NULL;
}

static int sched_prepare(struct ap_collector *c, struct aperture_bpf *skel,
			 int enabled)
{
	bpf_program__set_autoload(skel->progs.ap_sched_switch, enabled);
	bpf_program__set_autoload(skel->progs.ap_sched_wakeup, enabled);
	bpf_program__set_autoload(skel->progs.ap_sched_wakeup_new, enabled);
	bpf_program__set_autoload(skel->progs.ap_sched_exit, enabled);
	skel->rodata->ap_sched_min_block_ns = c->opts.min_block_ns;
	skel->rodata->ap_sched_totals = !!c->opts.totals;
	return 0;
}

static int attach_one(struct bpf_program *prog, struct bpf_link **link,
		      const char *tp, struct ap_sensor *st)
{
	int err;

	*link = bpf_program__attach(prog);
	if (*link)
		return 0;
	err = -errno;
	snprintf(st->reason, sizeof(st->reason),
		 "attaching tp_btf/%s: %s; needs BPF trampolines (CONFIG_DEBUG_INFO_BTF, CONFIG_BPF_JIT) and CAP_BPF + CAP_PERFMON",
		 tp, strerror(-err));
	return err;
}

struct seed_ctx {
	int fd;
	pid_t pid;
	uint64_t t0;
	int running_only;	/* -a: only the threads on a CPU */
};

/* one thread of a target as /proc shows it when recording begins */
static int seed_thread(void *ctx, pid_t tid)
{
	struct seed_ctx *sc = ctx;
	struct ap_sched_thread t;
	char path[64], buf[512], *p;
	uint64_t rt = 0;
	__u32 key = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", sc->pid, tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	if (!p || p[1] != ' ')
		return 0;
	if (sc->running_only && p[2] != 'R')
		return 0;
	memset(&t, 0, sizeof(t));
	t.pid = sc->pid;
	t.last_cpu = (__u32)-1;
	/* on-CPU time counts from here; unreadable, it is not known */
	if (ap_proc_thread_runtime(sc->pid, tid, &rt))
		t.flags |= AP_SCHED_T_RT_PARTIAL;
	t.rt_base = rt;
	if (p[2] == 'R') {
		/* running or runnable: taken as on a CPU since the start */
		t.flags |= AP_SCHED_T_ON | AP_SCHED_T_CLIPPED;
		t.in_ts = sc->t0;
	} else {
		t.flags |= AP_SCHED_T_OFF | AP_SCHED_T_CLIPPED;
		t.out_ts = sc->t0;
		t.out_state = AP_SCHED_BLOCKED;
	}
	/* the kernel side may have seen it already: it knows better */
	bpf_map_update_elem(sc->fd, &key, &t, BPF_NOEXIST);
	return 0;
}

static int seed_process(void *ctx, pid_t pid)
{
	struct seed_ctx *sc = ctx;

	sc->pid = pid;
	ap_proc_threads(pid, seed_thread, sc);
	return 0;
}

/*
 * Threads of the targets that will not switch for a while (asleep for
 * the whole recording) would otherwise be invisible: an entry for each,
 * from /proc, before the programs attach.  -a seeds only the threads on
 * a CPU (the whole system's would fill the table): the others are first
 * seen at a switch-in, when their run time so far is known.  A thread
 * first seen leaving a CPU ran for a time not known.
 */
static void seed_targets(struct ap_collector *c, uint64_t t0)
{
	int tfd = bpf_map__fd(c->skel->maps.targets);
	struct seed_ctx sc = { bpf_map__fd(c->skel->maps.sched_thr), 0, t0,
			       0 };
	const struct ap_collect_opts *o = &c->opts;
	__u32 key, next, *prev = NULL;

	if (o->system_wide) {
		/* with filters, a seeded thread might not be a target */
		sc.running_only = 1;
		if (!o->nr_tids && !o->cpu_mask && !o->filter_uid &&
		    !o->cgroup_id)
			ap_proc_pids(seed_process, &sc);
		return;
	}
	while (!bpf_map_get_next_key(tfd, prev, &next)) {
		key = next;
		prev = &key;
		seed_process(&sc, key);
	}
}

static int sched_attach(struct ap_collector *c, struct aperture_bpf *skel,
			struct ap_sensor *st)
{
	struct sched_priv *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return -ENOMEM;
	ap_hmap__init(&p->sent);
	ap_hmap__init(&p->rt_stop);
	c->priv[ap_sensor_index(c, "sched")] = p;
	p->last_snap = mono_ns();
	/* threads first seen leaving a CPU have been on it since now */
	skel->bss->ap_sched_t0 = p->last_snap;
	seed_targets(c, p->last_snap);

	err = attach_one(skel->progs.ap_sched_exit, &skel->links.ap_sched_exit,
			 "sched_process_exit", st);
	if (!err)
		err = attach_one(skel->progs.ap_sched_wakeup,
				 &skel->links.ap_sched_wakeup, "sched_wakeup",
				 st);
	if (!err)
		err = attach_one(skel->progs.ap_sched_wakeup_new,
				 &skel->links.ap_sched_wakeup_new,
				 "sched_wakeup_new", st);
	if (!err)
		err = attach_one(skel->progs.ap_sched_switch,
				 &skel->links.ap_sched_switch, "sched_switch",
				 st);
	if (err)
		return err;
	snprintf(st->source, sizeof(st->source), "sched_switch");
	return 0;
}

/* the kernel's run time of a thread: read now, or after the stop as
 * read at the stop; 0 or -errno */
static int runtime(const struct sched_priv *p, const struct ap_sched_thread *t,
		   uint32_t tid, uint64_t *rt)
{
	const uint64_t *at;

	if (!p->stop_ns)
		return ap_proc_thread_runtime(t->pid, tid, rt);
	at = ap_hmap__find(&p->rt_stop, tid);
	if (!at || !*at)
		return -ENOENT;
	*rt = *at - 1;
	return 0;
}

/* the current stretch counted up to now, as if the thread switched now;
 * on-CPU time from the kernel's count, which needs no switch seen */
static void add_pending(const struct sched_priv *p, struct ap_sched_thread *t,
			uint32_t tid, uint64_t now)
{
	uint64_t rt;

	if (!runtime(p, t, tid, &rt) && rt >= t->rt_base)
		t->on_ns = rt - t->rt_base;
	else if (t->flags & AP_SCHED_T_ON)
		t->flags |= AP_SCHED_T_RT_PARTIAL;
	if (!(t->flags & AP_SCHED_T_OFF) || now < t->out_ts)
		return;
	if (t->out_state == AP_SCHED_PREEMPTED) {
		t->runnable_ns += now - t->out_ts;
	} else if ((t->flags & AP_SCHED_T_WOKEN) && t->wake_ts >= t->out_ts &&
		   now >= t->wake_ts) {
		t->blocked_ns += t->wake_ts - t->out_ts;
		t->runnable_ns += now - t->wake_ts;
	} else {
		t->blocked_ns += now - t->out_ts;
	}
}

/* an interval still open at the end, with its switch-out stacks */
static int send_open(struct ap_collector *c, const struct ap_sched_thread *t,
		     uint32_t tid, const char *comm, uint64_t now)
{
	struct ap_ev_sched_off *e;
	uint64_t off = now - t->out_ts;
	int err;

	if (off < c->opts.min_block_ns || c->opts.totals)
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	/* the record in the making, with the switch-out stacks packed as
	 * the kernel side sends them; the rest is filled in here */
	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.sched_stk), &tid,
				e)) {
		e->st.kstack_sz = 0;
		e->st.ustack_sz = 0;
	}
	e->hdr.type = AP_EV_SCHED;
	e->hdr.pid = t->pid;
	e->hdr.tid = tid;
	e->hdr.cpu = t->out_cpu;
	e->hdr.ts = now;
	e->kind = AP_SCHED_EV_OFF;
	e->state = t->out_state;
	e->off_ns = off;
	if ((t->flags & AP_SCHED_T_WOKEN) && now >= t->wake_ts)
		e->wakeup_ns = now - t->wake_ts;
	e->out_cpu = t->out_cpu;
	e->prev_state = t->prev_state;
	e->waker_pid = t->waker_pid;
	e->waker_tid = t->waker_tid;
	e->start_ns = t->start_ns;
	e->flags = AP_SCHED_F_OPEN |
		   (t->flags & AP_SCHED_T_CLIPPED ? AP_SCHED_F_CLIPPED : 0);
	if (t->flags & AP_SCHED_T_CLIPPED)
		e->st.kstack_sz = e->st.ustack_sz = 0;
	memcpy(e->comm, comm, sizeof(e->comm));
	err = ap_collector__deliver(c, e, sizeof(*e));
	free(e);
	return err;
}

/*
 * Sends the totals of every thread in the table; periodic snapshots skip
 * threads whose counters did not move since the last one.  Returns the
 * number of records sent or -errno.
 */
static int snapshot(struct ap_collector *c, struct sched_priv *p, int final)
{
	const struct ap_window *win = ap_collector__window(c);
	int fd = bpf_map__fd(c->skel->maps.sched_thr);
	__u32 key, next, *prev = NULL;
	uint64_t now = mono_ns();
	int err, n = 0;

	/* the final totals and open intervals end where the recording
	 * does, at the stop or the -d window's end, not after the drain */
	if (final && p->stop_ns && p->stop_ns < now)
		now = p->stop_ns;
	if (final && win->end_ns && win->end_ns < now)
		now = win->end_ns;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct ap_ev_sched_thread e;
		uint64_t h, *slot;
		int fresh;

		key = next;
		prev = &key;
		memset(&e, 0, sizeof(e));
		if (bpf_map_lookup_elem(fd, &key, &e.t))
			continue;	/* the thread exited meanwhile */
		h = ap_hash_bytes(&e.t, sizeof(e.t), 1);
		slot = ap_hmap__upsert(&p->sent, key, &fresh);
		if (!final && slot && !fresh && *slot == h &&
		    !(e.t.flags & AP_SCHED_T_ON))
			continue;
		if (slot)
			*slot = h;
		e.hdr.type = AP_EV_SCHED;
		e.hdr.pid = e.t.pid;
		e.hdr.tid = key;
		e.hdr.cpu = e.t.last_cpu;
		e.hdr.ts = now;
		e.kind = AP_SCHED_EV_THREAD;
		if (ap_proc_thread_comm(e.t.pid, key, e.comm, sizeof(e.comm)))
			e.comm[0] = '\0';
		if (final && (e.t.flags & AP_SCHED_T_OFF) && now >= e.t.out_ts) {
			err = send_open(c, &e.t, key, e.comm, now);
			if (err)
				return err;
		}
		add_pending(p, &e.t, key, now);
		if (final)
			e.t.flags |= AP_SCHED_T_FINAL;
		err = ap_collector__deliver(c, &e, sizeof(e));
		if (err)
			return err;
		n++;
	}
	p->last_snap = now;
	return n;
}

static int sched_poll(struct ap_collector *c)
{
	struct sched_priv *p = priv_of(c);

	if (!p ||
	    (!c->sums_due && mono_ns() - p->last_snap < SNAPSHOT_NS))
		return 0;
	return snapshot(c, p, 0);
}

/*
 * The sensors stop, and the programs leave the table as it is: each
 * thread's run time as the kernel counts it now, for the final totals,
 * which would otherwise count what it ran during the drain.  The
 * recording's end is taken once every sensor has stopped (the
 * recording's AP_PHASE_STOPPED), after these readings: each is the run
 * time up to a moment inside the recording, none is cut by a guess.
 */
static void sched_stop(struct ap_collector *c)
{
	int fd = bpf_map__fd(c->skel->maps.sched_thr);
	struct sched_priv *p = priv_of(c);
	__u32 key, next, *prev = NULL;

	if (!p)
		return;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct ap_sched_thread t;
		uint64_t rt, *slot;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &t))
			continue;
		slot = ap_hmap__upsert(&p->rt_stop, key, NULL);
		if (slot)
			*slot = ap_proc_thread_runtime(t.pid, key, &rt) ? 0 :
				rt + 1;
	}
	p->stop_ns = mono_ns();
}

/* Recording stops: detach so that the table holds still, take what the
 * ring buffer has, then the final totals and the open intervals. */
static int sched_finish(struct ap_collector *c)
{
	struct aperture_bpf *skel = c->skel;
	struct sched_priv *p = priv_of(c);

	if (!p)
		return 0;
	bpf_link__destroy(skel->links.ap_sched_switch);
	skel->links.ap_sched_switch = NULL;
	bpf_link__destroy(skel->links.ap_sched_wakeup);
	skel->links.ap_sched_wakeup = NULL;
	bpf_link__destroy(skel->links.ap_sched_wakeup_new);
	skel->links.ap_sched_wakeup_new = NULL;
	bpf_link__destroy(skel->links.ap_sched_exit);
	skel->links.ap_sched_exit = NULL;
	while (ap_collector__poll(c, 0) > 0)
		;
	return snapshot(c, p, 1);
}

static void sched_close(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "sched");
	struct sched_priv *p = idx >= 0 ? c->priv[idx] : NULL;

	if (!p)
		return;
	ap_hmap__free(&p->sent);
	ap_hmap__free(&p->rt_stop);
	free(p);
	c->priv[idx] = NULL;
}

const struct ap_sensor_ops ap_sensor_sched = {
	.name = "sched",
	.tag = AP_TAG_SCHED,
	.prepare = sched_prepare,
	.attach = sched_attach,
	.poll = sched_poll,
	.stop = sched_stop,
	.finish = sched_finish,
	.close = sched_close,
};
