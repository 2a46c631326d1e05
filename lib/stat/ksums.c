// SPDX-License-Identifier: GPL-2.0
#include "stat/ksums.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "record/collector.h"
#include "io.h"
#include "lock.h"
#include "sched.h"
#include "syscall.h"
#include "syscall/syscalls.h"

/* the busiest syscalls the aligned block shows under the total */
#define TOP_SC		10

#define IO	AP_TAG_IO
#define SCHED	AP_TAG_SCHED
#define LOCK	AP_TAG_LOCK

const struct ap_stat_ks_line ap_stat_ks_lines[AP_STAT_KS_NR] = {
	[AP_STAT_KS_IO_RCALLS] = { "io:read-calls", NULL, IO },
	[AP_STAT_KS_IO_RBYTES] = { "io:read-bytes", NULL, IO },
	[AP_STAT_KS_IO_RNS] = { "io:read-time", "msec", IO },
	[AP_STAT_KS_IO_RERRS] = { "io:read-errors", NULL, IO },
	[AP_STAT_KS_IO_WCALLS] = { "io:write-calls", NULL, IO },
	[AP_STAT_KS_IO_WBYTES] = { "io:write-bytes", NULL, IO },
	[AP_STAT_KS_IO_WNS] = { "io:write-time", "msec", IO },
	[AP_STAT_KS_IO_WERRS] = { "io:write-errors", NULL, IO },
	[AP_STAT_KS_SCHED_VOL] = { "sched:voluntary-switches", NULL, SCHED },
	[AP_STAT_KS_SCHED_INVOL] = { "sched:involuntary-switches", NULL,
				     SCHED },
	[AP_STAT_KS_SCHED_ON] = { "sched:on-cpu", "msec", SCHED },
	[AP_STAT_KS_SCHED_BLOCKED] = { "sched:off-cpu-blocked", "msec",
				       SCHED },
	[AP_STAT_KS_SCHED_RUNNABLE] = { "sched:off-cpu-runnable", "msec",
					SCHED },
	[AP_STAT_KS_SCHED_WAKEUPS] = { "sched:wakeups", NULL, SCHED },
	[AP_STAT_KS_SCHED_WAKEUP_NS] = { "sched:wakeup-latency", "msec",
					 SCHED },
	[AP_STAT_KS_SCHED_MIGRATIONS] = { "sched:migrations", NULL, SCHED },
	[AP_STAT_KS_LOCK_WAITS] = { "lock:waits", NULL, LOCK },
	[AP_STAT_KS_LOCK_FUTEX] = { "lock:futex-waits", NULL, LOCK },
	[AP_STAT_KS_LOCK_KERNEL] = { "lock:kernel-waits", NULL, LOCK },
	[AP_STAT_KS_LOCK_ERRS] = { "lock:wait-errors", NULL, LOCK },
	[AP_STAT_KS_LOCK_NS] = { "lock:wait-time", "msec", LOCK },
	[AP_STAT_KS_LOCK_MAX] = { "lock:wait-max", "msec", LOCK },
};

/* a thread's sched totals, in the order of the AP_STAT_KS_SCHED_* lines */
#define NR_SCHED	(AP_STAT_KS_SCHED_MIGRATIONS - AP_STAT_KS_SCHED_VOL + 1)

struct ap_stat_ks_thr {
	uint64_t done[NR_SCHED];	/* of its instances that exited */
	uint64_t live[NR_SCHED];	/* the live one's, last sent */
	uint64_t live_ts, exit_ts;
	int has_live;
};

static const struct {
	const char *name;
	uint32_t tag;
} sensors[] = {
	{ "syscall", AP_TAG_SYSCALL },
	{ "io", AP_TAG_IO },
	{ "sched", AP_TAG_SCHED },
	{ "lock", AP_TAG_LOCK },
};

int ap_stat_ksums__add(struct ap_stat_ksums *k, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(sensors) / sizeof(sensors[0]); i++)
		if (!strcmp(name, sensors[i].name)) {
			k->events |= AP_EVMASK(sensors[i].tag);
			return 1;
		}
	return 0;
}

static struct ap_stat_sc *sc_get(struct ap_stat_ksums *k, uint32_t id)
{
	if (id >= 4096)		/* no architecture numbers that high */
		return NULL;
	if (id >= k->nr_sc) {
		uint32_t nr = id + 64;
		struct ap_stat_sc *v = realloc(k->sc, nr * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + k->nr_sc, 0, (nr - k->nr_sc) * sizeof(*v));
		k->sc = v;
		k->nr_sc = nr;
	}
	return &k->sc[id];
}

