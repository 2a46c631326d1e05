/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The I/O frame (AP_TAG_IO): one completed read/write-family syscall on
 * one file descriptor, with what the descriptor referred to, or (flag
 * AP_IO_F_SUM) the sums of such calls since the last frame of that kind.  Its encoder
 * and decoder, the recorder handler that builds it from a bpf/io.h
 * record, and helpers the io view shares with the tests.
 *
 * The numbering of AP_IO_SYS_*, AP_IO_FT_*, AP_IO_F_* and AP_IO_READ/WRITE
 * (bpf/io.h) is part of the file format: values are only ever appended.
 */
#ifndef APERTURE_EV_IO_H
#define APERTURE_EV_IO_H

#include <stddef.h>
#include <stdint.h>

#include "format/buf.h"
#include "io.h"

struct ap_recorder;

#define AP_IO_NAME_MAX	1024

struct ap_io {
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	uint32_t cpu;
	int32_t fd;
	uint16_t sys;			/* AP_IO_SYS_* */
	uint8_t dir;			/* AP_IO_READ / AP_IO_WRITE */
	uint8_t type;			/* AP_IO_FT_* */
	uint32_t flags;			/* AP_IO_F_* */
	int64_t ret;			/* bytes moved, or -errno */
	uint64_t dev;			/* user-space dev_t: makedev(maj, min) */
	uint64_t ino;
	uint64_t peer_ino;		/* AF_UNIX: the peer socket's inode */
	uint32_t magic;			/* file system magic */
	uint32_t generation;		/* inode generation */
	uint16_t family;		/* sockets: AF_* */
	uint16_t sock_type;		/* sockets: SOCK_* */
	uint16_t protocol;
	uint16_t lport;			/* host order */
	uint16_t rport;
	uint8_t laddr[16];		/* network order; AF_INET: 4 bytes */
	uint8_t raddr[16];
	/* the path, in the first frame of an inode that is neither a pipe
	 * nor a socket (flags & AP_IO_F_PATH); "" in later ones: readers
	 * remember it by (dev, ino) */
	char name[AP_IO_NAME_MAX];
	/* flags & AP_IO_F_SUM (format 1.3): the calls this frame sums,
	 * their bytes, errors and partial reads; ret is 0 */
	uint64_t calls;
	uint64_t bytes;
	uint64_t errors;
	uint64_t partial;
	/* one call (no AP_IO_F_SUM, format 1.4): its entry to its exit
	 * (ts); 0: not known (older files) */
	uint64_t duration_ns;
};

void ap_io__encode(const struct ap_io *e, struct ap_buf *b);
int ap_io__decode(const void *p, size_t len, struct ap_io *e);

/* recorder handler of AP_EV_IO records (struct ap_ev_io[_path]) */
int ap_rec_io(struct ap_recorder *r, const void *data, size_t size);

/*
 * Joins bpf/io.h path components (leaf first, NUL-terminated, len bytes)
 * into "/a/b/leaf" in out, as flags say: AP_IO_F_PATH_TRUNC prefixes
 * ".../", AP_IO_F_PATH_DETACHED drops the leading "/", AP_IO_F_DELETED
 * appends " (deleted)".  Returns the length written (out is always
 * terminated, and cut to outlen - 1).
 */
size_t ap_io_path_join(const char *comps, size_t len, uint32_t flags,
		       char *out, size_t outlen);

/* kernel dev_t (major << 20 | minor) to user space's makedev() */
uint64_t ap_io_kdev(uint32_t kdev);

/* "read", "sendmsg", ...; "?" for a number not known */
const char *ap_io_sys_name(uint32_t sys);
/* "file", "pipe", "socket", ... */
const char *ap_io_type_name(uint32_t type);

/* "tcp 127.0.0.1:80 -> 127.0.0.1:41000", "pipe:[1234]", the path, ...:
 * what e's descriptor referred to, for a person; name is the path to use
 * for files (e->name or what a reader remembered) */
void ap_io_describe(const struct ap_io *e, const char *name, char *buf,
		    size_t len);

struct ap_frame;
/* one of its frames as a generic record for script and the timeline */
struct ap_evdec;
struct ap_evrec;
int ap_io__evdec(struct ap_evdec *d, const struct ap_frame *f,
		 struct ap_evrec *r);

#endif /* APERTURE_EV_IO_H */
