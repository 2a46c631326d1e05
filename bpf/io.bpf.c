// SPDX-License-Identifier: GPL-2.0
/*
 * I/O and IPC bytes: the read/write, send/recv, splice, sendfile and
 * copy_file_range families, from the raw_syscalls:sys_enter and sys_exit
 * tracepoints (kprobes and fentry are not needed), kept by syscall number:
 * user space tells the programs, in ap_io_sys[], which native number is
 * which.  Two tracepoints rather than the 38 syscalls:sys_*_NAME ones:
 * detaching each of those waits for an RCU grace period (75 ms here), 3 s
 * at the end of every recording; the price is a table look-up on every
 * system call, which returns at once for the others.
 *
 * At entry the descriptors are kept per thread; at exit the return value
 * says how many bytes moved, and the descriptor is resolved through the
 * task's file table: inode type, device and number (which pair the two
 * ends of a pipe), socket addresses (which pair loopback connections), and
 * the first time an inode is seen its path, built from dentry names.
 *
 * By default calls are summed in ap_io_sums (see bpf/io.h): a ring buffer
 * record per call cost the traced program about as much as the call
 * itself, mostly in the reader.  io:calls keeps one record per call, exact
 * and time-ordered.  A full table falls back to records: counts stay
 * exact either way.
 */
#include "common.bpf.h"
#include <bpf/bpf_endian.h>
#include "io.h"

#define S_IFMT		00170000
#define S_IFSOCK	0140000
#define S_IFREG		0100000
#define S_IFBLK		0060000
#define S_IFDIR		0040000
#define S_IFCHR		0020000
#define S_IFIFO		0010000

#define AF_UNIX		1
#define AF_INET		2
#define AF_INET6	10

#define ANON_INODE_FS_MAGIC	0x09041934

#define AP_IO_INFLIGHT_MAX	16384
#define AP_IO_SEEN_MAX		65536
#define AP_IO_MMSG_MAX		1024	/* UIO_MAXIOV: the kernel's own bound */

/* native syscall number -> AP_IO_SYS_*, 0: not traced; set before load */
const volatile __u8 ap_io_sys[AP_IO_MAX_NR] = {};
/* set before load: sum calls in ap_io_sums rather than a record each */
const volatile __u8 ap_io_summed = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_IO_SUMS_MAX);	/* 1 unless summed */
	__type(key, struct ap_io_sum_key);
	__type(value, struct ap_io_sum);
} ap_io_sums SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_IO_INFLIGHT_MAX);
	__type(key, __u32);			/* tid */
	__type(value, struct ap_io_inflight);
} io_inflight SEC(".maps");

struct io_seen_key {
	__u64 ino;
	__u32 dev;
	__u32 gen;
};

/*
 * Inodes whose path has been sent.  An LRU: an inode pushed out only
 * costs sending its path again, never a wrong or lost count.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, AP_IO_SEEN_MAX);
	__type(key, struct io_seen_key);
	__type(value, __u8);
} io_seen SEC(".maps");

/* the raw_syscalls tracepoints' records (.../raw_syscalls/sys_enter/format):
 * a long id, read as its low 32 bits (the syscalls:sys_enter_NAME records
 * have an int there, so this also reads those); only the first three
 * arguments are read */
struct io_sys_enter {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__u64 args[3];
};

