// SPDX-License-Identifier: GPL-2.0
/*
 * Syscalls: the ap_syscall_enter/exit programs on the raw_syscalls
 * tracepoints (tp_btf: needs only BTF, no tracefs).  At the end of the
 * recording the calls still in the in-flight table are written as such,
 * so that a thread blocked in a call is seen rather than silently missing.
 *
 * By default the calls are summed in the kernel (bpf/syscall.h): every
 * second and at the end the totals tables are read and what changed since
 * the last read goes to the recorder as AP_EV_SYSCALL_SUM records.  With
 * syscall:calls or --syscall-stacks each call is a ring buffer record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "util/hmap.h"
#include "record/procfs.h"
#include "record/sensor.h"
#include "record/sums.h"
#include "syscall.h"

struct sc_priv {
	uint64_t last_read;
	struct ap_sums sums, errs;	/* of ap_sc_sums, ap_sc_errs */
	struct ap_ev_syscall_sum *out;	/* records of one read */
	size_t nr_out, cap_out;
	struct ap_hmap out_idx;		/* (pid, tid, id) hash -> index */
	uint64_t now;			/* of the read under way */
};

static struct sc_priv *priv_of(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "syscall");

	return idx >= 0 ? c->priv[idx] : NULL;
}

static uint64_t key_hash(const struct ap_sc_key *k)
{
	return ap_hash_bytes(k, sizeof(*k), 0x5c);
}

/* the record being built for (pid, tid, id), or a new one when it has no
 * room for another errno (need_err) */
static struct ap_ev_syscall_sum *out_get(struct sc_priv *p,
					 const struct ap_sc_key *k,
					 int need_err, uint64_t now)
{
	struct ap_sc_key kk = *k;
	struct ap_ev_syscall_sum *e;
	uint64_t *slot;
	int fresh;

	kk.err = 0;
	slot = ap_hmap__upsert(&p->out_idx, key_hash(&kk) & ~1ull, &fresh);
	if (!slot)
		return NULL;
	if (!fresh) {
		e = &p->out[*slot];
		if (e->hdr.pid == k->pid && e->hdr.tid == k->tid &&
		    e->id == k->id &&
		    (!need_err || e->nr_errs < AP_SC_SUM_ERRS))
			return e;
	}
	if (p->nr_out == p->cap_out) {
		size_t cap = p->cap_out ? 2 * p->cap_out : 64;
		struct ap_ev_syscall_sum *v = realloc(p->out, cap * sizeof(*v));

		if (!v)
			return NULL;
		p->out = v;
		p->cap_out = cap;
	}
	e = &p->out[p->nr_out];
	memset(e, 0, sizeof(*e));
	e->hdr.type = AP_EV_SYSCALL_SUM;
	e->hdr.pid = k->pid;
	e->hdr.tid = k->tid;
	e->hdr.cpu = UINT32_MAX;
	e->hdr.ts = now;
	e->id = k->id;
	*slot = p->nr_out;
	return &p->out[p->nr_out++];
}

/* an ap_sc_sums entry that moved: into its (pid, tid, id) record */
static int add_sum(void *arg, const void *k, const void *v, const void *l)
{
	const struct ap_sc_sum *cur = v, *last = l;
	struct sc_priv *p = arg;
	struct ap_ev_syscall_sum *e = out_get(p, k, 0, p->now);
	size_t i;

	if (!e)
		return -ENOMEM;
	e->sum.calls = cur->calls - last->calls;
	e->sum.noreturn = cur->noreturn - last->noreturn;
	e->sum.total_ns = cur->total_ns - last->total_ns;
	e->sum.max_ns = cur->max_ns;
	memcpy(e->sum.comm, cur->comm, sizeof(e->sum.comm));
	for (i = 0; i < AP_SC_HIST; i++)
		e->sum.hist[i] = cur->hist[i] - last->hist[i];
	return 0;
}

/* an ap_sc_errs count that moved: an errno of its record */
static int add_err(void *arg, const void *k, const void *v, const void *l)
{
	const struct ap_sc_key *key = k;
	const __u64 *count = v, *last = l;
	struct sc_priv *p = arg;
	struct ap_ev_syscall_sum *e = out_get(p, key, 1, p->now);

	if (!e)
		return -ENOMEM;
	e->errs[e->nr_errs].err = key->err;
	e->errs[e->nr_errs].count = *count - *last;
	e->nr_errs++;
	return 0;
}

/*
 * Reads the totals tables (lib/record/sums.h) and delivers what changed
 * since the last read, a record per (pid, tid, id) with its errnos.
 */
