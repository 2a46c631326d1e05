// SPDX-License-Identifier: GPL-2.0
#include "stat/session.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/procfs.h"
#include "record/sums.h"
#include "record/workload.h"
#include "stat/print.h"

/* how often targets without a command are looked for in /proc */
#define ALIVE_MS	200

struct run {
	const struct ap_stat_opts *o;
	struct ap_stat_fmt fmt;
	struct ap_stat_target t;
	pid_t *tids;			/* -p's threads and -t's */
	int nr_tids, cap_tids;
	struct ap_workload wl;
	int pidfd;
	uint64_t t0, t1, tick;		/* CLOCK_MONOTONIC ns */
	unsigned long nr_intervals;
	struct rusage ru;
	struct ap_stat_runs wall;
	char path[PATH_MAX];		/* the command, found in PATH */
	int forwarded;			/* the stop signal, to the command */
};

static int add_tid(void *ctx, pid_t tid)
{
	struct run *r = ctx;

	if (r->nr_tids == r->cap_tids) {
		int cap = r->cap_tids ? 2 * r->cap_tids : 64;
		pid_t *t = realloc(r->tids, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		r->tids = t;
		r->cap_tids = cap;
	}
	r->tids[r->nr_tids++] = tid;
	return 0;
}

/* every thread of -p's processes, and -t's; 0 or -errno */
static int expand_targets(struct run *r)
{
	const struct ap_stat_opts *o = r->o;
	int i, e = 0;

	for (i = 0; !e && i < o->nr_pids; i++) {
		e = ap_proc_threads(o->pids[i], add_tid, r);
		if (e == -ESRCH)
			fprintf(o->err, "aperture: no such process: %d\n",
				o->pids[i]);
	}
	for (i = 0; !e && i < o->nr_tids; i++) {
		if (!ap_proc_alive(o->tids[i])) {
			fprintf(o->err, "aperture: no such thread: %d\n",
				o->tids[i]);
			return -ESRCH;
		}
		e = add_tid(r, o->tids[i]);
	}
	return e;
}

/* perf's words for what was counted */
static void describe(const struct ap_stat_opts *o, char *buf, size_t len)
{
	const pid_t *ids = o->nr_pids ? o->pids : o->tids;
	int i, nr = o->nr_pids ? o->nr_pids : o->nr_tids;
	size_t off;

	if (o->system_wide) {
		snprintf(buf, len, "'system wide'");
		return;
	}
	if (!nr) {
		off = (size_t)snprintf(buf, len, "'");
		for (i = 0; o->cmd[i] && off < len; i++)
			off += snprintf(buf + off, len - off, "%s%s",
					i ? " " : "", o->cmd[i]);
		if (off < len)
			snprintf(buf + off, len - off, "'");
		return;
	}
	off = (size_t)snprintf(buf, len, "%s id '",
			       o->nr_pids ? "process" : "thread");
	for (i = 0; i < nr && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%d", i ? "," : "",
				ids[i]);
	if (off < len)
		snprintf(buf + off, len - off, "'");
}

/* -I: what the counters counted since the last interval */
static int print_interval(struct run *r, uint64_t now)
{
	struct ap_stat_counters *s = r->o->counters;
	struct ap_stat_ksums *k = r->o->ksums;
	uint64_t rel = now - r->t0;
	char ts[32];
	int i, e = ap_stat_counters__read(s);

	if (!e && k)
		e = ap_stat_ksums__read(k);
	if (e)
		return e;
	snprintf(ts, sizeof(ts), "%6lu.%09lu",
		 (unsigned long)(rel / 1000000000ull),
		 (unsigned long)(rel % 1000000000ull));
	r->fmt.prefix = ts;
	ap_stat_print_interval_head(&r->fmt, r->nr_intervals++);
	ap_stat_print_counters(&r->fmt, s, AP_STAT_DELTA,
			       (double)(now - r->tick));
	if (k)
		ap_stat_ksums__print_interval(&r->fmt, k,
					      (double)(now - r->tick));
	r->fmt.prefix = NULL;
	fflush(r->fmt.out);
	for (i = 0; i < s->nr; i++)
		s->c[i].last = s->c[i].now;
	r->tick = now;
	return 0;
}

/* has the command ended?  Reaped then, with its times */
static int reaped(struct run *r)
{
	if (wait4(r->wl.pid, &r->wl.status, WNOHANG, &r->ru) != r->wl.pid)
		return 0;
	r->t1 = ap_sums_now();
	r->wl.exited = 1;
	return 1;
}

static int targets_gone(const struct run *r)
{
	int i;

	if (r->o->system_wide)
		return 0;
	for (i = 0; i < r->nr_tids; i++)
		if (ap_proc_alive(r->tids[i]))
			return 0;
	return 1;
}

/* until the command ends (or, without one, the targets or a signal),
 * printing the intervals that end meanwhile */
static int wait_end(struct run *r)
{
	const struct ap_stat_opts *o = r->o;
	uint64_t ival = (uint64_t)o->interval_ms * 1000000ull;
	uint64_t next = r->t0 + ival, now, alive_at = r->t0;
	struct pollfd pfd = { .fd = r->pidfd, .events = POLLIN };
	int timeout, e;

	for (;;) {
		now = ap_sums_now();
		if (ival && now >= next) {
			e = print_interval(r, now);
			if (e)
				return e;
			while (next <= now)
				next += ival;
			continue;
		}
		e = o->ksums ? ap_stat_ksums__poll(o->ksums) : 0;
		if (e)
			return e;
		if (r->wl.pid > 0 && reaped(r))
			return 0;
		if (*o->stop && r->wl.pid <= 0)
			break;
		/* the command stops when told, and is counted to its end */
		if (*o->stop && !r->forwarded) {
			kill(r->wl.pid, (int)*o->stop);
			r->forwarded = 1;
		}
		if (r->wl.pid <= 0 && now - alive_at >= ALIVE_MS * 1000000ull) {
			if (targets_gone(r))
				break;
			alive_at = now;
		}
		timeout = r->wl.pid > 0 && r->pidfd < 0 ? 10 : ALIVE_MS;
		if (ival && (int)((next - now) / 1000000 + 1) < timeout)
			timeout = (int)((next - now) / 1000000 + 1);
		if (poll(&pfd, pfd.fd >= 0 ? 1 : 0, timeout) < 0 &&
		    errno != EINTR)
			return -errno;
	}
	r->t1 = ap_sums_now();
	return 0;
}

/* the counters the machine lacks, said once: perf only prints the
 * <not supported> line */
static void say_unsupported(const struct run *r)
{
	const struct ap_stat_counters *s = r->o->counters;
	char why[512];
	int i;

	for (i = 0; i < s->nr; i++) {
		if (!s->c[i].err)
			continue;
		ap_stat_counter__why(&s->c[i], why, sizeof(why));
		fprintf(r->o->err, "aperture: %s\n", why);
	}
}

static int start_command(struct run *r)
{
	const struct ap_stat_opts *o = r->o;
	int e = ap_workload__fork(&r->wl, r->path, o->cmd, NULL, 0);

	if (e) {
		fprintf(o->err, "aperture: starting '%s': %s\n", o->cmd[0],
			strerror(-e));
		return 1;
	}
	r->pidfd = (int)syscall(SYS_pidfd_open, r->wl.pid, 0);
	return 0;
}

/* one run: the counters opened, the command run, its counts kept; 0,
 * else the exit status */
static int run_once(struct run *r, int first)
{
	const struct ap_stat_opts *o = r->o;
	struct ap_stat_counters *s = o->counters;
	char err[512];
	int i, e, ret = 1;

	r->wl.pid = -1;
	r->pidfd = -1;
	r->forwarded = 0;
	if (o->cmd && start_command(r))
		return 1;
	r->t.cmd = r->wl.pid;
	if (o->ksums && o->ksums->events) {
		/* with -p or -a the command only says how long */
		e = ap_stat_ksums__open(o->ksums, o->nr_pids ||
					o->system_wide ? 0 : r->wl.pid,
					o->pids, o->nr_pids, o->system_wide, err,
					sizeof(err));
		if (e) {
			fprintf(o->err, "aperture: %s\n", err);
			goto out_kill;
		}
	}
	e = ap_stat_counters__open(s, &r->t, err, sizeof(err));
	if (e) {
		fprintf(o->err, "aperture: %s\n", err);
		goto out_kill;
	}
	if (first)
		say_unsupported(r);
	/* the command's own counters start at its exec */
	if (!o->cmd || r->nr_tids || o->system_wide) {
		e = ap_stat_counters__enable(s);
		if (e) {
			fprintf(o->err, "aperture: enabling the counters: %s\n",
				strerror(-e));
			goto out_kill;
		}
	}
	for (i = 0; i < s->nr; i++)
		memset(&s->c[i].last, 0, sizeof(s->c[i].last));
	e = o->ksums ? ap_stat_ksums__begin(o->ksums) : 0;
	if (e) {
		fprintf(o->err, "aperture: reading the kernel's sums: %s\n",
			strerror(-e));
		goto out_kill;
	}
	r->t0 = r->tick = ap_sums_now();
	if (o->cmd) {
		e = ap_workload__start(&r->wl);
		if (e) {
			fprintf(o->err, "aperture: cannot run '%s': %s\n",
				o->cmd[0], strerror(-e));
			ret = 127;
			goto out_kill;
		}
	}
	e = wait_end(r);
	if (!e && (r->nr_tids || o->system_wide))
		e = ap_stat_counters__disable(s);
	if (!e)
		e = ap_stat_counters__read(s);
	if (!e && o->ksums)
		e = ap_stat_ksums__close(o->ksums);
	if (e) {
		fprintf(o->err, "aperture: reading the counters: %s\n",
			strerror(-e));
		goto out_kill;
	}
	/* -I: the interval cut short by the end */
	if (o->interval_ms && r->t1 > r->tick)
		print_interval(r, r->t1);
	if (o->ksums)
		ap_stat_ksums__add_run(o->ksums);
	for (i = 0; i < s->nr; i++) {
		ap_stat_runs__add(&s->c[i].runs[0],
				  ap_stat_count__scaled(&s->c[i].now));
		ap_stat_runs__add(&s->c[i].runs[1], (double)s->c[i].now.ena);
		ap_stat_runs__add(&s->c[i].runs[2], (double)s->c[i].now.run);
	}
	ap_stat_runs__add(&r->wall, (double)(r->t1 - r->t0));
	ret = 0;
out_kill:
	if (ret)
		ap_workload__stop(&r->wl);
	if (r->pidfd >= 0)
		close(r->pidfd);
	ap_stat_counters__close(s);
	if (o->ksums)
		ap_stat_ksums__close(o->ksums);
	return ret;
}

static double tv_ns(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e9 + (double)tv->tv_usec * 1e3;
}

int ap_stat__run(const struct ap_stat_opts *o)
{
	struct run r = {
		.o = o,
		.fmt = {
			.out = o->out,
			.sep = o->sep,
			.runs = o->runs > 1 ? (int)o->runs : 1,
		},
		.wl = { .pid = -1 },
	};
	unsigned int i, runs = o->runs > 1 ? o->runs : 1;
	char target[512];
	int e, ret = 0, own;

	if (o->cmd) {
		e = ap_workload__find(o->cmd[0], r.path, sizeof(r.path));
		if (e) {
			fprintf(o->err, "aperture: cannot run '%s': %s\n",
				o->cmd[0],
				e == -ENOENT && !strchr(o->cmd[0], '/') ?
				"command not found" : strerror(-e));
			return 127;
		}
	}
	e = expand_targets(&r);
	if (e) {
		if (e != -ESRCH)
			fprintf(o->err, "aperture: listing threads: %s\n",
				strerror(-e));
		free(r.tids);
		return 1;
	}
	r.t.tids = r.tids;
	r.t.nr_tids = r.nr_tids;
	r.t.system_wide = o->system_wide;
	/* the command is what is counted, not only how long */
	own = o->cmd && !r.nr_tids && !o->system_wide;
	for (i = 0; i < runs; i++) {
		ret = run_once(&r, i == 0);
		if (ret)
			break;
		if (own)
			ret = ap_workload__exit_code(r.wl.status);
		if (*o->stop)
			break;
	}
	free(r.tids);
	if (!r.wall.n)
		return ret ? ret : 1;
	if (o->interval_ms)
		return ret;
	describe(o, target, sizeof(target));
	r.fmt.runs = (int)r.wall.n;
	ap_stat_print_header(&r.fmt, target);
	ap_stat_print_counters(&r.fmt, o->counters,
			       r.wall.n > 1 ? AP_STAT_MEAN : AP_STAT_TOTAL,
			       r.wall.mean);
	if (o->ksums)
		ap_stat_ksums__print(&r.fmt, o->ksums, r.wall.n, r.wall.mean,
				     o->counters->nr > 0);
	ap_stat_print_footer(&r.fmt, &r.wall,
			     own && r.wall.n == 1 ? tv_ns(&r.ru.ru_utime) : -1,
			     tv_ns(&r.ru.ru_stime));
	return ret;
}
