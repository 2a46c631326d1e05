// SPDX-License-Identifier: GPL-2.0
/*
 * Lock contention (-e lock): futex waits and kernel lock contention from
 * tracepoints, always; with -e lock:pthread also uprobes on the slow
 * paths of glibc's mutexes (__lll_lock_wait, __lll_lock_wake) in each
 * target's own C library, found in its /proc/PID/maps (never a fixed
 * path).  They are static functions: their offsets come from the
 * library's symbol table or its separate debug file (by build-id).  The
 * probes go on the library file for every process (pid -1) and the BPF
 * side keeps the targets: a contended lock is rare enough that others'
 * traps cost little, and a target exec'd later (under a wrapper) is
 * probed from its first instruction, not from when it was seen.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "lock.h"
#include "symbols/datasym.h"
#include "symbols/symbolizer.h"
#include "record/procfs.h"
#include "record/sensor.h"
#include "record/sums.h"

#define NR_PFUNCS	2
#define NR_PLINKS	3

static const char *const pfuncs[NR_PFUNCS] = {
	"__lll_lock_wait", "__lll_lock_wake",
};

/* the uprobes on one C library, for every process */
struct pattach {
	uint64_t inode;
	struct bpf_link *links[NR_PLINKS];
};

struct lock_priv {
	struct bpf_link *futex_enter, *futex_exit;
	struct bpf_link *kbegin, *kend;
	struct pattach *att;
	size_t nr_att, cap_att;
	int pthread_failed;		/* noted once */
	uint64_t last_read;		/* -e lock totals (stat) */
};

static struct lock_priv *priv_of(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "lock");

	return idx >= 0 ? c->priv[idx] : NULL;
}

static int lock_prepare(struct ap_collector *c, struct aperture_bpf *skel,
			int enabled)
{
	int pthread = enabled && c->opts.lock_pthread;

	skel->rodata->ap_lock_summed = !!c->opts.totals;
	bpf_program__set_autoload(skel->progs.ap_lock_futex_enter, enabled);
	bpf_program__set_autoload(skel->progs.ap_lock_futex_exit, enabled);
	bpf_program__set_autoload(skel->progs.ap_lock_kernel_begin, enabled);
	bpf_program__set_autoload(skel->progs.ap_lock_kernel_end, enabled);
	bpf_program__set_autoload(skel->progs.ap_lock_pthread_wait, pthread);
	bpf_program__set_autoload(skel->progs.ap_lock_pthread_wait_ret,
				  pthread);
	bpf_program__set_autoload(skel->progs.ap_lock_pthread_wake, pthread);
	return 0;
}

/* the library of pid defining pthread_mutex_lock: libpthread where it
 * still exists (glibc < 2.34), else libc (glibc, musl), else the
 * executable itself (static) */
struct libc_scan {
	struct ap_mmap best;
	int rank;			/* lower is better; 0: none yet */
	struct ap_mmap exe;
	int have_exe;
};

static int lib_rank(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "libpthread.so", 13) ||
	    !strncmp(base, "libpthread-", 11))
		return 1;
	if (!strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5) ||
	    !strncmp(base, "libc.musl", 9) || !strncmp(base, "ld-musl", 7))
		return 2;
	return 0;
}

static int on_exec_map(void *ctx, const struct ap_mmap *m)
{
	struct libc_scan *s = ctx;
	int rank;

	if (m->path[0] != '/')
		return 0;
	if (!s->have_exe) {
		s->exe = *m;
		s->have_exe = 1;
	}
	rank = lib_rank(m->path);
	if (rank && (!s->rank || rank < s->rank)) {
		s->best = *m;
		s->rank = rank;
	}
	return 0;
}

/* "/proc/PID/root/usr/lib/..." (containers) where the pid is known */
static void probe_path(pid_t pid, const char *path, char *buf, size_t len)
{
	if (pid > 0)
		snprintf(buf, len, "/proc/%d/root%s", (int)pid, path);
	else
		snprintf(buf, len, "%s", path);
}