/* io: the totals records, and the calls sent one by one (the first on
 * a file, with its path; those that did not fit the table) */
static void on_io(struct ap_stat_ksums *k, const void *data, size_t size)
{
	const struct ap_ev_io *e = data;
	double *v;

	if (size < sizeof(*e) || e->dir > AP_IO_WRITE)
		return;
	v = &k->io[e->dir == AP_IO_READ ? AP_STAT_KS_IO_RCALLS :
		   AP_STAT_KS_IO_WCALLS];
	if ((e->flags & AP_IO_F_SUM) && size >= sizeof(struct ap_ev_io_sum)) {
		const struct ap_io_sum *s = &((const struct ap_ev_io_sum *)
					      data)->sum;

		v[0] += (double)s->calls;
		v[1] += (double)s->bytes;
		v[2] += (double)s->ns;
		v[3] += (double)s->errors;
		return;
	}
	v[0]++;
	if (e->ret < 0)
		v[3]++;
	else
		v[1] += (double)e->ret;
	if (e->hdr.ts >= e->start)
		v[2] += (double)(e->hdr.ts - e->start);
}

static struct ap_stat_ks_thr *thr_get(struct ap_stat_ksums *k, uint32_t tid)
{
	uint64_t *slot;
	int fresh;

	slot = ap_hmap__upsert(&k->thr_idx, tid, &fresh);
	if (!slot)
		return NULL;
	if (!fresh)
		return &k->thr[*slot];
	if (k->nr_thr == k->cap_thr) {
		size_t cap = k->cap_thr ? 2 * k->cap_thr : 64;
		struct ap_stat_ks_thr *t = realloc(k->thr, cap * sizeof(*t));

		if (!t) {
			ap_hmap__remove(&k->thr_idx, tid);
			return NULL;
		}
		k->thr = t;
		k->cap_thr = cap;
	}
	*slot = k->nr_thr;
	memset(&k->thr[k->nr_thr], 0, sizeof(k->thr[0]));
	return &k->thr[k->nr_thr++];
}

/*
 * sched: a thread's totals since it was first seen, sent every second,
 * at the end and (by the kernel) at its exit.  Each instance of a tid
 * counts once: the exit's totals are final, a snapshot taken before the
 * exit but read after it is passed over, as the sched view does.
 */
static int on_sched(struct ap_stat_ksums *k, const void *data, size_t size)
{
	const struct ap_ev_sched_thread *e = data;
	const struct ap_sched_thread *s = &e->t;
	uint64_t v[NR_SCHED] = {
		s->vol, s->invol, s->on_ns, s->blocked_ns, s->runnable_ns,
		s->wakeups, s->wakeup_total_ns, s->migrations,
	};
	struct ap_stat_ks_thr *t;
	int i;

	if (size < sizeof(*e) || e->kind != AP_SCHED_EV_THREAD)
		return 0;
	t = thr_get(k, e->hdr.tid);
	if (!t)
		return -ENOMEM;
	if (s->flags & AP_SCHED_T_EXITED) {
		for (i = 0; i < NR_SCHED; i++)
			t->done[i] += v[i];
		if (e->hdr.ts > t->exit_ts)
			t->exit_ts = e->hdr.ts;
		if (t->has_live && t->live_ts <= e->hdr.ts)
			t->has_live = 0;
		return 0;
	}
	if (t->exit_ts && e->hdr.ts <= t->exit_ts)
		return 0;
	if (!t->has_live || e->hdr.ts >= t->live_ts) {
		memcpy(t->live, v, sizeof(v));
		t->live_ts = e->hdr.ts;
		t->has_live = 1;
	}
	return 0;
}

/* lock: each kind's totals since the start */
static void on_lock(struct ap_stat_ksums *k, const void *data, size_t size)
{
	const struct ap_ev_lock_sum *e = data;

	if (size < sizeof(*e) || e->kind >= AP_LOCK_SUM_KINDS)
		return;
	k->lock[e->kind].waits = e->sum.waits;
	k->lock[e->kind].ns = e->sum.wait_ns;
	k->lock[e->kind].max = e->sum.max_ns;
	k->lock[e->kind].errors = e->sum.errors;
}

/* syscall: the totals records, and the per-call ones of calls whose
 * entry did not fit the totals table (bpf/syscall.h); in flight at the
 * end: not finished, not counted, as strace -c */