struct io_sys_exit {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

SEC("tp/raw_syscalls/sys_enter")
int ap_io_enter(struct io_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ap_io_inflight in = {};
	__u32 tid = (__u32)id;
	__s32 nr = ctx->nr;
	__u32 sys;

	if (nr < 0 || nr >= AP_IO_MAX_NR)
		return 0;
	sys = ap_io_sys[nr];
	if (!sys || !ap_is_target(id >> 32))
		return 0;
	in.sys = sys;
	in.nr = nr;
	in.start = bpf_ktime_get_ns();
	in.fd = (__s32)ctx->args[0];
	in.fd_out = -1;
	switch (sys) {
	case AP_IO_SYS_SENDFILE:	/* (out_fd, in_fd, offset, count) */
		in.fd_out = (__s32)ctx->args[0];
		in.fd = (__s32)ctx->args[1];
		break;
	case AP_IO_SYS_SPLICE:		/* (fd_in, off_in, fd_out, ...) */
	case AP_IO_SYS_COPY_FILE_RANGE:
		in.fd_out = (__s32)ctx->args[2];
		break;
	case AP_IO_SYS_RECVMMSG:	/* (fd, msgvec, vlen, ...) */
	case AP_IO_SYS_SENDMMSG:
		in.arg = ctx->args[1];
		break;
	}
	if (bpf_map_update_elem(&io_inflight, &tid, &in, BPF_ANY))
		ap_count(AP_STAT_IO_TABLE_FULL);
	return 0;
}

static __always_inline struct file *fd_file(int fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds;
	struct file *f = NULL;

	if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_core_read(&f, sizeof(f), &fds[fd]))
		return NULL;
	return f;
}

static __always_inline __u8 file_type(__u16 mode, __u32 magic)
{
	switch (mode & S_IFMT) {
	case S_IFIFO:
		return AP_IO_FT_PIPE;
	case S_IFSOCK:
		return AP_IO_FT_SOCK;
	case S_IFCHR:
		return AP_IO_FT_CHR;
	case S_IFBLK:
		return AP_IO_FT_BLK;
	case S_IFDIR:
		return AP_IO_FT_DIR;
	}
	/* anon inodes are S_IFREG on recent kernels, typeless on older */
	if (magic == ANON_INODE_FS_MAGIC)
		return AP_IO_FT_ANON;
	if ((mode & S_IFMT) == S_IFREG)
		return AP_IO_FT_FILE;
	return AP_IO_FT_OTHER;
}

static __always_inline void fill_sock(struct ap_ev_io *e, struct file *f)
{
	struct socket *sock = BPF_CORE_READ(f, private_data);
	struct sock *sk;

	if (!sock)
		return;
	e->sock_type = BPF_CORE_READ(sock, type);
	sk = BPF_CORE_READ(sock, sk);
	if (!sk)
		return;
	e->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	e->protocol = BPF_CORE_READ(sk, sk_protocol);
	switch (e->family) {
	case AF_INET: {
		__u32 a;

		a = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
		__builtin_memcpy(e->laddr, &a, sizeof(a));
		a = BPF_CORE_READ(sk, __sk_common.skc_daddr);
		__builtin_memcpy(e->raddr, &a, sizeof(a));
		break;
	}
	case AF_INET6:
		BPF_CORE_READ_INTO(&e->laddr, sk,
				   __sk_common.skc_v6_rcv_saddr.in6_u.u6_addr8);
		BPF_CORE_READ_INTO(&e->raddr, sk,
				   __sk_common.skc_v6_daddr.in6_u.u6_addr8);
		break;
	case AF_UNIX: {
		struct sock *peer = BPF_CORE_READ((struct unix_sock *)sk, peer);

		if (peer)
			e->peer_ino = BPF_CORE_READ(peer, sk_socket, file,
						    f_inode, i_ino);
		return;
	}
	default:
		return;
	}
	e->lport = BPF_CORE_READ(sk, __sk_common.skc_num);
	e->rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
}

/*
 * The path walk keeps its state in a per-CPU map value rather than on the
 * stack: the verifier then checks one step of the walk once, where a loop
 * over stack variables made it explore every combination of component
 * lengths and mount crossings (over a million instructions).  Only this
 * object's programs use it, all tracepoints of the perf kind (tp/), which
 * the kernel's per-CPU bpf_prog_active keeps from nesting, and which run
 * with preemption off: one buffer per CPU is enough.
 */
#define AP_IO_WALK_DONE		0x8000	/* internal: reached a root */