static int find_libc(pid_t pid, struct ap_mmap *out, char *why, size_t len)
{
	struct libc_scan *s = calloc(1, sizeof(*s));
	uint64_t off;
	char path[AP_PATH_MAX + 32];
	int err;

	if (!s)
		return -ENOMEM;
	err = ap_proc_maps(pid > 0 ? pid : getpid(), 1, on_exec_map, s);
	if (err) {
		snprintf(why, len, "reading /proc/%d/maps: %s",
			 pid > 0 ? (int)pid : (int)getpid(), strerror(-err));
		goto out;
	}
	err = -ENOENT;
	if (s->rank) {
		*out = s->best;
		err = 0;
	} else if (s->have_exe) {
		/* statically linked: the executable has its own mutexes */
		probe_path(pid, s->exe.path, path, sizeof(path));
		if (!ap_elf_func_offset(path, pfuncs[0], &off)) {
			*out = s->exe;
			err = 0;
		}
	}
	if (err)
		snprintf(why, len,
			 "process %d maps no C library defining pthread_mutex_lock",
			 (int)pid);
out:
	free(s);
	return err;
}

/* the file offset of func in the library at path (seen from pid): its
 * own symbol table, else its debug file under /usr/lib/debug/.build-id */
static int slow_path_offset(pid_t pid, const char *path, const char *func,
			    uint64_t *off)
{
	char dbg[AP_PATH_MAX + 96], hex[2 * 64 + 1];
	uint8_t id[64];
	int n, i, err;

	err = ap_elf_func_offset(path, func, off);
	if (err != -ENOENT)
		return err;
	n = ap_read_build_id(path, id, sizeof(id));
	if (n <= 1)
		return -ENOENT;
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	probe_path(pid, "/usr/lib/debug/.build-id/", dbg, sizeof(dbg));
	n = (int)strlen(dbg);
	snprintf(dbg + n, sizeof(dbg) - n, "%.2s/%s.debug", hex, hex + 2);
	err = ap_elf_func_offset2(path, dbg, func, off);
	return err == -ENOENT || err == -EBADF ? -ENOENT : err;
}

static int attach_pthread(struct lock_priv *p, struct aperture_bpf *skel,
			  pid_t pid, const struct ap_mmap *lib, char *why,
			  size_t len)
{
	struct bpf_program *progs[NR_PLINKS] = {
		skel->progs.ap_lock_pthread_wait,
		skel->progs.ap_lock_pthread_wait_ret,
		skel->progs.ap_lock_pthread_wake,
	};
	static const int func_of[NR_PLINKS] = { 0, 0, 1 };
	static const int ret_of[NR_PLINKS] = { 0, 1, 0 };
	uint64_t off[NR_PFUNCS];
	char path[AP_PATH_MAX + 32];
	struct pattach *a;
	size_t i;
	int err;

	for (i = 0; i < p->nr_att; i++)
		if (p->att[i].inode == lib->inode)
			return 0;
	probe_path(pid, lib->path, path, sizeof(path));
	for (i = 0; i < NR_PFUNCS; i++) {
		err = slow_path_offset(pid, path, pfuncs[i], &off[i]);
		if (err) {
			if (err == -ENOENT)
				snprintf(why, len, "no %s in '%.100s' (stripped glibc: install its debug symbols, libc6-dbg on Debian)",
					 pfuncs[i], lib->path);
			else
				snprintf(why, len, "%s in '%.160s': %s",
					 pfuncs[i], lib->path, strerror(-err));
			return err;
		}
	}
	if (p->nr_att == p->cap_att) {
		size_t cap = p->cap_att ? p->cap_att * 2 : 8;
		struct pattach *v = realloc(p->att, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->att = v;
		p->cap_att = cap;
	}
	a = &p->att[p->nr_att];
	memset(a, 0, sizeof(*a));
	a->inode = lib->inode;
	for (i = 0; i < NR_PLINKS; i++) {
		a->links[i] = bpf_program__attach_uprobe(progs[i], ret_of[i],
							 -1, path,
							 off[func_of[i]]);
		if (!a->links[i]) {
			err = -errno;
			snprintf(why, len, "uprobe on %s in '%.160s': %s",
				 pfuncs[func_of[i]], lib->path, strerror(-err));
			while (i-- > 0)
				bpf_link__destroy(a->links[i]);
			return err;
		}
	}
	p->nr_att++;
	return 0;
}

static void lock_target_changed(struct ap_collector *c,
				struct aperture_bpf *skel, pid_t pid)
{
	struct lock_priv *p = priv_of(c);
	struct ap_mmap *lib;
	char why[256];
	int err;

	if (!p || !c->opts.lock_pthread)
		return;
	lib = malloc(sizeof(*lib));
	if (!lib)
		return;
	/* no C library yet is normal right after exec, before ld.so
	 * maps it: the probes already on the usual one cover it, and a
	 * change of another library is probed when it is seen */
	err = find_libc(pid, lib, why, sizeof(why));
	if (!err)
		err = attach_pthread(p, skel, c->opts.system_wide ? -1 : pid,
				     lib, why, sizeof(why));
	else if (err == -ENOENT)
		err = 0;
	if (err && err != -ESRCH && !p->pthread_failed) {
		p->pthread_failed = 1;
		ap_collector__notef(c, "lock:pthread: %s", why);
	}
	free(lib);
}

/* the targets known when recording starts, from the BPF target set */
static int attach_targets(struct ap_collector *c, struct aperture_bpf *skel,
			  struct lock_priv *p, char *why, size_t len)
{
	int fd = bpf_map__fd(skel->maps.targets);
	struct ap_mmap *lib = malloc(sizeof(*lib));
	__u32 key, next, *prev = NULL;
	int err = 0, ok = 0, seen = 0;

	if (!lib)
		return -ENOMEM;
	if (c->opts.system_wide) {
		/* the system's C library: the one aperture itself uses */
		err = find_libc(0, lib, why, len);
		if (!err)
			err = attach_pthread(p, skel, -1, lib, why, len);
		if (!err)
			ap_collector__notef(c,
					    "lock:pthread with -a probes every process using '%s' (and each other C library seen); give -p or a command to probe only the targets",
					    lib->path);
		free(lib);
		return err;
	}
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		seen++;
		if (find_libc(key, lib, why, len) ||
		    attach_pthread(p, skel, key, lib, why, len))
			continue;
		ok++;
	}
	free(lib);
	if (seen && !ok)
		return -ENOENT;
	return 0;
}