static int on_event(void *ctx, const void *data, size_t size)
{
	const struct ap_ev_hdr *h = data;
	struct ap_stat_ksums *k = ctx;
	struct ap_stat_sc *sc;
	uint32_t i;

	if (size < sizeof(*h))
		return 0;
	if (h->type == AP_EV_IO) {
		on_io(k, data, size);
	} else if (h->type == AP_EV_SCHED) {
		if (on_sched(k, data, size))
			goto nomem;
	} else if (h->type == AP_EV_LOCK_SUM) {
		on_lock(k, data, size);
	} else if (h->type == AP_EV_SYSCALL_SUM &&
	    size >= sizeof(struct ap_ev_syscall_sum)) {
		const struct ap_ev_syscall_sum *e = data;

		sc = sc_get(k, e->id);
		if (!sc)
			goto nomem;
		sc->calls += e->sum.calls;
		sc->ns += e->sum.total_ns;
		for (i = 0; i < e->nr_errs && i < AP_SC_SUM_ERRS; i++)
			sc->errors += e->errs[i].count;
	} else if (h->type == AP_EV_SYSCALL &&
		   size >= sizeof(struct ap_ev_syscall)) {
		const struct ap_ev_syscall *e = data;

		if (e->flags & AP_SC_INFLIGHT)
			return 0;
		sc = sc_get(k, e->id);
		if (!sc)
			goto nomem;
		sc->calls++;
		sc->ns += e->duration_ns;
		if (!(e->flags & AP_SC_NORETURN) && ap_syscall__errno(e->ret))
			sc->errors++;
	}
	return 0;
nomem:
	k->err = -ENOMEM;
	return -ENOMEM;
}

static void note(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "aperture: %s\n", msg);
}

int ap_stat_ksums__open(struct ap_stat_ksums *k, pid_t cmd,
			const pid_t *pids, int nr_pids, int system_wide,
			char *err, size_t len)
{
	/* totals only: no syscall:calls, no io:calls, no stacks */
	struct ap_collect_opts o = {
		.events = k->events,
		.system_wide = system_wide,
		.totals = 1,
		/* only sched's open intervals at the end look at it */
		.min_block_ns = UINT64_MAX,
	};
	const struct ap_sensor *s;
	size_t i, n;
	int e;

	k->err = 0;
	memset(k->io, 0, sizeof(k->io));
	memset(k->lock, 0, sizeof(k->lock));
	memset(k->base, 0, sizeof(k->base));
	memset(k->last, 0, sizeof(k->last));
	ap_hmap__free(&k->thr_idx);
	ap_hmap__init(&k->thr_idx);
	k->nr_thr = 0;
	e = ap_collector__open(&k->col, &o, on_event, note, k, err, len);
	if (e)
		return e;
	if (cmd > 0)
		e = ap_collector__add_target(k->col, cmd);
	for (i = 0; !e && i < (size_t)nr_pids; i++)
		e = ap_collector__add_target(k->col, pids[i]);
	if (e) {
		snprintf(err, len, "adding the targets: %s", strerror(-e));
		goto fail;
	}
	e = ap_collector__start(k->col, err, len);
	if (e)
		goto fail;
	n = ap_collector__sensors(k->col, &s);
	for (i = 0; i < n; i++)
		if (s[i].state == AP_SENSOR_UNAVAILABLE) {
			snprintf(err, len, "%s: unavailable: %s", s[i].name,
				 s[i].reason);
			e = -ENODEV;
			goto fail;
		}
	return 0;
fail:
	ap_collector__close(k->col);
	k->col = NULL;
	return e;
}

int ap_stat_ksums__poll(struct ap_stat_ksums *k)
{
	int e;

	if (!k->col)
		return 0;
	do
		e = ap_collector__poll(k->col, 0);
	while (e > 0);
	if (e == -EINTR)
		e = 0;
	return k->err ? k->err : e;
}

int ap_stat_ksums__close(struct ap_stat_ksums *k)
{
	int e;

	if (!k->col)
		return 0;
	ap_collector__stop(k->col);
	e = ap_stat_ksums__poll(k);
	if (!e) {
		e = ap_collector__finish(k->col);
		e = e < 0 ? e : k->err;
	}
	ap_collector__close(k->col);
	k->col = NULL;
	return e;
}

