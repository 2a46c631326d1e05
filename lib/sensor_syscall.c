// SPDX-License-Identifier: GPL-2.0
/*
 * Syscalls: the ap_syscall_enter/exit programs on the raw_syscalls
 * tracepoints (tp_btf: needs only BTF, no tracefs).  At the end of the
 * recording the calls still in the in-flight table are written as such,
 * so that a thread blocked in a call is seen rather than silently missing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "procfs.h"
#include "sensor.h"
#include "syscall.h"

static int syscall_prepare(struct ap_collector *c, struct aperture_bpf *skel,
			   int enabled)
{
	int err;

	bpf_program__set_autoload(skel->progs.ap_syscall_enter, enabled);
	bpf_program__set_autoload(skel->progs.ap_syscall_exit, enabled);
	/* the table is preallocated: keep it small when unused */
	err = bpf_map__set_max_entries(skel->maps.ap_sc_inflight,
				       enabled ? AP_SC_INFLIGHT_MAX : 1);
	if (err)
		return err;
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
					  "raw_syscalls");
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
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
	now = mono_ns();
	while (ap_collector__poll(c, 0) > 0)
		;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct ap_ev_syscall e;
		struct ap_sc_start s;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &s))
			continue;	/* removed meanwhile */
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
	.finish = syscall_finish,
};
