// SPDX-License-Identifier: GPL-2.0
#include "stat/counters.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#define SW	PERF_TYPE_SOFTWARE
#define HW	PERF_TYPE_HARDWARE

const struct ap_stat_event ap_stat_events[] = {
	{ "task-clock", NULL, SW, PERF_COUNT_SW_TASK_CLOCK, "msec" },
	{ "cpu-clock", NULL, SW, PERF_COUNT_SW_CPU_CLOCK, "msec" },
	{ "context-switches", "cs", SW, PERF_COUNT_SW_CONTEXT_SWITCHES, NULL },
	{ "cpu-migrations", "migrations", SW, PERF_COUNT_SW_CPU_MIGRATIONS,
	  NULL },
	{ "page-faults", "faults", SW, PERF_COUNT_SW_PAGE_FAULTS, NULL },
	{ "minor-faults", NULL, SW, PERF_COUNT_SW_PAGE_FAULTS_MIN, NULL },
	{ "major-faults", NULL, SW, PERF_COUNT_SW_PAGE_FAULTS_MAJ, NULL },
	{ "cycles", "cpu-cycles", HW, PERF_COUNT_HW_CPU_CYCLES, NULL },
	{ "instructions", NULL, HW, PERF_COUNT_HW_INSTRUCTIONS, NULL },
	{ "branches", "branch-instructions", HW,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS, NULL },
	{ "branch-misses", NULL, HW, PERF_COUNT_HW_BRANCH_MISSES, NULL },
	{ "cache-references", NULL, HW, PERF_COUNT_HW_CACHE_REFERENCES, NULL },
	{ "cache-misses", NULL, HW, PERF_COUNT_HW_CACHE_MISSES, NULL },
};
const size_t ap_nr_stat_events = sizeof(ap_stat_events) /
				 sizeof(ap_stat_events[0]);

void ap_stat_runs__add(struct ap_stat_runs *r, double v)
{
	double delta;

	r->n++;
	delta = v - r->mean;
	r->mean += delta / r->n;
	r->m2 += delta * (v - r->mean);
}

double ap_stat_runs__stderr(const struct ap_stat_runs *r)
{
	if (r->n < 2)
		return 0;
	return sqrt(r->m2 / (r->n - 1) / r->n);
}

double ap_stat_runs__pct(const struct ap_stat_runs *r)
{
	return r->mean ? 100.0 * ap_stat_runs__stderr(r) / r->mean : 0;
}

static const struct ap_stat_event *find_event(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < ap_nr_stat_events; i++) {
		const struct ap_stat_event *e = &ap_stat_events[i];

		if ((strlen(e->name) == n && !strncmp(name, e->name, n)) ||
		    (e->alias && strlen(e->alias) == n &&
		     !strncmp(name, e->alias, n)))
			return e;
	}
	return NULL;
}

static struct ap_stat_counter *grow(struct ap_stat_counters *s)
{
	struct ap_stat_counter *c = realloc(s->c, (s->nr + 1) * sizeof(*c));

	if (!c)
		return NULL;
	s->c = c;
	c = &s->c[s->nr++];
	memset(c, 0, sizeof(*c));
	return c;
}

/* NAME[:MODS], perf's u (user only) and k (kernel only) */
static int add_one(struct ap_stat_counters *s, const char *tok)
{
	const char *colon = strchr(tok, ':'), *m;
	size_t n = colon ? (size_t)(colon - tok) : strlen(tok);
	const struct ap_stat_event *e = find_event(tok, n);
	struct ap_stat_counter *c;
	int u = 0, k = 0;

	if (!e || (colon && !colon[1]) || strlen(tok) >= sizeof(c->name))
		return -EINVAL;
	for (m = colon ? colon + 1 : ""; *m; m++) {
		if (*m == 'u')
			u = 1;
		else if (*m == 'k')
			k = 1;
		else
			return -EINVAL;
	}
	c = grow(s);
	if (!c)
		return -ENOMEM;
	c->ev = e;
	snprintf(c->name, sizeof(c->name), "%s", tok);
	c->excl_kernel = u && !k;
	c->excl_user = k && !u;
	return 0;
}

