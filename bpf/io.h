/* SPDX-License-Identifier: GPL-2.0 */
/*
 * I/O and IPC bytes: the ring buffer records of bpf/io.bpf.c.  One record
 * per completed read/write-family syscall per file descriptor it moved
 * bytes through (splice, sendfile and copy_file_range give two: the read
 * side and the write side), with what the descriptor is: a pipe, a socket
 * and its addresses, a file and, the first time it is seen, its path.
 *
 * Same rules as aperture.h: fixed-size integers and explicit padding only.
 */
#ifndef APERTURE_BPF_IO_H
#define APERTURE_BPF_IO_H

#include "aperture.h"

/* syscalls traced, numbered for the record (the native syscall numbers
 * differ between architectures; user space maps them for BPF).  From 1 to
 * 16 the odd numbers read and the even ones write. */
#define AP_IO_SYS_READ			1
#define AP_IO_SYS_WRITE			2
#define AP_IO_SYS_READV			3
#define AP_IO_SYS_WRITEV		4
#define AP_IO_SYS_PREAD64		5
#define AP_IO_SYS_PWRITE64		6
#define AP_IO_SYS_PREADV		7
#define AP_IO_SYS_PWRITEV		8
#define AP_IO_SYS_PREADV2		9
#define AP_IO_SYS_PWRITEV2		10
#define AP_IO_SYS_RECVFROM		11
#define AP_IO_SYS_SENDTO		12
#define AP_IO_SYS_RECVMSG		13
#define AP_IO_SYS_SENDMSG		14
#define AP_IO_SYS_RECVMMSG		15
#define AP_IO_SYS_SENDMMSG		16
#define AP_IO_SYS_SPLICE		17
#define AP_IO_SYS_SENDFILE		18
#define AP_IO_SYS_COPY_FILE_RANGE	19
#define AP_IO_SYS_NR			20

/* native syscall numbers below this are looked up in ap_io_sys[] */
#define AP_IO_MAX_NR			1024

/* ap_ev_io.dir */
#define AP_IO_READ			0
#define AP_IO_WRITE			1

/* ap_ev_io.ftype: what the descriptor refers to */
#define AP_IO_FT_UNKNOWN		0	/* fd not resolved */
#define AP_IO_FT_FILE			1	/* S_IFREG */
#define AP_IO_FT_PIPE			2	/* S_IFIFO: pipe or FIFO */
#define AP_IO_FT_SOCK			3	/* S_IFSOCK */
#define AP_IO_FT_CHR			4	/* S_IFCHR: tty, /dev/null.. */
#define AP_IO_FT_BLK			5
#define AP_IO_FT_DIR			6
#define AP_IO_FT_ANON			7	/* anon inode: eventfd, timerfd.. */
#define AP_IO_FT_OTHER			8
#define AP_IO_FT_NR			9

/* ap_ev_io.flags */
#define AP_IO_F_PATH		0x01	/* an ap_ev_io_path: path[] follows */
#define AP_IO_F_PATH_TRUNC	0x02	/* too deep or long: root side cut */
#define AP_IO_F_PATH_DETACHED	0x04	/* not under a mount root: pseudo */
#define AP_IO_F_DELETED		0x08	/* the dentry is unlinked */
#define AP_IO_F_PARTIAL		0x10	/* *mmsg: some msg_len unreadable */
#define AP_IO_F_SUM		0x20	/* calls summed: an ap_ev_io_sum */

/* path[]: components leaf first, each NUL-terminated; components stop
 * being added once AP_IO_PATH_SOFT bytes are used */
#define AP_IO_PATH_SOFT		256
#define AP_IO_PATH_BUF		512
#define AP_IO_PATH_DEPTH	32

struct ap_ev_io {
	struct ap_ev_hdr hdr;
	__s64 ret;		/* bytes moved, or -errno */
	__u64 ino;		/* inode number (0: unresolved) */
	__u64 peer_ino;		/* AF_UNIX: inode of the peer socket */
	__u32 dev;		/* superblock s_dev, kernel encoding */
	__u32 magic;		/* superblock s_magic (low 32 bits) */
	__u32 gen;		/* i_generation */
	__s32 fd;
	__u16 sys;		/* AP_IO_SYS_* */
	__u8 dir;		/* AP_IO_READ / AP_IO_WRITE */
	__u8 ftype;		/* AP_IO_FT_* */
	__u16 family;		/* sockets: AF_* */
	__u16 sock_type;	/* sockets: SOCK_* */
	__u16 protocol;		/* sockets: sk_protocol */
	__u16 lport;		/* host order */
	__u16 rport;		/* host order */
	__u16 flags;		/* AP_IO_F_* */
	__u8 laddr[16];		/* AF_INET: first 4 bytes; network order */
	__u8 raddr[16];
	__u32 path_len;		/* bytes used in path[] */
	__u32 pad;
	__u64 start;		/* the call's entry; hdr.ts is its exit */
	char comm[AP_COMM_LEN];
};

/* the first record for an inode that is neither a pipe nor a socket */
struct ap_ev_io_path {
	struct ap_ev_io io;
	char path[AP_IO_PATH_BUF];
};

/* a syscall in flight, per thread, between sys_enter and sys_exit */
struct ap_io_inflight {
	__u64 arg;		/* *mmsg: the struct mmsghdr vector */
	__s32 fd;		/* read side (or only fd) */
	__s32 fd_out;		/* splice, sendfile, copy_file_range: write side */
	__u32 sys;		/* AP_IO_SYS_* */
	__s32 nr;		/* native syscall number */
	__u64 start;		/* bpf_ktime_get_ns() at entry */
	__u64 end;		/* at exit, in the exit program's copy */
};

/*
 * By default (-e io; io:calls sends a record per call) the exit program
 * adds each call to totals per process, thread, descriptor, what it
 * refers to, call, direction and command name, and user space sends the
 * differences every second and at the end.  The first call on an inode
 * whose path has not been sent is still a record of its own.
 */
struct ap_io_sum_key {
	__u32 pid;
	__u32 tid;
	__s32 fd;
	__u16 sys;
	__u8 dir;
	__u8 ftype;
	__u64 ino;
	__u64 peer_ino;
	__u32 dev;
	__u32 magic;
	__u32 gen;
	__u16 family;
	__u16 sock_type;
	__u16 protocol;
	__u16 lport;
	__u16 rport;
	__u16 pad;
	__u8 laddr[16];
	__u8 raddr[16];
	char comm[AP_COMM_LEN];
};

struct ap_io_sum {
	__u64 calls;
	__u64 bytes;		/* of the calls that moved bytes */
	__u64 errors;		/* calls that returned -errno */
	__u64 partial;		/* AP_IO_F_PARTIAL calls */
	__u64 ns;		/* in the calls: entry to exit */
};

#define AP_IO_SUMS_MAX		16384	/* a full table: records per call */

/* built by user space from a totals entry: hdr.type AP_EV_IO, flags
 * AP_IO_F_SUM, ret 0 */
struct ap_ev_io_sum {
	struct ap_ev_io io;
	struct ap_io_sum sum;
};

#endif /* APERTURE_BPF_IO_H */