int ap_stat_ksums__read(struct ap_stat_ksums *k)
{
	int e;

	if (!k->col)
		return 0;
	e = ap_collector__read_sums(k->col);
	if (e == -EINTR)
		e = 0;
	return k->err ? k->err : e < 0 ? e : 0;
}

int ap_stat_ksums__begin(struct ap_stat_ksums *k)
{
	int e = ap_stat_ksums__read(k);

	if (e)
		return e;
	ap_stat_ksums__values(k, k->base);
	/* a maximum is not a sum: the run's is the whole one */
	k->base[AP_STAT_KS_LOCK_MAX] = 0;
	memcpy(k->last, k->base, sizeof(k->last));
	return 0;
}

void ap_stat_ksums__add_run(struct ap_stat_ksums *k)
{
	double v[AP_STAT_KS_NR];
	int i;

	ap_stat_ksums__values(k, v);
	for (i = 0; i < AP_STAT_KS_NR; i++)
		ap_stat_runs__add(&k->runs[i], v[i] - k->base[i]);
}

void ap_stat_ksums__free(struct ap_stat_ksums *k)
{
	free(k->sc);
	k->sc = NULL;
	k->nr_sc = 0;
	free(k->thr);
	k->thr = NULL;
	k->nr_thr = k->cap_thr = 0;
	ap_hmap__free(&k->thr_idx);
}

void ap_stat_ksums__values(const struct ap_stat_ksums *k, double *v)
{
	const struct ap_stat_ks_lock *l = k->lock;
	size_t i;
	int j;

	memset(v, 0, AP_STAT_KS_NR * sizeof(*v));
	memcpy(v, k->io, sizeof(k->io));
	for (i = 0; i < k->nr_thr; i++) {
		const struct ap_stat_ks_thr *t = &k->thr[i];

		for (j = 0; j < NR_SCHED; j++)
			v[AP_STAT_KS_SCHED_VOL + j] += (double)t->done[j] +
				(t->has_live ? (double)t->live[j] : 0);
	}
	for (j = 0; j < AP_LOCK_SUM_KINDS; j++) {
		v[AP_STAT_KS_LOCK_WAITS] += (double)l[j].waits;
		v[AP_STAT_KS_LOCK_ERRS] += (double)l[j].errors;
		v[AP_STAT_KS_LOCK_NS] += (double)l[j].ns;
		if ((double)l[j].max > v[AP_STAT_KS_LOCK_MAX])
			v[AP_STAT_KS_LOCK_MAX] = (double)l[j].max;
	}
	v[AP_STAT_KS_LOCK_FUTEX] = (double)l[AP_EVLOCK_FUTEX].waits;
	v[AP_STAT_KS_LOCK_KERNEL] = (double)l[AP_EVLOCK_KERNEL].waits;
}

/* a / b, 0 where b is 0 */
static double ratio(double a, double b)
{
	return b ? a / b : 0;
}

void ap_stat_ks__metric(int i, const double *v, double wall_ns,
			struct ap_stat_line *l)
{
	switch (i) {
	case AP_STAT_KS_IO_RBYTES:
	case AP_STAT_KS_IO_WBYTES:
		l->metric_fmt = "%8.0f";
		l->metric = ratio(v[i], v[i - 1]);
		l->metric_unit = "bytes per call";
		break;
	case AP_STAT_KS_IO_RNS:
	case AP_STAT_KS_IO_WNS:
		l->metric_fmt = "%8.3f";
		l->metric = ratio(v[i], v[i - 2]) / 1e3;
		l->metric_unit = "us per call";
		break;
	case AP_STAT_KS_SCHED_ON:
		l->metric_fmt = "%8.3f";
		l->metric = ratio(v[i], wall_ns);
		l->metric_unit = "CPUs utilized";
		break;
	case AP_STAT_KS_SCHED_WAKEUP_NS:
		l->metric_fmt = "%8.3f";
		l->metric = ratio(v[i], v[AP_STAT_KS_SCHED_WAKEUPS]) / 1e3;
		l->metric_unit = "us per wakeup";
		break;
	case AP_STAT_KS_LOCK_NS:
		l->metric_fmt = "%8.3f";
		l->metric = ratio(v[i], v[AP_STAT_KS_LOCK_WAITS]) / 1e3;
		l->metric_unit = "us per wait";
		break;
	}
}