static int read_sums(struct ap_collector *c, struct sc_priv *p)
{
	struct aperture_bpf *skel = c->skel;
	size_t i;
	int err, n = 0;

	p->now = ap_sums_now();
	p->nr_out = 0;
	ap_hmap__free(&p->out_idx);
	ap_hmap__init(&p->out_idx);
	err = ap_sums__read(&p->sums, bpf_map__fd(skel->maps.ap_sc_sums),
			    add_sum, p);
	if (err < 0)
		return err;
	err = ap_sums__read(&p->errs, bpf_map__fd(skel->maps.ap_sc_errs),
			    add_err, p);
	if (err < 0)
		return err;
	for (i = 0; i < p->nr_out; i++) {
		struct ap_ev_syscall_sum *e = &p->out[i];

		if (!e->sum.comm[0]) {
			/* an errno record split off its sums: the name */
			struct ap_sc_key k = { e->hdr.pid, e->hdr.tid, e->id, 0 };
			struct ap_sc_sum *s = ap_sums__last(&p->sums, &k);

			if (s)
				memcpy(e->sum.comm, s->comm,
				       sizeof(e->sum.comm));
		}
		err = ap_collector__deliver(c, e, sizeof(*e));
		if (err)
			return err;
		n++;
	}
	p->last_read = p->now;
	return n;
}

static int syscall_poll(struct ap_collector *c)
{
	struct sc_priv *p = priv_of(c);

	if (!p ||
	    (!c->sums_due && ap_sums_now() - p->last_read < AP_SUMS_NS))
		return 0;
	return read_sums(c, p);
}

static void syscall_close(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "syscall");
	struct sc_priv *p = idx >= 0 ? c->priv[idx] : NULL;

	if (!p)
		return;
	ap_sums__free(&p->sums);
	ap_sums__free(&p->errs);
	free(p->out);
	ap_hmap__free(&p->out_idx);
	free(p);
	c->priv[idx] = NULL;
}

static uint64_t read_sysctl(const char *path, uint64_t dflt)
{
	unsigned long long v;
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return dflt;
	ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	return ok && v ? v : dflt;
}

/*
 * Entries of the in-flight table: one per thread inside a syscall, so as
 * many as there can be threads (pid_max, threads-max): one user's 16,400
 * sleeping threads filled a table of 16,384 and everyone else's calls
 * were lost.  Beyond AP_SC_INFLIGHT_MAX the entries are allocated as
 * they are used, not all at load.
 */
static uint32_t inflight_size(int *prealloc)
{
	uint64_t n = read_sysctl("/proc/sys/kernel/pid_max", 4194304);
	uint64_t t = read_sysctl("/proc/sys/kernel/threads-max", n);

	if (t < n)
		n = t;
	if (n > (1u << 22))
		n = 1u << 22;		/* PID_MAX_LIMIT */
	*prealloc = n <= AP_SC_INFLIGHT_MAX;
	return (uint32_t)n;
}

static int syscall_prepare(struct ap_collector *c, struct aperture_bpf *skel,
			   int enabled)
{
	int prealloc = 1;
	uint32_t inflight = enabled ? inflight_size(&prealloc) : 1;
	int sums = enabled && !c->opts.syscall_stacks &&
		   !c->opts.syscall_calls;
	int err;

	/* record --max-inflight: a bound on the table's memory */
	if (enabled && c->opts.max_inflight) {
		inflight = c->opts.max_inflight;
		prealloc = inflight <= AP_SC_INFLIGHT_MAX;
	}
	bpf_program__set_autoload(skel->progs.ap_syscall_enter, enabled);
	bpf_program__set_autoload(skel->progs.ap_syscall_exit, enabled);
	/* preallocated up to AP_SC_INFLIGHT_MAX: 1 entry when unused */
	err = bpf_map__set_max_entries(skel->maps.ap_sc_inflight, inflight);
	if (!err && !prealloc)
		err = bpf_map__set_map_flags(skel->maps.ap_sc_inflight,
			bpf_map__map_flags(skel->maps.ap_sc_inflight) |
			BPF_F_NO_PREALLOC);
	if (err)
		return err;
	err = bpf_map__set_max_entries(skel->maps.ap_sc_sums,
				       sums ? AP_SC_SUMS_MAX : 1);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.ap_sc_errs,
					       sums ? AP_SC_ERRS_MAX : 1);
	if (err)
		return err;
	skel->rodata->ap_sc_calls = !sums;
	/* --max-inflight bounds calls in flight, not threads seen */
	skel->rodata->ap_sc_reuse = !(enabled && c->opts.max_inflight);
	skel->rodata->ap_sc_stacks = enabled && c->opts.syscall_stacks;
	skel->rodata->ap_sc_nr_exit = SYS_exit;
	skel->rodata->ap_sc_nr_exit_group = SYS_exit_group;
	skel->rodata->ap_sc_nr_execve = SYS_execve;
#ifdef SYS_execveat
	skel->rodata->ap_sc_nr_execveat = SYS_execveat;
#endif
	return 0;
}

