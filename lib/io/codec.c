// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O frame: encoder, decoder and the recorder handler.  The BPF
 * record becomes a frame whose fields are all decoded (device numbers in
 * user space's encoding, the path joined into a string), so the file never
 * depends on the layout of struct ap_ev_io.
 */
#include "io/codec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <netinet/in.h>

#include "record/recorder.h"
#include "format/reader.h"
#include "report/evdump.h"

#define PIPEFS_MAGIC	0x50495045

void ap_io__encode(const struct ap_io *e, struct ap_buf *b)
{
	size_t mark;

	ap_frame__begin(b, AP_TAG_IO, &mark);
	ap_event_head__encode(b, e->ts, e->pid, e->tid);
	ap_buf__u32(b, e->cpu);
	ap_buf__u32(b, (uint32_t)e->fd);
	ap_buf__u16(b, e->sys);
	ap_buf__u8(b, e->dir);
	ap_buf__u8(b, e->type);
	ap_buf__u32(b, e->flags);
	ap_buf__u64(b, (uint64_t)e->ret);
	ap_buf__u64(b, e->dev);
	ap_buf__u64(b, e->ino);
	ap_buf__u64(b, e->peer_ino);
	ap_buf__u32(b, e->magic);
	ap_buf__u32(b, e->generation);
	ap_buf__u16(b, e->family);
	ap_buf__u16(b, e->sock_type);
	ap_buf__u16(b, e->protocol);
	ap_buf__u16(b, e->lport);
	ap_buf__u16(b, e->rport);
	ap_buf__put(b, e->laddr, sizeof(e->laddr));
	ap_buf__put(b, e->raddr, sizeof(e->raddr));
	ap_buf__strn(b, e->name, sizeof(e->name));
	if (e->flags & AP_IO_F_SUM) {
		ap_buf__u64(b, e->calls);
		ap_buf__u64(b, e->bytes);
		ap_buf__u64(b, e->errors);
		ap_buf__u64(b, e->partial);
	} else {
		ap_buf__u64(b, e->duration_ns);
	}
	ap_frame__end(b, mark);
}

int ap_io__decode(const void *p, size_t len, struct ap_io *e)
{
	const uint8_t *a;
	struct ap_cur c;

	ap_cur__init(&c, p, len);
	memset(e, 0, sizeof(*e));
	ap_event_head__decode(&c, &e->ts, &e->pid, &e->tid);
	e->cpu = ap_cur__u32(&c);
	e->fd = (int32_t)ap_cur__u32(&c);
	e->sys = ap_cur__u16(&c);
	e->dir = ap_cur__u8(&c);
	e->type = ap_cur__u8(&c);
	e->flags = ap_cur__u32(&c);
	e->ret = (int64_t)ap_cur__u64(&c);
	e->dev = ap_cur__u64(&c);
	e->ino = ap_cur__u64(&c);
	e->peer_ino = ap_cur__u64(&c);
	e->magic = ap_cur__u32(&c);
	e->generation = ap_cur__u32(&c);
	e->family = ap_cur__u16(&c);
	e->sock_type = ap_cur__u16(&c);
	e->protocol = ap_cur__u16(&c);
	e->lport = ap_cur__u16(&c);
	e->rport = ap_cur__u16(&c);
	a = ap_cur__bytes(&c, sizeof(e->laddr));
	if (a)
		memcpy(e->laddr, a, sizeof(e->laddr));
	a = ap_cur__bytes(&c, sizeof(e->raddr));
	if (a)
		memcpy(e->raddr, a, sizeof(e->raddr));
	ap_cur__str(&c, e->name, sizeof(e->name));
	if (e->flags & AP_IO_F_SUM) {
		e->calls = ap_cur__u64(&c);
		e->bytes = ap_cur__u64(&c);
		e->errors = ap_cur__u64(&c);
		e->partial = ap_cur__u64(&c);
	} else if (!c.err && ap_cur__left(&c) >= 8) {
		/* minor 4 */
		e->duration_ns = ap_cur__u64(&c);
	}
	return c.err;
}

uint64_t ap_io_kdev(uint32_t kdev)
{
	return makedev(kdev >> 20, kdev & 0xfffff);
}

size_t ap_io_path_join(const char *comps, size_t len, uint32_t flags,
		       char *out, size_t outlen)
{
	const char *starts[AP_IO_PATH_DEPTH + 1];
	size_t n = 0, off = 0, i;
	const char *p = comps, *end = comps + len;

	if (!outlen)
		return 0;
	while (p < end && n < sizeof(starts) / sizeof(starts[0])) {
		const char *nul = memchr(p, '\0', end - p);

		starts[n++] = p;
		if (!nul)
			break;	/* last component cut: use what is there */
		p = nul + 1;
	}
	out[0] = '\0';
#define APPEND(...)							\
	do {								\
		if (off < outlen)					\
			off += snprintf(out + off, outlen - off,	\
					__VA_ARGS__);			\
	} while (0)
	if (flags & AP_IO_F_PATH_TRUNC)
		APPEND("...");
	for (i = n; i-- > 0;) {
		const char *s = starts[i];
		int l = (int)strnlen(s, end - s);

		if (i == n - 1 && (flags & AP_IO_F_PATH_DETACHED) &&
		    !(flags & AP_IO_F_PATH_TRUNC))
			APPEND("%.*s", l, s);
		else
			APPEND("/%.*s", l, s);
	}
	if (!n && !(flags & AP_IO_F_PATH_DETACHED))
		APPEND("/");
	if (flags & AP_IO_F_DELETED)
		APPEND(" (deleted)");
#undef APPEND
	return off < outlen ? off : outlen - 1;
}

int ap_rec_io(struct ap_recorder *r, const void *data, size_t size)
{
	const struct ap_ev_io *e = data;
	struct ap_io f;

	_Static_assert(sizeof(struct ap_ev_io) % 8 == 0, "ap_ev_io padding");
	if (size < sizeof(*e))
		return 0;
	ap_recorder__touch_ev(r, &e->hdr, e->comm, NULL);

	memset(&f, 0, offsetof(struct ap_io, name));
	f.name[0] = '\0';
	f.calls = f.bytes = f.errors = f.partial = 0;
	f.duration_ns = e->start && e->start < e->hdr.ts ?
			e->hdr.ts - e->start : 0;
	f.ts = e->hdr.ts;
	f.pid = e->hdr.pid;
	f.tid = e->hdr.tid;
	f.cpu = e->hdr.cpu;
	f.fd = e->fd;
	f.sys = e->sys;
	f.dir = e->dir;
	f.type = e->ftype;
	f.flags = e->flags;
	f.ret = e->ret;
	f.dev = e->ino ? ap_io_kdev(e->dev) : 0;
	f.ino = e->ino;
	f.peer_ino = e->peer_ino;
	f.magic = e->magic;
	f.generation = e->gen;
	f.family = e->family;
	f.sock_type = e->sock_type;
	f.protocol = e->protocol;
	f.lport = e->lport;
	f.rport = e->rport;
	memcpy(f.laddr, e->laddr, sizeof(f.laddr));
	memcpy(f.raddr, e->raddr, sizeof(f.raddr));
	if ((e->flags & AP_IO_F_PATH) &&
	    size >= sizeof(struct ap_ev_io_path)) {
		const struct ap_ev_io_path *pe = data;
		size_t len = e->path_len < AP_IO_PATH_BUF ? e->path_len :
							      AP_IO_PATH_BUF;

		ap_io_path_join(pe->path, len, e->flags, f.name,
				sizeof(f.name));
	} else {
		f.flags &= ~AP_IO_F_PATH;
	}
	/* sums come from the sensor, never from the ring buffer */
	if ((e->flags & AP_IO_F_SUM) && size >= sizeof(struct ap_ev_io_sum)) {
		const struct ap_ev_io_sum *se = data;

		f.ret = 0;
		f.duration_ns = 0;
		f.calls = se->sum.calls;
		f.bytes = se->sum.bytes;
		f.errors = se->sum.errors;
		f.partial = se->sum.partial;
	} else {
		f.flags &= ~AP_IO_F_SUM;
	}
	ap_io__encode(&f, ap_recorder__buf(r));
	return 0;
}

const char *ap_io_sys_name(uint32_t sys)
{
	static const char *const names[AP_IO_SYS_NR] = {
		[AP_IO_SYS_READ] = "read",
		[AP_IO_SYS_WRITE] = "write",
		[AP_IO_SYS_READV] = "readv",
		[AP_IO_SYS_WRITEV] = "writev",
		[AP_IO_SYS_PREAD64] = "pread64",
		[AP_IO_SYS_PWRITE64] = "pwrite64",
		[AP_IO_SYS_PREADV] = "preadv",
		[AP_IO_SYS_PWRITEV] = "pwritev",
		[AP_IO_SYS_PREADV2] = "preadv2",
		[AP_IO_SYS_PWRITEV2] = "pwritev2",
		[AP_IO_SYS_RECVFROM] = "recvfrom",
		[AP_IO_SYS_SENDTO] = "sendto",
		[AP_IO_SYS_RECVMSG] = "recvmsg",
		[AP_IO_SYS_SENDMSG] = "sendmsg",
		[AP_IO_SYS_RECVMMSG] = "recvmmsg",
		[AP_IO_SYS_SENDMMSG] = "sendmmsg",
		[AP_IO_SYS_SPLICE] = "splice",
		[AP_IO_SYS_SENDFILE] = "sendfile",
		[AP_IO_SYS_COPY_FILE_RANGE] = "copy_file_range",
	};

	if (sys >= AP_IO_SYS_NR || !names[sys])
		return "?";
	return names[sys];
}

const char *ap_io_type_name(uint32_t type)
{
	static const char *const names[AP_IO_FT_NR] = {
		[AP_IO_FT_UNKNOWN] = "unknown",
		[AP_IO_FT_FILE] = "file",
		[AP_IO_FT_PIPE] = "pipe",
		[AP_IO_FT_SOCK] = "socket",
		[AP_IO_FT_CHR] = "chardev",
		[AP_IO_FT_BLK] = "blockdev",
		[AP_IO_FT_DIR] = "dir",
		[AP_IO_FT_ANON] = "anon",
		[AP_IO_FT_OTHER] = "other",
	};

	if (type >= AP_IO_FT_NR)
		return "?";
	return names[type];
}

static void fmt_addr(char *buf, size_t len, uint16_t family,
		     const uint8_t *addr, uint16_t port)
{
	char a[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family == AF_INET6 ? AF_INET6 : AF_INET, addr, a, sizeof(a));
	if (family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", a, port);
	else
		snprintf(buf, len, "%s:%u", a, port);
}

static const char *proto_name(const struct ap_io *e)
{
	if (e->protocol == IPPROTO_TCP || (!e->protocol &&
					   e->sock_type == SOCK_STREAM))
		return "tcp";
	if (e->protocol == IPPROTO_UDP || (!e->protocol &&
					   e->sock_type == SOCK_DGRAM))
		return "udp";
	if (e->protocol == IPPROTO_ICMP || e->protocol == IPPROTO_ICMPV6)
		return "icmp";
	return e->sock_type == SOCK_RAW ? "raw" : "ip";
}

static int addr_is_zero(const uint8_t *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i])
			return 0;
	return 1;
}