struct io_walk {
	__u64 d;			/* struct dentry * */
	__u64 m;			/* struct mount * */
	__u64 root;			/* m's root dentry */
	__u32 off;			/* bytes used in buf */
	__u32 flags;
	char buf[AP_IO_PATH_BUF];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct io_walk);
} io_walk_buf SEC(".maps");

/* one step up: a component, or from a mount's root to its mount point */
static long walk_step(__u32 i, void *ctx)
{
	struct dentry *d, *parent;
	const unsigned char *name;
	struct io_walk *w;
	struct mount *m;
	__u32 zero = 0, off;
	long n;

	w = bpf_map_lookup_elem(&io_walk_buf, &zero);
	if (!w)
		return 1;
	d = (struct dentry *)w->d;
	m = (struct mount *)w->m;
	if (w->d == w->root) {
		struct mount *mp = BPF_CORE_READ(m, mnt_parent);

		if (!mp || mp == m) {
			w->flags |= AP_IO_WALK_DONE;
			return 1;
		}
		w->d = (__u64)BPF_CORE_READ(m, mnt_mountpoint);
		w->m = (__u64)mp;
		w->root = (__u64)BPF_CORE_READ(mp, mnt.mnt_root);
		return 0;
	}
	off = w->off;
	if (off >= AP_IO_PATH_SOFT)
		return 1;
	name = BPF_CORE_READ(d, d_name.name);
	n = bpf_probe_read_kernel_str(&w->buf[off & (AP_IO_PATH_SOFT - 1)],
				      AP_IO_PATH_BUF - AP_IO_PATH_SOFT, name);
	if (n <= 0)
		return 1;
	w->off = off + n;
	parent = BPF_CORE_READ(d, d_parent);
	if (!parent || parent == d) {
		w->flags |= AP_IO_F_PATH_DETACHED | AP_IO_WALK_DONE;
		return 1;
	}
	w->d = (__u64)parent;
	return 0;
}

/*
 * The path of f into p, components leaf first, NUL-separated, walking
 * dentries up to the root of each mount and from there to the mount point
 * in the parent mount, up to the namespace root.
 */
static __always_inline void fill_path(struct ap_ev_io_path *p, struct file *f)
{
	struct dentry *d = BPF_CORE_READ(f, f_path.dentry);
	struct vfsmount *vm = BPF_CORE_READ(f, f_path.mnt);
	struct io_walk *w;
	__u32 zero = 0;

	w = bpf_map_lookup_elem(&io_walk_buf, &zero);
	if (!w)
		return;
	w->d = (__u64)d;
	w->m = (__u64)((void *)vm - bpf_core_field_offset(struct mount, mnt));
	w->root = (__u64)BPF_CORE_READ(vm, mnt_root);
	w->off = 0;
	w->flags = 0;
	if (!BPF_CORE_READ(d, d_hash.pprev) && d != BPF_CORE_READ(d, d_parent))
		p->io.flags |= AP_IO_F_DELETED;
	/* mount crossings take a step each: twice the depth */
	bpf_loop(2 * AP_IO_PATH_DEPTH, walk_step, NULL, 0);
	if (!(w->flags & AP_IO_WALK_DONE))
		p->io.flags |= AP_IO_F_PATH_TRUNC;
	p->io.flags |= w->flags & AP_IO_F_PATH_DETACHED;
	p->io.path_len = w->off < AP_IO_PATH_BUF ? w->off : AP_IO_PATH_BUF;
	bpf_probe_read_kernel(p->path, sizeof(p->path), w->buf);
}

static __always_inline void fill_common(struct ap_ev_io *e, int fd, __u8 dir,
					__u16 sys, __s64 ret, __u16 flags,
					struct file *f)
{
	struct inode *inode;
	__u16 mode;