static int attach_one(struct bpf_program *prog, struct bpf_link **link,
		      const char *what, struct ap_sensor *st)
{
	int err;

	*link = bpf_program__attach(prog);
	if (*link)
		return 0;
	err = -errno;
	if (err == -EPERM || err == -EACCES)
		snprintf(st->reason, sizeof(st->reason),
			 "attaching to %s: %s; run as root or grant CAP_BPF and CAP_PERFMON",
			 what, strerror(-err));
	else
		snprintf(st->reason, sizeof(st->reason),
			 "attaching to %s: %s; the kernel needs the raw_syscalls tracepoints (CONFIG_FTRACE_SYSCALLS=y) and BTF",
			 what, strerror(-err));
	return err;
}

/*
 * record -- CMD forks the command and holds it in a read() on a pipe until
 * the probes are attached: a target that is our child and still runs our
 * own executable is that command, not yet exec'd.
 */
static pid_t held_command(struct aperture_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.targets);
	__u32 key, next, *prev = NULL;
	struct stat self, st;
	char path[64];
	pid_t ppid;

	if (stat("/proc/self/exe", &self))
		return 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		snprintf(path, sizeof(path), "/proc/%u/exe", key);
		if (stat(path, &st) || st.st_dev != self.st_dev ||
		    st.st_ino != self.st_ino)
			continue;
		if (!ap_proc_stat(key, NULL, &ppid, NULL, 0) &&
		    ppid == getpid())
			return key;
	}
	return 0;
}

static int syscall_attach(struct ap_collector *c, struct aperture_bpf *skel,
			  struct ap_sensor *st)
{
	int err;

	if (!c->opts.syscall_stacks && !c->opts.syscall_calls) {
		struct sc_priv *p = calloc(1, sizeof(*p));

		if (!p)
			return -ENOMEM;
		ap_sums__init(&p->sums, sizeof(struct ap_sc_key),
			      sizeof(struct ap_sc_sum), 0x5c);
		ap_sums__init(&p->errs, sizeof(struct ap_sc_key),
			      sizeof(__u64), 0x5c);
		ap_hmap__init(&p->out_idx);
		p->last_read = ap_sums_now();
		c->priv[ap_sensor_index(c, "syscall")] = p;
	}
	skel->bss->ap_sc_preexec_tgid = held_command(skel);

	/* exit first: no entry is stored before its exit can be seen */
	err = attach_one(skel->progs.ap_syscall_exit,
			 &skel->links.ap_syscall_exit, "raw_syscalls:sys_exit",
			 st);
	if (err)
		return err;
	err = attach_one(skel->progs.ap_syscall_enter,
			 &skel->links.ap_syscall_enter,
			 "raw_syscalls:sys_enter", st);
	if (err)
		return err;
	snprintf(st->source, sizeof(st->source), "%s",
		 c->opts.syscall_stacks ? "raw_syscalls, user stacks" :
		 c->opts.syscall_calls ? "raw_syscalls, every call" :
					 "raw_syscalls, summed in the kernel");
	return 0;
}

/*
 * Recording stops: detach (entry first: a call that returns meanwhile is
 * still written whole), write what the ring buffer still holds, then
 * every entry left in the table is a call in flight at the stop.
 */
static int syscall_finish(struct ap_collector *c)
{
	struct aperture_bpf *skel = c->skel;
	int fd = bpf_map__fd(skel->maps.ap_sc_inflight);
	__u32 key, next, *prev = NULL;
	uint64_t now;
	int err, n = 0;

	bpf_link__destroy(skel->links.ap_syscall_enter);
	skel->links.ap_syscall_enter = NULL;
	bpf_link__destroy(skel->links.ap_syscall_exit);
	skel->links.ap_syscall_exit = NULL;
	now = ap_sums_now();
	while (ap_collector__poll(c, 0) > 0)
		;
	if (priv_of(c)) {
		err = read_sums(c, priv_of(c));
		if (err < 0)
			return err;
		n += err;
	}

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct ap_ev_syscall e;
		struct ap_sc_start s;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &s) || !s.ts)
			continue;	/* removed meanwhile, or between calls */
		memset(&e, 0, sizeof(e));
		e.hdr.type = AP_EV_SYSCALL;
		e.hdr.pid = s.tgid;
		e.hdr.tid = key;
		e.hdr.cpu = UINT32_MAX;		/* not known */
		e.hdr.ts = s.ts;
		e.duration_ns = now > s.ts ? now - s.ts : 0;
		e.id = s.id;
		e.flags = AP_SC_INFLIGHT;
		if (ap_proc_thread_comm(s.tgid, key, e.comm, sizeof(e.comm)))
			e.comm[0] = '\0';
		err = ap_collector__deliver(c, &e, sizeof(e));
		if (err)
			return err;
		n++;
	}
	return n;
}

const struct ap_sensor_ops ap_sensor_syscall = {
	.name = "syscall",
	.tag = AP_TAG_SYSCALL,
	.prepare = syscall_prepare,
	.attach = syscall_attach,
	.poll = syscall_poll,
	.finish = syscall_finish,
	.close = syscall_close,
};