int ap_stat_counters__add(struct ap_stat_counters *s, const char *list,
			  char *bad, size_t len)
{
	char *dup = strdup(list), *tok, *save = NULL;
	int err = dup ? 0 : -ENOMEM, nr = s->nr;

	for (tok = dup ? strtok_r(dup, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		err = add_one(s, tok);
		if (err == -EINVAL)
			snprintf(bad, len, "%s", tok);
	}
	/* "-e ,": no name at all */
	if (!err && s->nr == nr) {
		snprintf(bad, len, "%s", list);
		err = -EINVAL;
	}
	free(dup);
	return err;
}

int ap_stat_counters__add_defaults(struct ap_stat_counters *s,
				   int system_wide)
{
	static const char *const hw[] = {
		"cycles", "instructions", "branches", "branch-misses",
	};
	char bad[32];
	size_t i;
	int err;

	err = ap_stat_counters__add(s, system_wide ?
				    "cpu-clock,context-switches,cpu-migrations,page-faults" :
				    "task-clock,context-switches,cpu-migrations,page-faults",
				    bad, sizeof(bad));
	for (i = 0; !err && i < sizeof(hw) / sizeof(hw[0]); i++) {
		err = ap_stat_counters__add(s, hw[i], bad, sizeof(bad));
		if (!err)
			s->c[s->nr - 1].optional = 1;
	}
	return err;
}

const char *ap_stat_counters__valid(char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < ap_nr_stat_events && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				ap_stat_events[i].name);
	return buf;
}

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	int fd = (int)syscall(__NR_perf_event_open, a, pid, cpu, -1,
			      PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int add_fd(struct ap_stat_counter *c, int fd)
{
	int *fds = realloc(c->fds, (c->nr_fds + 1) * sizeof(*fds));

	if (!fds) {
		close(fd);
		return -ENOMEM;
	}
	c->fds = fds;
	c->fds[c->nr_fds++] = fd;
	return 0;
}

/* errors that say the machine has no such counter, not that stat failed */
static int unsupported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV ||
	       err == -EINVAL;
}

/*
 * c on every target: 0 when it counts somewhere, or when the machine
 * lacks it (then c->err); else -errno.  A thread of -p that exited while
 * being opened (ESRCH) and an offline CPU (ENODEV) are passed over.
 */
static int open_counter(struct ap_stat_counter *c,
			const struct ap_stat_target *t, int nr_cpus)
{
	struct perf_event_attr a;
	int i, fd, err = 0, first = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = c->ev->type;
	a.config = c->ev->config;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.disabled = 1;
	a.exclude_kernel = c->excl_kernel;
	a.exclude_user = c->excl_user;
	a.exclude_hv = c->excl_kernel;
	a.inherit = !t->system_wide;
	/* the command is counted from its exec, not aperture's fork */
	a.enable_on_exec = t->cmd > 0 && !t->system_wide && !t->nr_tids;
	c->err = 0;
	if (t->system_wide) {
		for (i = 0; i < nr_cpus; i++) {
			fd = perf_open(&a, -1, i);
			if (fd == -ENODEV && c->nr_fds)
				continue;
			if (fd < 0 && !first)
				first = fd;
			err = fd < 0 ? 0 : add_fd(c, fd);
			if (err)
				return err;
		}
	} else if (t->nr_tids) {
		for (i = 0; i < t->nr_tids; i++) {
			fd = perf_open(&a, t->tids[i], -1);
			if (fd == -ESRCH)
				continue;
			if (fd < 0 && !first)
				first = fd;
			err = fd < 0 ? 0 : add_fd(c, fd);
			if (err)
				return err;
		}
		if (!c->nr_fds && !first)
			first = -ESRCH;
	} else {
		first = fd = perf_open(&a, t->cmd, -1);
		if (fd >= 0) {
			first = 0;
			err = add_fd(c, fd);
		}
	}
	if (err || c->nr_fds)
		return err;
	c->err = first;
	return unsupported(first) ? 0 : first;
}