	__builtin_memset(e, 0, sizeof(*e));
	ap_fill_hdr(&e->hdr, AP_EV_IO);
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->ret = ret;
	e->fd = fd;
	e->sys = sys;
	e->dir = dir;
	e->flags = flags;
	if (!f)
		return;
	inode = BPF_CORE_READ(f, f_inode);
	mode = BPF_CORE_READ(inode, i_mode);
	e->ino = BPF_CORE_READ(inode, i_ino);
	e->gen = BPF_CORE_READ(inode, i_generation);
	e->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	e->magic = (__u32)BPF_CORE_READ(inode, i_sb, s_magic);
	e->ftype = file_type(mode, e->magic);
	if (e->ftype == AP_IO_FT_SOCK)
		fill_sock(e, f);
}

/* adds the call e describes to its totals; 0, or -1 when the table has
 * no room for a new entry */
static __always_inline int sum_call(const struct ap_ev_io *e)
{
	struct ap_io_sum_key k = {};
	struct ap_io_sum *s;

	k.pid = e->hdr.pid;
	k.tid = e->hdr.tid;
	k.fd = e->fd;
	k.sys = e->sys;
	k.dir = e->dir;
	k.ftype = e->ftype;
	k.ino = e->ino;
	k.peer_ino = e->peer_ino;
	k.dev = e->dev;
	k.magic = e->magic;
	k.gen = e->gen;
	k.family = e->family;
	k.sock_type = e->sock_type;
	k.protocol = e->protocol;
	k.lport = e->lport;
	k.rport = e->rport;
	__builtin_memcpy(k.laddr, e->laddr, sizeof(k.laddr));
	__builtin_memcpy(k.raddr, e->raddr, sizeof(k.raddr));
	__builtin_memcpy(k.comm, e->comm, sizeof(k.comm));
	s = bpf_map_lookup_elem(&ap_io_sums, &k);
	if (!s) {
		struct ap_io_sum zero = {};

		/* only this thread creates its keys: no race to lose */
		bpf_map_update_elem(&ap_io_sums, &k, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&ap_io_sums, &k);
		if (!s)
			return -1;
	}
	__sync_fetch_and_add(&s->calls, 1);
	if (e->ret < 0)
		__sync_fetch_and_add(&s->errors, 1);
	else
		__sync_fetch_and_add(&s->bytes, e->ret);
	if (e->flags & AP_IO_F_PARTIAL)
		__sync_fetch_and_add(&s->partial, 1);
	return 0;
}

/* in: the call (its number and entry time), on the caller's stack */
static __noinline int emit(const struct ap_io_inflight *in, int fd,
			   __u32 dir, __s64 ret, __u32 flags)
{
	__u32 sys = in->sys;
	struct file *f = fd_file(fd);
	struct io_seen_key key = {};
	int want_path = 0;

	if (!f && ret >= 0)
		ap_count(AP_STAT_IO_UNRESOLVED);
	if (f) {
		struct inode *inode = BPF_CORE_READ(f, f_inode);
		__u16 mode = BPF_CORE_READ(inode, i_mode);

		if ((mode & S_IFMT) != S_IFIFO && (mode & S_IFMT) != S_IFSOCK) {
			key.ino = BPF_CORE_READ(inode, i_ino);
			key.dev = BPF_CORE_READ(inode, i_sb, s_dev);
			key.gen = BPF_CORE_READ(inode, i_generation);
			want_path = !bpf_map_lookup_elem(&io_seen, &key);
		}
	}
	if (want_path) {
		struct ap_ev_io_path *p = ap_reserve(sizeof(*p));
		__u8 one = 1;

		if (!p)
			return 0;
		fill_common(&p->io, fd, dir, sys, ret, flags | AP_IO_F_PATH, f);
		p->io.hdr.ts = in->end;
		p->io.start = in->start;
		fill_path(p, f);
		ap_submit(p, sizeof(*p));
		/* only once it is on its way: a dropped record is re-sent */
		bpf_map_update_elem(&io_seen, &key, &one, BPF_ANY);
	} else if (ap_io_summed) {
		struct ap_ev_io *e = ap_reserve_st(sizeof(*e));

		if (!e)
			return 0;
		fill_common(e, fd, dir, sys, ret, flags, f);
		e->hdr.ts = in->end;
		e->start = in->start;
		if (sum_call(e))
			ap_output(e, sizeof(*e));
		ap_release_st(e);
	} else {
		struct ap_ev_io *e = ap_reserve(sizeof(*e));

		if (!e)
			return 0;
		fill_common(e, fd, dir, sys, ret, flags, f);
		e->hdr.ts = in->end;
		e->start = in->start;
		ap_submit(e, sizeof(*e));
	}
	return 0;
}

