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

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aperture.skel.h"
#include "io.h"
#include "record/sensor.h"
#include "record/sums.h"

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
	int summed;
	uint64_t last_read;
	struct ap_sums sent;		/* of ap_io_sums */
};

static struct io_priv *priv_of(struct ap_collector *c)
{
	int idx = ap_sensor_index(c, "io");

	return idx >= 0 ? c->priv[idx] : NULL;
}

struct sum_ctx {
	struct ap_collector *c;
	uint64_t now;
};

/* one AP_IO_F_SUM record: what an entry added since the last read */
static int send_sum(void *arg, const void *k, const void *v, const void *l)
{
	const struct ap_io_sum_key *key = k;
	const struct ap_io_sum *cur = v, *last = l;
	struct sum_ctx *x = arg;
	struct ap_ev_io_sum e;

	memset(&e, 0, sizeof(e));
	e.io.hdr.type = AP_EV_IO;
	e.io.hdr.pid = key->pid;
	e.io.hdr.tid = key->tid;
	e.io.hdr.cpu = UINT32_MAX;
	e.io.hdr.ts = x->now;
	e.io.fd = key->fd;
	e.io.sys = key->sys;
	e.io.dir = key->dir;
	e.io.ftype = key->ftype;
	e.io.flags = AP_IO_F_SUM;
	e.io.ino = key->ino;
	e.io.peer_ino = key->peer_ino;
	e.io.dev = key->dev;
	e.io.magic = key->magic;
	e.io.gen = key->gen;
	e.io.family = key->family;
	e.io.sock_type = key->sock_type;
	e.io.protocol = key->protocol;
	e.io.lport = key->lport;
	e.io.rport = key->rport;
	memcpy(e.io.laddr, key->laddr, sizeof(e.io.laddr));
	memcpy(e.io.raddr, key->raddr, sizeof(e.io.raddr));
	memcpy(e.io.comm, key->comm, sizeof(e.io.comm));
	e.sum.calls = cur->calls - last->calls;
	e.sum.bytes = cur->bytes - last->bytes;
	e.sum.errors = cur->errors - last->errors;
	e.sum.partial = cur->partial - last->partial;
	e.sum.ns = cur->ns - last->ns;
	return ap_collector__deliver(x->c, &e, sizeof(e));
}

/* reads the totals (lib/record/sums.h): a record per entry that moved */
static int read_sums(struct ap_collector *c, struct io_priv *p)
{
	struct sum_ctx x = { c, ap_sums_now() };

	p->last_read = x.now;
	return ap_sums__read(&p->sent, bpf_map__fd(c->skel->maps.ap_io_sums),
			     send_sum, &x);
}

static int io_poll(struct ap_collector *c)
{
	struct io_priv *p = priv_of(c);

	if (!p || !p->summed ||
	    (!c->sums_due && ap_sums_now() - p->last_read < AP_SUMS_NS))
		return 0;
	return read_sums(c, p);
}

/* recording stops: no call is added once the exit program is gone; the
 * ring buffer's records first, then the last differences */
static int io_finish(struct ap_collector *c)
{
	struct io_priv *p = priv_of(c);

	if (!p || !p->summed)
		return 0;
	bpf_link__destroy(p->enter);
	p->enter = NULL;
	bpf_link__destroy(p->exit);
	p->exit = NULL;
	while (ap_collector__poll(c, 0) > 0)
		;
	return read_sums(c, p);
}

static int io_prepare(struct ap_collector *c, struct aperture_bpf *skel,
		      int enabled)
{
	int summed = enabled && !c->opts.io_calls;
	size_t i;
	int err;

	err = bpf_map__set_max_entries(skel->maps.ap_io_sums,
				       summed ? AP_IO_SUMS_MAX : 1);
	if (err)
		return err;
	skel->rodata->ap_io_summed = summed;
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
	ap_sums__init(&p->sent, sizeof(struct ap_io_sum_key),
		      sizeof(struct ap_io_sum), 0x10);
	p->summed = !c->opts.io_calls;
	p->last_read = ap_sums_now();

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
		 "raw_syscalls tracepoints, %zu syscalls, %s", NR_IO_SYSCALLS,
		 p->summed ? "summed in the kernel" : "every call");
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
	ap_sums__free(&p->sent);
	free(p);
	c->priv[idx] = NULL;
}

const struct ap_sensor_ops ap_sensor_io = {
	.name = "io",
	.tag = AP_TAG_IO,
	.prepare = io_prepare,
	.attach = io_attach,
	.poll = io_poll,
	.finish = io_finish,
	.close = io_close,
};