int ap_stat_counters__open(struct ap_stat_counters *s,
			   const struct ap_stat_target *t, char *err,
			   size_t len)
{
	int nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	int i, j, e;

	for (i = 0; i < s->nr; i++) {
		struct ap_stat_counter *c = &s->c[i];

		e = open_counter(c, t, nr_cpus);
		/* as perf: where the kernel may not be counted
		 * (perf_event_paranoid 2), user mode only, named :u */
		if ((e == -EACCES || e == -EPERM) && !c->excl_kernel &&
		    !c->excl_user && strlen(c->name) + 2 < sizeof(c->name)) {
			c->excl_kernel = 1;
			e = open_counter(c, t, nr_cpus);
			if (!e)
				strcat(c->name, ":u");
		}
		if (e == -EACCES || e == -EPERM) {
			snprintf(err, len,
				 "%s: perf_event_open: %s: run as root, grant CAP_PERFMON or lower kernel.perf_event_paranoid",
				 c->name, strerror(-e));
			return e;
		}
		if (e) {
			snprintf(err, len, "%s: perf_event_open: %s",
				 c->name, strerror(-e));
			return e;
		}
	}
	/* the default set's hardware events where the machine has them */
	for (i = j = 0; i < s->nr; i++) {
		if (s->c[i].optional && s->c[i].err)
			free(s->c[i].fds);
		else
			s->c[j++] = s->c[i];
	}
	s->nr = j;
	return 0;
}

static int ioctl_all(struct ap_stat_counters *s, unsigned long req)
{
	int i, j;

	for (i = 0; i < s->nr; i++)
		for (j = 0; j < s->c[i].nr_fds; j++)
			if (ioctl(s->c[i].fds[j], req, 0))
				return -errno;
	return 0;
}

int ap_stat_counters__enable(struct ap_stat_counters *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

int ap_stat_counters__disable(struct ap_stat_counters *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

int ap_stat_counters__read(struct ap_stat_counters *s)
{
	int i, j;

	for (i = 0; i < s->nr; i++) {
		struct ap_stat_counter *c = &s->c[i];
		struct ap_stat_count sum = { 0 };

		for (j = 0; j < c->nr_fds; j++) {
			uint64_t v[3];

			if (read(c->fds[j], v, sizeof(v)) != sizeof(v))
				return errno ? -errno : -EIO;
			sum.val += v[0];
			sum.ena += v[1];
			sum.run += v[2];
		}
		c->now = sum;
	}
	return 0;
}

void ap_stat_counters__close(struct ap_stat_counters *s)
{
	int i, j;

	for (i = 0; i < s->nr; i++) {
		for (j = 0; j < s->c[i].nr_fds; j++)
			close(s->c[i].fds[j]);
		free(s->c[i].fds);
		s->c[i].fds = NULL;
		s->c[i].nr_fds = 0;
	}
}

void ap_stat_counters__free(struct ap_stat_counters *s)
{
	ap_stat_counters__close(s);
	free(s->c);
	s->c = NULL;
	s->nr = 0;
}

void ap_stat_counter__why(const struct ap_stat_counter *c, char *buf,
			  size_t len)
{
	if (c->ev->type == PERF_TYPE_HARDWARE)
		snprintf(buf, len,
			 "%s: <not supported>: no hardware PMU counts it on this machine (perf_event_open: %s; a VM often has none)",
			 c->name, strerror(-c->err));
	else
		snprintf(buf, len,
			 "%s: <not supported>: perf_event_open: %s", c->name,
			 strerror(-c->err));
}

int ap_stat_counter__is_clock(const struct ap_stat_counter *c)
{
	return c->ev->type == PERF_TYPE_SOFTWARE &&
	       (c->ev->config == PERF_COUNT_SW_TASK_CLOCK ||
		c->ev->config == PERF_COUNT_SW_CPU_CLOCK);
}

double ap_stat_count__scaled(const struct ap_stat_count *c)
{
	if (c->run && c->run < c->ena)
		return (double)c->val * (double)c->ena / (double)c->run;
	return (double)c->val;
}
