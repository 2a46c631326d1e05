/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user stack unwinder every sensor shares (x86-64).  User space
 * compiles each mapped file's CFI into rows (lib/unwind/cfi.c) and mirrors each
 * target's executable mappings (lib/unwind/unwind.c); here one bpf_loop step per
 * frame finds the mapping of the pc, binary-searches its file's rows,
 * computes the CFA and reads the return address and the saved rbp from
 * the stack.  Where a file has no table the step falls back to the frame
 * pointer.  Only the chain of pcs leaves the kernel.
 *
 * Included by common.bpf.h; it needs only base.bpf.h (counters, scratch
 * pools).  Its maps are __weak, one instance after linking.
 */
#ifndef APERTURE_UNWIND_BPF_H
#define APERTURE_UNWIND_BPF_H

#include "base.bpf.h"

/* rows of every loaded table; max_entries set by user space before load */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ap_cfi_row);
} ap_uw_rows SEC(".maps") __weak;

/* tgid -> how many mappings, which generation */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_UW_PROCS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct ap_uproc);
} ap_uw_procs SEC(".maps") __weak;

/* (tgid, generation, index) -> one executable mapping */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_UW_MAPS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ap_umap_key);
	__type(value, struct ap_umap);
} ap_uw_maps SEC(".maps") __weak;

/* (device, inode) -> its table, for mappings found with bpf_find_vma */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_UW_FILES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ap_ufile_key);
	__type(value, struct ap_ufile);
} ap_uw_files SEC(".maps") __weak;

/*
 * Mappings the unwinder found itself with bpf_find_vma (once per program
 * run: the helper cannot run again before its deferred unlock), kept
 * briefly by (process image, 2 MiB region of the pc): until user space
 * mirrors a new image, each stack teaches the next ones one mapping.
 */
struct ap_uw_learnt_key {
	__u64 mm;		/* the address space: a new one at exec */
	__u64 region;		/* pc >> 21 */
};

struct ap_uw_learnt {
	struct ap_umap m;
	__u64 ts;
};

#define AP_UW_LEARNT_NS		(2000 * 1000 * 1000ull)

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct ap_uw_learnt_key);
	__type(value, struct ap_uw_learnt);
} ap_uw_learnt SEC(".maps") __weak;

/* user stack words a walk may read and still be kept (ap_uw_cache) */
#define AP_UW_LOG		64

/* the frames of a walk: bpf_loop's callback cannot write the caller's
 * record, a pointer into a map value it does not know; and the stack
 * words it read, address and value */
struct ap_uw_buf {
	__u64 ips[AP_MAX_USTACK];
	__u64 log_addr[AP_UW_LOG];
	__u64 log_val[AP_UW_LOG];
	/*
	 * Here, not in the walk's state: values loaded from a map are
	 * unknown to the verifier, so that the steps that differ only in
	 * them are checked once (nlog as an index on the stack made it
	 * tell apart every count, and the load took seconds)
	 */
	struct ap_umap last;	/* the last frame's mapping (end 0: none) */
	__u32 nlog;		/* words read, in the log */
	__u32 nocache;		/* read more than the stack: not to be kept */
	__u32 fp_frames;	/* AP_STAT_UW_FP_FRAMES counted */
	__u32 pad;
};

/* one a walk in flight on the CPU (ap_slot_take) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AP_NEST_SLOTS);
	__type(key, __u32);
	__type(value, struct ap_uw_buf);
} ap_uw_scratch SEC(".maps") __weak;

/* set by user space before load */
const volatile __u32 ap_unwind_cfi __weak = 0;	/* 0: frame pointers only */
const volatile __u32 ap_max_ustack __weak = AP_MAX_USTACK;

/*
 * The walk's state, on the caller's stack.  Nothing in it is used as an
 * offset into memory (indexes go through map lookups, the frame slot is
 * bpf_loop's own index): the verifier then needs no precise values and
 * checks each step once.
 */