void ap_stat_ks__print_lines(const struct ap_stat_fmt *f, uint32_t events,
			     const double *v, const double *noise_pct,
			     double wall_ns)
{
	int i;

	for (i = 0; i < AP_STAT_KS_NR; i++) {
		const struct ap_stat_ks_line *d = &ap_stat_ks_lines[i];
		struct ap_stat_line l = {
			.name = d->name,
			.unit = d->unit,
			.state = AP_STAT_COUNTED,
			.value = v[i],
			.ena = (uint64_t)wall_ns,
			.run = (uint64_t)wall_ns,
			.noise_pct = noise_pct ? noise_pct[i] : 0,
		};

		if (!(events & AP_EVMASK(d->tag)))
			continue;
		ap_stat_ks__metric(i, v, wall_ns, &l);
		ap_stat_print_line(f, &l);
	}
}

void ap_stat_ksums__print_interval(const struct ap_stat_fmt *f,
				   struct ap_stat_ksums *k,
				   double interval_ns)
{
	double now[AP_STAT_KS_NR], d[AP_STAT_KS_NR];
	int i;

	ap_stat_ksums__values(k, now);
	for (i = 0; i < AP_STAT_KS_NR; i++)
		d[i] = now[i] - k->last[i];
	/* a maximum is not a sum: the interval's is not known */
	d[AP_STAT_KS_LOCK_MAX] = now[AP_STAT_KS_LOCK_MAX];
	ap_stat_ks__print_lines(f, k->events, d, NULL, interval_ns);
	memcpy(k->last, now, sizeof(now));
}

/* syscall numbers by calls, most first; the number breaks ties */
static const struct ap_stat_ksums *sort_k;

static int by_calls(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t cx = sort_k->sc[x].calls, cy = sort_k->sc[y].calls;

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return x < y ? -1 : x > y;
}

/* "254.8 us", "3.45 ms", "1.20 s" */
static void time_str(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

static void print_row(const struct ap_stat_fmt *f, const char *name,
		      double calls, double errors, double ns)
{
	char val[64], t[32];

	if (f->sep) {
		fprintf(f->out, "%.0f%s%s%s%s%.0f%serrors%s%.0f%sns\n", calls,
			f->sep, f->sep, name, f->sep, errors, f->sep, f->sep,
			ns, f->sep);
		return;
	}
	ap_stat_group(val, sizeof(val), calls, 0);
	time_str(t, sizeof(t), ns);
	fprintf(f->out, "%18s      %-32s #  %.0f errors, %s in calls\n", val,
		name, errors, t);
}

/* syscall's block */
static void print_sc(const struct ap_stat_fmt *f,
		     const struct ap_stat_ksums *k, unsigned int runs)
{
	double n = runs ? runs : 1, calls = 0, errors = 0, ns = 0;
	uint32_t *ids, i, nr = 0;
	char name[48], sc[32];

	ids = malloc((k->nr_sc ? k->nr_sc : 1) * sizeof(*ids));
	if (!ids)
		return;
	for (i = 0; i < k->nr_sc; i++) {
		if (!k->sc[i].calls)
			continue;
		ids[nr++] = i;
		calls += (double)k->sc[i].calls;
		errors += (double)k->sc[i].errors;
		ns += (double)k->sc[i].ns;
	}
	sort_k = k;
	qsort(ids, nr, sizeof(*ids), by_calls);
	print_row(f, "syscalls:total", calls / n, errors / n, ns / n);
	for (i = 0; i < nr && (f->sep || i < TOP_SC); i++) {
		const struct ap_stat_sc *s = &k->sc[ids[i]];

		snprintf(name, sizeof(name), "syscalls:%s",
			 ap_syscall__name(ids[i], sc, sizeof(sc)));
		print_row(f, name, (double)s->calls / n,
			  (double)s->errors / n, (double)s->ns / n);
	}
	free(ids);
}

void ap_stat_ksums__print(const struct ap_stat_fmt *f,
			  const struct ap_stat_ksums *k, unsigned int runs,
			  double wall_ns, int after_counters)
{
	double v[AP_STAT_KS_NR], pct[AP_STAT_KS_NR];
	int i;

	if (!k->events)
		return;
	if (!f->sep && after_counters)
		fputc('\n', f->out);
	if (k->events & AP_EVMASK(AP_TAG_SYSCALL))
		print_sc(f, k, runs);
	for (i = 0; i < AP_STAT_KS_NR; i++) {
		v[i] = k->runs[i].mean;
		pct[i] = ap_stat_runs__pct(&k->runs[i]);
	}
	ap_stat_ks__print_lines(f, k->events, v, pct, wall_ns);
}