void ap_io_describe(const struct ap_io *e, const char *name, char *buf,
		    size_t len)
{
	char l[64], r[64];

	if (!name)
		name = "";
	switch (e->type) {
	case AP_IO_FT_UNKNOWN:
		snprintf(buf, len, "unresolved fd %d", e->fd);
		return;
	case AP_IO_FT_PIPE:
		if (e->magic == PIPEFS_MAGIC || !name[0])
			snprintf(buf, len, "pipe:[%llu]",
				 (unsigned long long)e->ino);
		else
			snprintf(buf, len, "fifo %s", name);
		return;
	case AP_IO_FT_SOCK:
		break;
	case AP_IO_FT_ANON:
		snprintf(buf, len, "anon_inode:%s", name[0] ? name : "?");
		return;
	default:
		if (name[0])
			snprintf(buf, len, "%s", name);
		else
			snprintf(buf, len, "%s dev %u:%u ino %llu",
				 ap_io_type_name(e->type), major(e->dev),
				 minor(e->dev), (unsigned long long)e->ino);
		return;
	}
	switch (e->family) {
	case AF_INET:
	case AF_INET6:
		fmt_addr(l, sizeof(l), e->family, e->laddr, e->lport);
		if (!e->rport && addr_is_zero(e->raddr, sizeof(e->raddr)))
			snprintf(r, sizeof(r), "*");
		else
			fmt_addr(r, sizeof(r), e->family, e->raddr, e->rport);
		snprintf(buf, len, "%s%s %s -> %s", proto_name(e),
			 e->family == AF_INET6 ? "6" : "", l, r);
		return;
	case AF_UNIX:
		if (e->peer_ino)
			snprintf(buf, len, "unix %s socket:[%llu] -> socket:[%llu]",
				 e->sock_type == SOCK_DGRAM ? "dgram" :
				 e->sock_type == SOCK_SEQPACKET ? "seqpacket" :
								  "stream",
				 (unsigned long long)e->ino,
				 (unsigned long long)e->peer_ino);
		else
			snprintf(buf, len, "unix %s socket:[%llu]",
				 e->sock_type == SOCK_DGRAM ? "dgram" :
				 e->sock_type == SOCK_SEQPACKET ? "seqpacket" :
								  "stream",
				 (unsigned long long)e->ino);
		return;
	default:
		snprintf(buf, len, "socket:[%llu] family %u",
			 (unsigned long long)e->ino, e->family);
	}
}