struct ap_uw_state {
	__u64 pc, sp, bp;
	__u64 bx;		/* 0: not known (saved where no row said) */
	__u32 pid;
	__u32 nmaps;		/* 0: the process is not mirrored */
	__u32 gen;
	__u32 n;
	__u32 max;
	__u32 flags;		/* AP_USTACK_* */
	__u32 exact_pc;		/* pc is not a return address (leaf, signal) */
	__u32 slot;		/* the walk's ap_uw_scratch buffer */
	__u32 pad;
	__u64 tramp;		/* the uretprobe trampoline; 0: none */
	__u64 ri;		/* the task's uretprobe return instances */
};

/*
 * A return address the kernel replaced with its uretprobe trampoline
 * (a uretprobe, ours or another tool's, on a function of the stack): the
 * original one, from the task's return instance whose stack slot it is.
 */
static __always_inline __u64 ap_uw_uretprobe(struct ap_uw_state *s,
					     struct ap_uw_buf *b, __u64 ra,
					     __u64 slot)
{
	struct return_instance *ri = (void *)s->ri;
	int i;

	if (!s->tramp || ra != s->tramp)
		return ra;
	b->nocache = 1;		/* the kernel's return instances */
	for (i = 0; i < 8 && ri; i++) {
		if (BPF_CORE_READ(ri, stack) == slot)
			return BPF_CORE_READ(ri, orig_ret_vaddr);
		ri = BPF_CORE_READ(ri, next);
	}
	return ra;
}

/*
 * The binary searches are global functions, which the verifier checks
 * once on their own: inline, each of their iterations was another state
 * to check the rest of the step from (a third of the CPU sample's
 * verification).  Defined where AP_UW_CACHE_IMPL is (bpf/sched.bpf.c).
 *
 * ap_uw_map_index: of pid's nmaps mappings (generation gen), the index
 * of the last one starting at or below pc; AP_UW_NONE when none.
 * ap_uw_row_index: of the rows [start, start + nr), the index of the one
 * covering the ELF address pc; AP_UW_NONE when none.
 */
#define AP_UW_NONE	0xffffffffu
__u32 ap_uw_map_index(__u32 pid, __u32 gen, __u32 nmaps, __u64 pc);
__u32 ap_uw_row_index(__u32 start, __u32 nr, __u64 pc);