/* the *mmsg sum, in a per-CPU map value for the reason io_walk is */
struct io_mmsg {
	__u64 vec;
	__u64 bytes;
	__u32 bad;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct io_mmsg);
} io_mmsg_buf SEC(".maps");

static long mmsg_one(__u32 i, void *ctx)
{
	__u32 zero = 0, len;
	struct io_mmsg *s = bpf_map_lookup_elem(&io_mmsg_buf, &zero);

	if (!s)
		return 1;
	if (bpf_probe_read_user(&len, sizeof(len),
				(void *)(s->vec + (__u64)i * sizeof(struct mmsghdr) +
					 __builtin_offsetof(struct mmsghdr, msg_len))))
		s->bad++;
	else
		s->bytes += len;
	return 0;
}

SEC("tp/raw_syscalls/sys_exit")
int ap_io_exit(struct io_sys_exit *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ap_io_inflight *pin, in;
	__s64 ret = ctx->ret;
	__s32 nr = ctx->nr;
	__u32 flags = 0;

	/* every system call exits here: the others leave at once */
	if (nr < 0 || nr >= AP_IO_MAX_NR || !ap_io_sys[nr])
		return 0;
	pin = bpf_map_lookup_elem(&io_inflight, &tid);
	if (!pin)
		return 0;
	in = *pin;
	/* the call's end: before this program's own work (the path walk
	 * of a file seen first takes microseconds) */
	in.end = bpf_ktime_get_ns();
	bpf_map_delete_elem(&io_inflight, &tid);
	/* left by a syscall whose exit was never seen */
	if (in.nr != nr)
		return 0;

	switch (in.sys) {
	case AP_IO_SYS_RECVMMSG:
	case AP_IO_SYS_SENDMMSG:
		/* ret counts messages: the bytes are in each msg_len */
		if (ret > 0) {
			__u32 n = ret > AP_IO_MMSG_MAX ? AP_IO_MMSG_MAX : ret;
			__u32 zero = 0;
			struct io_mmsg *s;

			s = bpf_map_lookup_elem(&io_mmsg_buf, &zero);
			if (!s)
				return 0;
			s->vec = in.arg;
			s->bytes = 0;
			s->bad = 0;
			bpf_loop(n, mmsg_one, NULL, 0);
			if (s->bad)
				flags |= AP_IO_F_PARTIAL;
			ret = s->bytes;
		}
		emit(&in, in.fd, in.sys == AP_IO_SYS_RECVMMSG ? AP_IO_READ :
								AP_IO_WRITE,
		     ret, flags);
		return 0;
	case AP_IO_SYS_SPLICE:
	case AP_IO_SYS_SENDFILE:
	case AP_IO_SYS_COPY_FILE_RANGE:
		emit(&in, in.fd, AP_IO_READ, ret, 0);
		emit(&in, in.fd_out, AP_IO_WRITE, ret, 0);
		return 0;
	}
	/* the odd numbers read, the even ones write */
	emit(&in, in.fd, in.sys & 1 ? AP_IO_READ : AP_IO_WRITE, ret, 0);
	return 0;
}

/* a thread that exits inside a syscall never reaches sys_exit */
SEC("tp/sched/sched_process_exit")
int ap_io_thread_exit(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&io_inflight, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
