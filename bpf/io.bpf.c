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

struct io_seen_key {
	__u64 ino;
	__u32 dev;
	__u32 gen;
};

/* inodes whose path this thread has seen sent, last IO_SEEN_WAYS */
#define IO_SEEN_WAYS		4

/*
 * Each thread's state, in task storage: the call in flight (in.sys 0:
 * none) and a cache in front of io_seen.  A hash by tid, updated at entry
 * and deleted at exit, cost more than the rest of the call's tracing; task
 * storage is found from the task, and freed with it.
 */
struct io_task {
	struct ap_io_inflight in;
	struct io_seen_key seen[IO_SEEN_WAYS];
	__u32 seen_next;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct io_task);
} io_tasks SEC(".maps");

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

/*
 * Kernel objects are read with plain loads through BTF pointers (the
 * task's from bpf_get_current_task_btf(), the others cast with
 * bpf_rdonly_cast()), not a bpf_probe_read_kernel() call a field: the
 * twenty helper calls of a call's fd resolution were half its cost.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

#define io_cast(p, type) \
	((struct type *)bpf_rdonly_cast((void *)(p), \
					bpf_core_type_id_kernel(struct type)))

/* the syscall number at sys_exit: syscall_get_nr() */
static __always_inline long sys_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return regs->orig_ax;
#elif defined(__TARGET_ARCH_arm64)
	return regs->syscallno;
#else
#error "io.bpf.c: syscall_get_nr() of this architecture"
#endif
}

/* raw_syscalls:sys_enter, as tp_btf: cheaper to run than the tp/ kind
 * (no perf record is built for it) */
SEC("tp_btf/sys_enter")
int BPF_PROG(ap_io_enter, struct pt_regs *regs, long nr)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ap_io_inflight *in;
	struct io_task *t;
	__u32 sys;

	if (nr < 0 || nr >= AP_IO_MAX_NR)
		return 0;
	sys = ap_io_sys[nr];
	if (!sys || !ap_is_target(id >> 32))
		return 0;
	t = bpf_task_storage_get(&io_tasks, bpf_get_current_task_btf(), NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) {
		ap_count(AP_STAT_IO_TABLE_FULL);
		return 0;
	}
	in = &t->in;
	in->nr = nr;
	in->start = bpf_ktime_get_ns();
	in->fd = (__s32)PT_REGS_PARM1_SYSCALL(regs);
	in->fd_out = -1;
	in->arg = 0;
	switch (sys) {
	case AP_IO_SYS_SENDFILE:	/* (out_fd, in_fd, offset, count) */
		in->fd_out = in->fd;
		in->fd = (__s32)PT_REGS_PARM2_SYSCALL(regs);
		break;
	case AP_IO_SYS_SPLICE:		/* (fd_in, off_in, fd_out, ...) */
	case AP_IO_SYS_COPY_FILE_RANGE:
		in->fd_out = (__s32)PT_REGS_PARM3_SYSCALL(regs);
		break;
	case AP_IO_SYS_RECVMMSG:	/* (fd, msgvec, vlen, ...) */
	case AP_IO_SYS_SENDMMSG:
		in->arg = PT_REGS_PARM2_SYSCALL(regs);
		break;
	}
	in->sys = sys;			/* last: the call is in flight */
	return 0;
}