#ifdef AP_UW_CACHE_IMPL
__noinline __u32 ap_uw_map_index(__u32 pid, __u32 gen, __u32 nmaps, __u64 pc)
{
	struct ap_umap_key k = { .pid = pid };
	const struct ap_umap *m;
	__u32 lo = 0, hi = nmaps, i;

	for (i = 0; i < 13 && lo < hi; i++) {	/* 2^13 > AP_UMAP_MAX */
		__u32 mid = lo + (hi - lo) / 2;

		k.idx = gen << 31 | mid;
		m = bpf_map_lookup_elem(&ap_uw_maps, &k);
		if (!m)
			return AP_UW_NONE;
		if (m->start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : AP_UW_NONE;
}

__noinline __u32 ap_uw_row_index(__u32 start, __u32 nr, __u64 pc)
{
	const struct ap_cfi_row *row;
	__u32 lo = start, hi = start + nr, i;

	for (i = 0; i < 24 && lo < hi; i++) {	/* 2^24 rows at most */
		__u32 mid = lo + (hi - lo) / 2;

		row = bpf_map_lookup_elem(&ap_uw_rows, &mid);
		if (!row)
			return AP_UW_NONE;
		if (row->pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == start ? AP_UW_NONE : lo - 1;
}
#endif /* AP_UW_CACHE_IMPL */

/* the mapping of pc, or NULL */
static __always_inline const struct ap_umap *
ap_uw_find_map(const struct ap_uw_state *s, __u64 pc)
{
	struct ap_umap_key k = { .pid = s->pid };
	const struct ap_umap *m;
	__u32 idx = ap_uw_map_index(s->pid, s->gen, s->nmaps, pc);

	if (idx == AP_UW_NONE)
		return NULL;
	k.idx = s->gen << 31 | idx;
	m = bpf_map_lookup_elem(&ap_uw_maps, &k);
	if (!m || pc >= m->end)
		return NULL;
	return m;
}

struct ap_uw_vma {
	__u64 start, end, pgoff;
	struct ap_ufile_key key;
	__u32 file;		/* the mapping has a file */
	__u32 pad;
};

static long ap_uw_vma_cb(struct task_struct *task, struct vm_area_struct *vma,
			 void *ctx)
{
	struct ap_uw_vma *v = ctx;
	struct file *f = BPF_CORE_READ(vma, vm_file);

	v->start = BPF_CORE_READ(vma, vm_start);
	v->end = BPF_CORE_READ(vma, vm_end);
	v->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	if (f) {
		v->key.ino = BPF_CORE_READ(f, f_inode, i_ino);
		v->key.dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
		v->file = 1;
	}
	return 0;
}

/* the mapping of pc from the kernel's own list, its table by file: m is
 * filled in; 0, or -1 when pc is not in a mapping of a file with a table */
static __always_inline int ap_uw_vma_map(__u64 pc, struct ap_umap *m)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct ap_uw_learnt_key lk = {
		.mm = (__u64)BPF_CORE_READ(task, mm),
		.region = pc >> 21,
	};
	struct ap_uw_learnt *l = bpf_map_lookup_elem(&ap_uw_learnt, &lk);
	struct ap_uw_learnt nl = {};
	struct ap_uw_vma v = {};
	const struct ap_ufile *f;
	__u64 now = bpf_ktime_get_ns();

	if (l && now - l->ts < AP_UW_LEARNT_NS && l->m.start <= pc &&
	    pc < l->m.end) {
		*m = l->m;
		return 0;
	}
	if (bpf_find_vma(task, pc, ap_uw_vma_cb, &v, 0) || !v.file)
		return -1;
	f = bpf_map_lookup_elem(&ap_uw_files, &v.key);
	if (!f)
		return -1;
	m->start = v.start;
	m->end = v.end;
	m->bias = v.start - (v.pgoff << 12) - f->delta;
	m->row_start = f->row_start;
	m->row_nr = f->row_nr;
	nl.m = *m;
	nl.ts = now;
	bpf_map_update_elem(&ap_uw_learnt, &lk, &nl, BPF_ANY);
	return 0;
}

/* the row covering the ELF address pc in [start, start + nr) */
static __always_inline const struct ap_cfi_row *
ap_uw_find_row(__u32 start, __u32 nr, __u64 pc)
{
	__u32 idx = ap_uw_row_index(start, nr, pc);

	if (idx == AP_UW_NONE)
		return NULL;
	return bpf_map_lookup_elem(&ap_uw_rows, &idx);
}

static __always_inline int ap_uw_read(__u64 *dst, __u64 addr,
				      struct ap_uw_state *s,
				      struct ap_uw_buf *b)
{
	__u32 i = b->nlog;

	if (bpf_probe_read_user(dst, sizeof(*dst), (void *)addr)) {
		s->flags |= AP_USTACK_FAULT;
		b->nocache = 1;
		ap_count(AP_STAT_UW_FAULT);
		return -1;
	}
	/* no branch: one more would double the states to check; past
	 * the log's end the walk is not kept, whatever it overwrote */
	b->log_addr[i & (AP_UW_LOG - 1)] = addr;
	b->log_val[i & (AP_UW_LOG - 1)] = *dst;
	b->nocache |= i >> 6;		/* i >= AP_UW_LOG */
	b->nlog = i + 1;
	return 0;
}

/* one frame by frame pointer: the caller's pc at rbp + 8 */
static __always_inline long ap_uw_fp_step(struct ap_uw_state *s,
					  struct ap_uw_buf *b)
{
	__u64 bp = s->bp, ra, nbp;

	s->flags |= AP_USTACK_FP;
	b->fp_frames++;
	ap_count(AP_STAT_UW_FP_FRAMES);
	if (!bp || bp < s->sp || (bp & 7))
		return 1;
	if (ap_uw_read(&ra, bp + 8, s, b) || ap_uw_read(&nbp, bp, s, b))
		return 1;
	s->pc = ap_uw_uretprobe(s, b, ra, bp + 8);
	s->sp = bp + 16;
	s->bp = nbp;
	s->bx = 0;	/* wherever the frame saved it */
	s->exact_pc = 0;
	return 0;
}

static long ap_uw_step(__u32 i, void *ctx)
{
	struct ap_uw_state *s = ctx;
	const struct ap_cfi_row *row;
	const struct ap_umap *m;
	struct ap_uw_buf *b;
	__u64 cfa, ra, pc, lookup, nsp, bp, bx;
	__s64 off;
	__u32 slot = s->slot, kind, idx, k;

	b = bpf_map_lookup_elem(&ap_uw_scratch, &slot);
	if (!b || !s->pc)
		return 1;
	if (i >= s->max || i >= AP_MAX_USTACK) {
		s->flags |= AP_USTACK_TRUNCATED;
		return 1;
	}
	/* every step that goes on adds one frame: frame i is step i's; the
	 * barrier keeps the mask that the verifier needs to see */
	idx = i;
	asm volatile("" : "+r"(idx));
	b->ips[idx & (AP_MAX_USTACK - 1)] = s->pc;
	s->n = i + 1;

	pc = s->pc;
	/* a caller is most often in its callee's mapping: the search (a
	 * hash look-up a step of it) was most of a frame's cost */
	if (pc >= b->last.start && pc < b->last.end) {
		m = &b->last;
	} else {
		m = s->nmaps ? ap_uw_find_map(s, pc) : NULL;
		if (m) {
			b->last = *m;
			m = &b->last;
		} else if (!ap_uw_vma_map(pc, &b->last)) {
			/* code the mirror does not know yet, of a file
			 * whose table is loaded */
			ap_count(AP_STAT_UW_VMA);
			m = &b->last;
			b->nocache = 1;
		} else {
			b->last.end = 0;
		}
	}
	if (!m && !s->nmaps) {
		b->nocache = 1;
		return ap_uw_fp_step(s, b);
	}
	if (!m) {
		/* the sampled pc is code, whatever the mirror says (it may
		 * lag a dlopen); a return address outside every mapping is
		 * data or a mapping not mirrored yet: the chain ends there,
		 * and user space, which knows more, keeps or drops it */
		b->nocache = 1;		/* the mirror may catch up */
		if (!i)
			return ap_uw_fp_step(s, b);
		s->flags |= AP_USTACK_OUTSIDE;
		ap_count(AP_STAT_UW_OUTSIDE);
		return 1;
	}
	if (!m->row_nr)
		return ap_uw_fp_step(s, b);
	/* a return address points after the call, which may be the first
	 * byte of the next function's rows */
	lookup = pc - m->bias - (s->exact_pc ? 0 : 1);
	row = ap_uw_find_row(m->row_start, m->row_nr, lookup);
	if (!row)
		return ap_uw_fp_step(s, b);
	kind = ap_cfi_row__kind(row);
	off = ap_cfi_row__off(row);
	switch (kind) {
	case AP_CFI_RSP:
		cfa = s->sp + off;
		break;
	case AP_CFI_RBP:
		cfa = s->bp + off;
		break;
	case AP_CFI_PLT:
		cfa = s->sp + 8 + ((pc & 15) >= (__u64)off ? 8 : 0);
		break;
	case AP_CFI_RBX:
		/* a walk from rbx is not a function of the registers the
		 * cache keys walks by */
		b->nocache = 1;
		if (!s->bx)
			return ap_uw_fp_step(s, b);
		cfa = s->bx + off;
		break;
	case AP_CFI_SIGNAL:
		/* rt_sigframe: the interrupted registers in the sigcontext
		 * at rsp; off is where its rsp is, rbp 40 below, rip 8 above */
		if (ap_uw_read(&nsp, s->sp + off, s, b) ||
		    ap_uw_read(&bp, s->sp + off - 40, s, b) ||
		    ap_uw_read(&bx, s->sp + off - 32, s, b) ||
		    ap_uw_read(&ra, s->sp + off + 8, s, b))
			return 1;
		s->pc = ra;
		s->sp = nsp;
		s->bp = bp;
		s->bx = bx;
		s->exact_pc = 1;
		return 0;
	case AP_CFI_END:
		s->flags |= AP_USTACK_COMPLETE;
		return 1;
	case AP_CFI_BAD:
		ap_count(AP_STAT_UW_BAD_RULE);
		return ap_uw_fp_step(s, b);
	default:
		return ap_uw_fp_step(s, b);
	}
	if (ap_uw_read(&ra, cfa - 8, s, b))
		return 1;
	ra = ap_uw_uretprobe(s, b, ra, cfa - 8);
	bp = s->bp;
	if (row->rbp && ap_uw_read(&bp, cfa + 8 * (__s64)row->rbp, s, b))
		return 1;
	bx = s->bx;
	k = ap_cfi_row__rbx(row);
	if (k == AP_CFI_RBX_LOST)
		bx = 0;
	else if (k && ap_uw_read(&bx, cfa - 8 * (__u64)k, s, b))
		return 1;
	/* the stack grows down: a caller's frame is above its callee's */
	if (cfa <= s->sp)
		return 1;
	s->pc = ra;
	s->sp = cfa;
	s->bp = bp;
	s->bx = bx;
	s->exact_pc = 0;
	return 0;
}

/*
 * A thread's last user stack, kept by a sensor that takes many of the
 * same one (sched: a thread blocks again where it blocked before), with
 * what its walk depended on: the registers it began from, the mirror's
 * generation, and every stack word it read.  The walk is a function of
 * those alone, so when they are all unchanged its frames are the same,
 * and a word read each replaces a table search each.  A walk that used
 * more (a mapping the mirror lacked, a uretprobe's return instances, a
 * fault) or more words than AP_UW_LOG is not kept.
 */
#define AP_UW_CACHE_FRAMES	32

/* what a walk began from */
struct ap_uw_cache_key {
	__u64 pc, sp, bp;	/* the registers */
	__u32 pid;
	__u32 nr;		/* the mirror: ap_uproc nr and gen */
	__u32 gen;
	__u32 max;
};

/* the words read, when they lie within this many bytes, are checked
 * with one read of that span rather than a read each */
#define AP_UW_SPAN		1024

struct ap_uw_cache {
	struct ap_uw_cache_key k;
	__u32 n;		/* frames; 0: nothing kept */
	__u32 nlog;		/* words read */
	__u32 flags;		/* AP_USTACK_* of the walk */
	__u32 fp_frames;
	__u64 lo;		/* the lowest address read */
	__u64 span;		/* to the end of the highest word read */
	__u64 ips[AP_UW_CACHE_FRAMES];
	__u64 log_addr[AP_UW_LOG];
	__u64 log_val[AP_UW_LOG];
	__u64 now[AP_UW_SPAN / 8];	/* the span, as read by the check */
};

/*
 * Global functions, which the verifier checks once on their own: inline,
 * each way the cache's tests could fail was another state to walk the
 * unwinder from.  Defined where AP_UW_CACHE_IMPL is (bpf/sched.bpf.c).
 *
 * ap_uw_cache_hit: 1 when c holds the walk from k and the stack words it
 * read still hold what it read.  ap_uw_cache_save: keeps the walk just
 * done in b (n frames, flags) from k in c, or empties c.
 */
int ap_uw_cache_hit(struct ap_uw_cache *c, struct ap_uw_cache_key *k);
int ap_uw_cache_save(struct ap_uw_cache *c, struct ap_uw_buf *b,
		     struct ap_uw_cache_key *k, __u32 n, __u32 flags);

#ifdef AP_UW_CACHE_IMPL
/*
 * Plain bounded loops, not bpf_loop(): a global function is checked once,
 * and bpf_loop() inside one copied the stack from the wrong buffer here.
 */
__noinline int ap_uw_cache_hit(struct ap_uw_cache *c,
			       struct ap_uw_cache_key *k)
{
	__u32 i, n;
	__u64 v;

	if (!c || !k || !c->n || c->nlog > AP_UW_LOG)
		return 0;
	if (c->k.pc != k->pc || c->k.sp != k->sp || c->k.bp != k->bp ||
	    c->k.pid != k->pid || c->k.nr != k->nr || c->k.gen != k->gen ||
	    c->k.max != k->max)
		return 0;
	n = c->nlog;
	if (c->span) {
		__u64 span = c->span;

		if (span > AP_UW_SPAN ||
		    bpf_probe_read_user(c->now, span, (void *)c->lo))
			return 0;
	}
	for (i = 0; i < AP_UW_LOG; i++) {
		if (i >= n)
			break;
		if (c->span) {
			v = c->now[((c->log_addr[i] - c->lo) / 8) &
				   (AP_UW_SPAN / 8 - 1)];
		} else if (bpf_probe_read_user(&v, sizeof(v),
					       (void *)c->log_addr[i])) {
			return 0;
		}
		if (v != c->log_val[i])
			return 0;
	}
	return 1;
}

__noinline int ap_uw_cache_save(struct ap_uw_cache *c, struct ap_uw_buf *b,
				struct ap_uw_cache_key *k, __u32 n,
				__u32 flags)
{
	__u64 lo = ~0ull, hi = 0, a;
	__u32 i, nlog;

	if (!c || !b || !k)
		return 0;
	c->n = 0;
	nlog = b->nlog;
	if (b->nocache || !n || n > AP_UW_CACHE_FRAMES || nlog > AP_UW_LOG)
		return 0;
	c->k = *k;
	c->nlog = nlog;
	c->flags = flags;
	c->fp_frames = b->fp_frames;
	__builtin_memcpy(c->ips, b->ips, sizeof(c->ips));
	__builtin_memcpy(c->log_addr, b->log_addr, sizeof(c->log_addr));
	__builtin_memcpy(c->log_val, b->log_val, sizeof(c->log_val));
	/* the span of the words read: checked with one read when small
	 * and every word is aligned */
	for (i = 0; i < AP_UW_LOG; i++) {
		if (i >= nlog)
			break;
		a = c->log_addr[i];
		if (a & 7) {
			lo = ~0ull;
			break;
		}
		if (a < lo)
			lo = a;
		if (a + 8 > hi)
			hi = a + 8;
	}
	c->lo = lo;
	c->span = lo != ~0ull && hi - lo <= AP_UW_SPAN ? hi - lo : 0;
	c->n = n;
	return 1;
}
#endif /* AP_UW_CACHE_IMPL */

static __always_inline void ap_count_n(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v && n)
		__sync_fetch_and_add(v, n);
}

/*
 * The user stack of the current task into dst (max frames), leaf first.
 * Returns the size in bytes (0 when there is none) and ORs AP_USTACK_*
 * into *flags.  cmap: a task storage map of struct ap_uw_cache, each
 * thread's last stack, or NULL.
 */
static __always_inline long ap_user_stack_c(void *ctx, __u64 *dst, __u32 max,
					    __u32 *flags, void *cmap)
{
	struct ap_uw_cache *c = NULL;
	struct task_struct *task = bpf_get_current_task_btf();
	struct ap_uw_state s = {};
	const struct ap_uproc *up;
	struct ap_uw_buf *b;
	struct ap_uw_cache_key k = {};
	struct pt_regs *regs;
	__u64 pc, sp, bp;
	int hit = 0;
	long sz;

	if (!ap_unwind_cfi) {
		if (max > AP_MAX_FP_USTACK)
			max = AP_MAX_FP_USTACK;
		sz = bpf_get_stack(ctx, dst, max * sizeof(__u64),
				   BPF_F_USER_STACK);
		if (sz < 0) {
			ap_count(AP_STAT_USTACK_ERR);
			return 0;
		}
		if (sz >= (long)(max * sizeof(__u64)))
			*flags |= AP_USTACK_TRUNCATED;
		return sz;
	}
	if (!BPF_CORE_READ(task, mm))
		return 0;		/* a kernel thread */
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	pc = BPF_CORE_READ(regs, ip);
	sp = BPF_CORE_READ(regs, sp);
	bp = BPF_CORE_READ(regs, bp);
	s.pc = pc;
	s.sp = sp;
	s.bp = bp;
	s.bx = BPF_CORE_READ(regs, bx);
	s.max = max < ap_max_ustack ? max : ap_max_ustack;
	s.pid = bpf_get_current_pid_tgid() >> 32;
	up = bpf_map_lookup_elem(&ap_uw_procs, &s.pid);
	if (up) {
		s.nmaps = up->nr < AP_UMAP_MAX ? up->nr : AP_UMAP_MAX;
		s.gen = up->gen & 1;
	}
	if (cmap && up)
		c = bpf_task_storage_get(cmap, task, NULL,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (c && up) {
		k.pc = pc;
		k.sp = sp;
		k.bp = bp;
		k.pid = s.pid;
		k.nr = up->nr;
		k.gen = up->gen;
		k.max = s.max;
		hit = ap_uw_cache_hit(c, &k);
	}
	if (c && hit) {
		/* the walk would find what it found last time */
		__u32 cf = c->flags;

		ap_count(AP_STAT_UW_STACKS);
		if (cf & AP_USTACK_COMPLETE)
			ap_count(AP_STAT_UW_COMPLETE);
		if (cf & AP_USTACK_TRUNCATED)
			ap_count(AP_STAT_UW_TRUNCATED);
		ap_count_n(AP_STAT_UW_FP_FRAMES, c->fp_frames);
		*flags |= cf | AP_USTACK_CFI;
		sz = (long)(c->n & (AP_UW_CACHE_FRAMES * 2 - 1)) * sizeof(__u64);
		if (sz > (long)(max * sizeof(__u64)))
			sz = max * sizeof(__u64);
		if (sz > (long)sizeof(c->ips))
			sz = sizeof(c->ips);
		if (sz > 0)
			bpf_probe_read_kernel(dst, sz, c->ips);
		return sz;
	}
	if (!up)
		ap_count(AP_STAT_UW_NO_PROC);
	s.slot = ap_slot_take(AP_POOL_UW);
	if (s.slot >= AP_NEST_SLOTS) {
		ap_count(AP_STAT_UW_BUSY);
		return 0;
	}
	b = bpf_map_lookup_elem(&ap_uw_scratch, &s.slot);
	if (!b) {
		ap_slot_give(AP_POOL_UW, s.slot);
		return 0;
	}
	b->last.end = 0;
	b->nlog = 0;
	b->nocache = 0;
	b->fp_frames = 0;
	s.exact_pc = 1;
	s.tramp = BPF_CORE_READ(task, mm, uprobes_state.xol_area, vaddr);
	s.ri = (__u64)BPF_CORE_READ(task, utask, return_instances);
	/* one step more than frames: the step past a full stack is the
	 * one that finds a caller left and says it was truncated */
	bpf_loop(AP_MAX_USTACK + 1, ap_uw_step, &s, 0);
	ap_count(AP_STAT_UW_STACKS);
	if (s.flags & AP_USTACK_COMPLETE)
		ap_count(AP_STAT_UW_COMPLETE);
	if (s.flags & AP_USTACK_TRUNCATED)
		ap_count(AP_STAT_UW_TRUNCATED);
	*flags |= s.flags | AP_USTACK_CFI;
	sz = (long)s.n * sizeof(__u64);
	if (sz > (long)(max * sizeof(__u64)))
		sz = max * sizeof(__u64);
	if (sz > 0)
		bpf_probe_read_kernel(dst, sz, b->ips);
	/* found again rather than kept: c live across the walk made the
	 * verifier check the walk once for it and once without */
	if (cmap && k.max) {
		c = bpf_task_storage_get(cmap, task, NULL, 0);
		if (c)
			ap_uw_cache_save(c, b, &k, s.n, s.flags);
	}
	ap_slot_give(AP_POOL_UW, s.slot);
	return sz;
}

static __always_inline long ap_user_stack(void *ctx, __u64 *dst, __u32 max,
					  __u32 *flags)
{
	return ap_user_stack_c(ctx, dst, max, flags, NULL);
}

#endif /* APERTURE_UNWIND_BPF_H */
