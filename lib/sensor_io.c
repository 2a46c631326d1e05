// SPDX-License-Identifier: GPL-2.0
/*
 * I/O and IPC bytes: ap_io_enter and ap_io_exit (bpf/io.bpf.c) on the
 * raw_syscalls:sys_enter and sys_exit tracepoints, told by syscall number
 * which system calls to keep: the read/write, send/recv, splice, sendfile
 * and copy_file_range families.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "io.h"
#include "sensor.h"

static const struct io_syscall {
	const char *name;
	long nr;			/* native number */
	uint8_t sys;			/* AP_IO_SYS_* */
} io_syscalls[] = {
	{ "read", SYS_read, AP_IO_SYS_READ },
	{ "write", SYS_write, AP_IO_SYS_WRITE },
	{ "readv", SYS_readv, AP_IO_SYS_READV },
	{ "writev", SYS_writev, AP_IO_SYS_WRITEV },
	{ "pread64", SYS_pread64, AP_IO_SYS_PREAD64 },
	{ "pwrite64", SYS_pwrite64, AP_IO_SYS_PWRITE64 },
	{ "preadv", SYS_preadv, AP_IO_SYS_PREADV },
	{ "pwritev", SYS_pwritev, AP_IO_SYS_PWRITEV },
	{ "preadv2", SYS_preadv2, AP_IO_SYS_PREADV2 },
	{ "pwritev2", SYS_pwritev2, AP_IO_SYS_PWRITEV2 },
	{ "recvfrom", SYS_recvfrom, AP_IO_SYS_RECVFROM },
	{ "sendto", SYS_sendto, AP_IO_SYS_SENDTO },
	{ "recvmsg", SYS_recvmsg, AP_IO_SYS_RECVMSG },
	{ "sendmsg", SYS_sendmsg, AP_IO_SYS_SENDMSG },
	{ "recvmmsg", SYS_recvmmsg, AP_IO_SYS_RECVMMSG },
	{ "sendmmsg", SYS_sendmmsg, AP_IO_SYS_SENDMMSG },
	{ "splice", SYS_splice, AP_IO_SYS_SPLICE },
	{ "sendfile", SYS_sendfile, AP_IO_SYS_SENDFILE },
	{ "copy_file_range", SYS_copy_file_range,
	  AP_IO_SYS_COPY_FILE_RANGE },
};

#define NR_IO_SYSCALLS (sizeof(io_syscalls) / sizeof(io_syscalls[0]))

struct io_priv {
	struct bpf_link *enter;
	struct bpf_link *exit;
	struct bpf_link *thread_exit;
};

static int io_prepare(struct ap_collector *c, struct aperture_bpf *skel,
		      int enabled)
{
	size_t i;

	bpf_program__set_autoload(skel->progs.ap_io_enter, enabled);
	bpf_program__set_autoload(skel->progs.ap_io_exit, enabled);
	bpf_program__set_autoload(skel->progs.ap_io_thread_exit, enabled);
	if (!enabled)
		return 0;
	for (i = 0; i < NR_IO_SYSCALLS; i++) {
		long nr = io_syscalls[i].nr;

		/* a number past the table would be a new architecture's
		 * surprise: not traced rather than out of bounds */
		if (nr >= 0 && nr < AP_IO_MAX_NR)
			skel->rodata->ap_io_sys[nr] = io_syscalls[i].sys;
		else
			ap_collector__notef(c, "io: %s (syscall %ld) not traced",
					    io_syscalls[i].name, nr);
	}
	return 0;
}

static int io_attach(struct ap_collector *c, struct aperture_bpf *skel,
		     struct ap_sensor *st)
{
	struct io_priv *p;
	const char *what;
	int err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->priv[ap_sensor_index(c, "io")] = p;

	what = "raw_syscalls:sys_enter";
	p->enter = bpf_program__attach(skel->progs.ap_io_enter);
	if (!p->enter)
		goto fail;
	what = "raw_syscalls:sys_exit";
	p->exit = bpf_program__attach(skel->progs.ap_io_exit);
	if (!p->exit)
		goto fail;
	what = "sched:sched_process_exit";
	p->thread_exit = bpf_program__attach(skel->progs.ap_io_thread_exit);
	if (!p->thread_exit)
		goto fail;
	snprintf(st->source, sizeof(st->source),
		 "raw_syscalls tracepoints, %zu syscalls", NR_IO_SYSCALLS);
	return 0;

fail:
	err = -errno;
	if (err == -EACCES || err == -EPERM)
		snprintf(st->reason, sizeof(st->reason),
			 "attaching to %s: %s; run as root or grant CAP_BPF and CAP_PERFMON",
			 what, strerror(-err));
	else if (err == -ENOENT &&
		 access("/sys/kernel/tracing/events/raw_syscalls", F_OK) &&
		 access("/sys/kernel/debug/tracing/events/raw_syscalls", F_OK))
		snprintf(st->reason, sizeof(st->reason),
			 "no %s tracepoint: mount tracefs on /sys/kernel/tracing (the kernel needs CONFIG_FTRACE_SYSCALLS=y)",
			 what);
	else
		snprintf(st->reason, sizeof(st->reason), "attaching to %s: %s",
			 what, strerror(-err));
	return err ? err : -ENODEV;
}

static void io_close(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "io");
	struct io_priv *p = idx >= 0 ? c->priv[idx] : NULL;

	if (!p)
		return;
	bpf_link__destroy(p->enter);
	bpf_link__destroy(p->exit);
	bpf_link__destroy(p->thread_exit);
	free(p);
	c->priv[idx] = NULL;
}

const struct ap_sensor_ops ap_sensor_io = {
	.name = "io",
	.tag = AP_TAG_IO,
	.prepare = io_prepare,
	.attach = io_attach,
	.close = io_close,
};