/* one frame as a generic record for script and the timeline (event.h) */
int ap_io__evdec(struct ap_evdec *d, const struct ap_frame *f,
		 struct ap_evrec *r)
{
	struct ap_io *e = malloc(sizeof(*e));
	const char *path = NULL;
	char what[256];

	if (!e)
		return -ENOMEM;
	if (ap_io__decode(f->payload, f->len, e)) {
		free(e);
		return -EBADMSG;
	}
	/* a file's path comes in its first frame only */
	path = ap_evdec__path(d, e->dev, e->ino, e->name);
	ap_io_describe(e, path ? path : "", what, sizeof(what));
	snprintf(r->name, sizeof(r->name), "%s", ap_io_sys_name(e->sys));
	/* a slice from the call's entry where the file has its duration
	 * (minor 3), else an instant at its end */
	r->ts = e->ts - (e->duration_ns < e->ts ? e->duration_ns : 0);
	r->dur_ns = e->duration_ns;
	r->slice = e->duration_ns > 0;
	r->pid = e->pid;
	r->tid = e->tid;
	r->cpu = e->cpu;
	ap_evrec__field(r, "dir", 0, "%s", e->dir == AP_IO_WRITE ? "write" : "read");
	ap_evrec__field(r, "fd", 1, "%d", e->fd);
	if (e->flags & AP_IO_F_SUM) {
		/* the calls since the last such frame, summed in the kernel */
		r->summed = 1;
		ap_evrec__field(r, "calls", 1, "%" PRIu64, e->calls);
		ap_evrec__field(r, "bytes", 1, "%" PRIu64, e->bytes);
		ap_evrec__field(r, "errors", 1, "%" PRIu64, e->errors);
	} else {
		ap_evrec__field(r, "ret", 1, "%" PRId64, e->ret);
	}
	ap_evrec__field(r, "type", 0, "%s", ap_io_type_name(e->type));
	ap_evrec__field(r, "resource", 0, "%s", what);
	if (e->duration_ns)
		ap_evrec__field(r, "duration_ns", 1, "%" PRIu64, e->duration_ns);
	free(e);
	return 0;
}