/* the struct file of the current task's fd, as a number (0: none) */
static __always_inline __u64 fd_file(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct files_struct *files = task->files;
	struct fdtable *fdt;
	struct file *f = NULL;

	if (!files || fd < 0)
		return 0;
	fdt = files->fdt;
	if (!fdt || (unsigned int)fd >= fdt->max_fds)
		return 0;
	if (bpf_probe_read_kernel(&f, sizeof(f), &fdt->fd[fd]))
		return 0;
	return (__u64)f;
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

static __always_inline void key_sock(struct ap_io_sum_key *k, struct file *f)
{
	struct socket *sock = io_cast(f->private_data, socket);
	struct sock *sk;

	if (!sock)
		return;
	k->sock_type = sock->type;
	sk = io_cast(sock->sk, sock);
	if (!sk)
		return;
	k->family = sk->__sk_common.skc_family;
	k->protocol = sk->sk_protocol;
	switch (k->family) {
	case AF_INET: {
		__u32 a;

		a = sk->__sk_common.skc_rcv_saddr;
		__builtin_memcpy(k->laddr, &a, sizeof(a));
		a = sk->__sk_common.skc_daddr;
		__builtin_memcpy(k->raddr, &a, sizeof(a));
		break;
	}
	case AF_INET6:
		__builtin_memcpy(k->laddr,
				 sk->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr8,
				 sizeof(k->laddr));
		__builtin_memcpy(k->raddr,
				 sk->__sk_common.skc_v6_daddr.in6_u.u6_addr8,
				 sizeof(k->raddr));
		break;
	case AF_UNIX: {
		struct unix_sock *u = io_cast(sk, unix_sock);
		struct sock *peer = io_cast(u->peer, sock);

		if (peer)
			k->peer_ino = peer->sk_socket->file->f_inode->i_ino;
		return;
	}
	default:
		return;
	}
	k->lport = sk->__sk_common.skc_num;
	k->rport = bpf_ntohs(sk->__sk_common.skc_dport);
}

/*
 * What file f (0: the fd did not resolve) is, into the zeroed key k: inode
 * type, device and number, socket addresses.  Plain loads: a field of a
 * freed object reads as 0, as bpf_probe_read_kernel() would leave it.
 */
static __always_inline void key_file(struct ap_io_sum_key *k, __u64 fp)
{
	struct file *f = io_cast(fp, file);
	struct inode *inode;
	struct super_block *sb;

	if (!fp)
		return;
	inode = f->f_inode;
	if (!inode)
		return;
	sb = inode->i_sb;
	k->ino = inode->i_ino;
	k->gen = inode->i_generation;
	k->dev = sb->s_dev;
	k->magic = (__u32)sb->s_magic;
	k->ftype = file_type(inode->i_mode, k->magic);
	if (k->ftype == AP_IO_FT_SOCK)
		key_sock(k, f);
}

/*
 * The path walk keeps its state in a per-CPU map value rather than on the
 * stack: the verifier then checks one step of the walk once, where a loop
 * over stack variables made it explore every combination of component
 * lengths and mount crossings (over a million instructions).  Only this
 * object's exit program uses it, which the kernel keeps from nesting on a
 * CPU (a raw tracepoint program's own per-CPU recursion guard) and runs
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

/* a record of the call on fd that k describes */
static __always_inline void fill_rec(struct ap_ev_io *e,
				     const struct ap_io_sum_key *k,
				     const struct ap_io_inflight *in, __s64 ret,
				     __u16 flags)
{
	__builtin_memset(e, 0, sizeof(*e));
	e->hdr.type = AP_EV_IO;
	e->hdr.pid = k->pid;
	e->hdr.tid = k->tid;
	e->hdr.cpu = bpf_get_smp_processor_id();
	e->hdr.ts = in->end;
	e->start = in->start;
	e->ret = ret;
	e->fd = k->fd;
	e->sys = k->sys;
	e->dir = k->dir;
	e->flags = flags;
	e->ftype = k->ftype;
	e->ino = k->ino;
	e->peer_ino = k->peer_ino;
	e->dev = k->dev;
	e->magic = k->magic;
	e->gen = k->gen;
	e->family = k->family;
	e->sock_type = k->sock_type;
	e->protocol = k->protocol;
	e->lport = k->lport;
	e->rport = k->rport;
	__builtin_memcpy(e->laddr, k->laddr, sizeof(e->laddr));
	__builtin_memcpy(e->raddr, k->raddr, sizeof(e->raddr));
	__builtin_memcpy(e->comm, k->comm, sizeof(e->comm));
}

/* adds the call to k's totals; 0, or -1 when the table has no room for a
 * new entry */
static __always_inline int sum_call(const struct ap_io_sum_key *k, __s64 ret,
				    __u16 flags, __u64 ns)
{
	struct ap_io_sum *s = bpf_map_lookup_elem(&ap_io_sums, k);

	if (!s) {
		struct ap_io_sum zero = {};

		/* only this thread creates its keys: no race to lose */
		bpf_map_update_elem(&ap_io_sums, k, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&ap_io_sums, k);
		if (!s)
			return -1;
	}
	/*
	 * Only this thread adds to its entries (the key has its tid), so
	 * plain adds are exact.  calls last: user space sends an entry when
	 * its calls changed, and the other fields are then up to date.
	 */
	if (ret < 0)
		s->errors++;
	else
		s->bytes += ret;
	if (flags & AP_IO_F_PARTIAL)
		s->partial++;
	s->ns += ns;
	barrier();
	s->calls++;
	return 0;
}

/* has this thread seen k's path sent?  (a cache in front of io_seen) */
static __always_inline int seen_cached(struct io_task *t,
				       const struct io_seen_key *k)
{
	int i;

	for (i = 0; i < IO_SEEN_WAYS; i++)
		if (t->seen[i].ino == k->ino && t->seen[i].dev == k->dev &&
		    t->seen[i].gen == k->gen)
			return 1;
	return 0;
}

static __always_inline void seen_cache(struct io_task *t,
				       const struct io_seen_key *k)
{
	__u32 i = t->seen_next++ % IO_SEEN_WAYS;

	t->seen[i] = *k;
}

/* in: the call (its number and entry time), on the caller's stack; t:
 * the thread's state; dir_flags: AP_IO_READ or _WRITE | AP_IO_F_* << 8
 * (a BPF function takes five arguments) */
static __noinline int emit(const struct ap_io_inflight *in,
			   struct io_task *t, int fd, __u32 dir_flags,
			   __s64 ret)
{
	__u32 dir = dir_flags & 0xff, flags = dir_flags >> 8;
	__u64 id = bpf_get_current_pid_tgid();
	__u64 f = fd_file(fd);
	struct ap_io_sum_key k = {};
	struct io_seen_key key = {};
	int want_path = 0;

	k.pid = id >> 32;
	k.tid = (__u32)id;
	k.fd = fd;
	k.sys = in->sys;
	k.dir = dir;
	bpf_get_current_comm(k.comm, sizeof(k.comm));
	key_file(&k, f);
	if (!f && ret >= 0)
		ap_count(AP_STAT_IO_UNRESOLVED);
	if (f && k.ftype != AP_IO_FT_PIPE && k.ftype != AP_IO_FT_SOCK &&
	    k.ftype != AP_IO_FT_UNKNOWN) {
		key.ino = k.ino;
		key.dev = k.dev;
		key.gen = k.gen;
		if (!t || !seen_cached(t, &key)) {
			want_path = !bpf_map_lookup_elem(&io_seen, &key);
			if (!want_path && t)
				seen_cache(t, &key);
		}
	}
	if (want_path) {
		struct ap_ev_io_path *p = ap_reserve(sizeof(*p));
		__u8 one = 1;

		if (!p)
			return 0;
		fill_rec(&p->io, &k, in, ret, flags | AP_IO_F_PATH);
		if (p->io.flags & AP_IO_F_PATH)	/* for the verifier: bounded */
			fill_path(p, (struct file *)f);
		ap_submit(p, sizeof(*p));
		/* only once it is on its way: a dropped record is re-sent */
		bpf_map_update_elem(&io_seen, &key, &one, BPF_ANY);
		if (t)
			seen_cache(t, &key);
	} else if (!ap_io_summed ||
		   sum_call(&k, ret, flags, in->end - in->start)) {
		struct ap_ev_io *e = ap_reserve(sizeof(*e));

		if (!e)
			return 0;
		fill_rec(e, &k, in, ret, flags);
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

SEC("tp_btf/sys_exit")
int BPF_PROG(ap_io_exit, struct pt_regs *regs, long ret)
{
	long nr = sys_nr(regs);
	struct ap_io_inflight in;
	struct io_task *t;
	__u32 flags = 0;

	/* every system call exits here: the others leave at once */
	if (nr < 0 || nr >= AP_IO_MAX_NR || !ap_io_sys[nr])
		return 0;
	t = bpf_task_storage_get(&io_tasks, bpf_get_current_task_btf(), NULL,
				 0);
	if (!t || !t->in.sys)
		return 0;
	in = t->in;
	t->in.sys = 0;
	/* the call's end: before this program's own work (the path walk
	 * of a file seen first takes microseconds) */
	in.end = bpf_ktime_get_ns();
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
		emit(&in, t, in.fd, (in.sys == AP_IO_SYS_RECVMMSG ?
				     AP_IO_READ : AP_IO_WRITE) | flags << 8,
		     ret);
		return 0;
	case AP_IO_SYS_SPLICE:
	case AP_IO_SYS_SENDFILE:
	case AP_IO_SYS_COPY_FILE_RANGE:
		emit(&in, t, in.fd, AP_IO_READ, ret);
		emit(&in, t, in.fd_out, AP_IO_WRITE, ret);
		return 0;
	}
	/* the odd numbers read, the even ones write */
	emit(&in, t, in.fd, in.sys & 1 ? AP_IO_READ : AP_IO_WRITE, ret);
	return 0;
}

/* a thread's state goes with its task; freed here, at its exit, rather
 * than when the task is freed */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(ap_io_thread_exit, struct task_struct *p)
{
	bpf_task_storage_delete(&io_tasks, bpf_get_current_task_btf());
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