static void add_reason(struct ap_sensor *st, const char *what)
{
	size_t n = strlen(st->reason);

	snprintf(st->reason + n, sizeof(st->reason) - n, "%s%s",
		 n ? "; " : "", what);
}

static int lock_attach(struct ap_collector *c, struct aperture_bpf *skel,
		       struct ap_sensor *st)
{
	struct lock_priv *p = calloc(1, sizeof(*p));
	char why[256];
	int err = 0, futex_ok, kernel_ok, pthread_ok = 0;

	if (!p)
		return -ENOMEM;
	c->priv[ap_sensor_index(c, "lock")] = p;
	p->last_read = ap_sums_now();
	st->reason[0] = '\0';

	p->futex_enter = bpf_program__attach(skel->progs.ap_lock_futex_enter);
	p->futex_exit = p->futex_enter ?
		bpf_program__attach(skel->progs.ap_lock_futex_exit) : NULL;
	futex_ok = p->futex_exit != NULL;
	if (!futex_ok) {
		err = -errno;
		snprintf(why, sizeof(why),
			 "no futex waits: syscalls:sys_enter_futex: %s (needs CONFIG_FTRACE_SYSCALLS and tracefs)",
			 strerror(-err));
		add_reason(st, why);
		bpf_link__destroy(p->futex_enter);
		p->futex_enter = NULL;
	}
	p->kbegin = bpf_program__attach(skel->progs.ap_lock_kernel_begin);
	p->kend = p->kbegin ?
		bpf_program__attach(skel->progs.ap_lock_kernel_end) : NULL;
	kernel_ok = p->kend != NULL;
	if (!kernel_ok) {
		err = -errno;
		snprintf(why, sizeof(why),
			 "no kernel lock contention: lock:contention_begin: %s (needs Linux 5.19 or later)",
			 strerror(-err));
		add_reason(st, why);
		bpf_link__destroy(p->kbegin);
		p->kbegin = NULL;
	}
	if (c->opts.lock_pthread) {
		why[0] = '\0';
		err = attach_targets(c, skel, p, why, sizeof(why));
		pthread_ok = !err;
		if (!pthread_ok) {
			char msg[300];

			p->pthread_failed = 1;
			snprintf(msg, sizeof(msg), "no lock:pthread: %.256s",
				 why[0] ? why : strerror(-err));
			add_reason(st, msg);
		}
	}
	if (!futex_ok && !kernel_ok && !pthread_ok)
		return err ? err : -ENODEV;
	snprintf(st->source, sizeof(st->source), "%s%s%s%s%s",
		 futex_ok ? "futex" : "",
		 futex_ok && kernel_ok ? "+" : "",
		 kernel_ok ? "contention" : "",
		 pthread_ok && (futex_ok || kernel_ok) ? "+" : "",
		 pthread_ok ? "pthread" : "");
	/* it runs, without a part: say which, keep the part that runs */
	if (st->reason[0]) {
		st->state = AP_SENSOR_FALLBACK;
		ap_collector__notef(c, "lock: %s", st->reason);
	}
	return 0;
}

/* stat's totals: the CPUs' slots added up, an AP_EV_LOCK_SUM per kind
 * that waited (since the start, as the kernel keeps them) */
static int read_sums(struct ap_collector *c, struct lock_priv *p)
{
	int fd = bpf_map__fd(c->skel->maps.ap_lock_sums);
	int ncpus = libbpf_num_possible_cpus();
	struct ap_lock_sum *v;
	struct ap_ev_lock_sum e;
	__u32 kind;
	int i, err = 0, n = 0;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	v = calloc((size_t)ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->last_read = ap_sums_now();
	for (kind = 0; kind < AP_LOCK_SUM_KINDS && !err; kind++) {
		if (bpf_map_lookup_elem(fd, &kind, v))
			continue;
		memset(&e, 0, sizeof(e));
		for (i = 0; i < ncpus; i++) {
			e.sum.waits += v[i].waits;
			e.sum.wait_ns += v[i].wait_ns;
			e.sum.errors += v[i].errors;
			if (v[i].max_ns > e.sum.max_ns)
				e.sum.max_ns = v[i].max_ns;
		}
		if (!e.sum.waits)
			continue;
		e.hdr.type = AP_EV_LOCK_SUM;
		e.hdr.cpu = UINT32_MAX;
		e.hdr.ts = p->last_read;
		e.kind = kind;
		err = ap_collector__deliver(c, &e, sizeof(e));
		n++;
	}
	free(v);
	return err ? err : n;
}

static int lock_poll(struct ap_collector *c)
{
	struct lock_priv *p = priv_of(c);

	if (!p || !c->opts.totals ||
	    (!c->sums_due && ap_sums_now() - p->last_read < AP_SUMS_NS))
		return 0;
	return read_sums(c, p);
}

/* stat's totals, final: no wait ends once the exit programs are gone */
static int lock_finish(struct ap_collector *c)
{
	struct lock_priv *p = priv_of(c);
	size_t i, j;

	if (!p || !c->opts.totals)
		return 0;
	bpf_link__destroy(p->futex_exit);
	p->futex_exit = NULL;
	bpf_link__destroy(p->kend);
	p->kend = NULL;
	for (i = 0; i < p->nr_att; i++)
		for (j = 0; j < NR_PLINKS; j++) {
			bpf_link__destroy(p->att[i].links[j]);
			p->att[i].links[j] = NULL;
		}
	return read_sums(c, p);
}

static void lock_close(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "lock");
	struct lock_priv *p = idx >= 0 ? c->priv[idx] : NULL;
	size_t i, j;

	if (!p)
		return;
	for (i = 0; i < p->nr_att; i++)
		for (j = 0; j < NR_PLINKS; j++)
			bpf_link__destroy(p->att[i].links[j]);
	bpf_link__destroy(p->futex_enter);
	bpf_link__destroy(p->futex_exit);
	bpf_link__destroy(p->kbegin);
	bpf_link__destroy(p->kend);
	free(p->att);
	free(p);
	c->priv[idx] = NULL;
}

const struct ap_sensor_ops ap_sensor_lock = {
	.name = "lock",
	.tag = AP_TAG_LOCK,
	.prepare = lock_prepare,
	.attach = lock_attach,
	.target_changed = lock_target_changed,
	.poll = lock_poll,
	.finish = lock_finish,
	.close = lock_close,
};
