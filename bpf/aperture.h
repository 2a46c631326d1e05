/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI between aperture's BPF programs and user space: the records that
 * travel through the BPF ring buffer and the indexes of the shared maps.
 *
 * Only fixed-size integers and explicit padding: no pointers, enums or bool,
 * so that clang -target bpf and gcc lay the structs out identically.  This
 * is not the record file format (lib/format/format.h): the file stores decoded
 * events, so changing a struct here never breaks old files.
 */
#ifndef APERTURE_BPF_ABI_H
#define APERTURE_BPF_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define AP_MAX_KSTACK		127	/* kernel frames per stack */
#define AP_MAX_USTACK		256	/* user frames per stack (CFI unwinder) */
#define AP_MAX_FP_USTACK	127	/* user frames bpf_get_stack gives */
#define AP_MAX_PYSTACK		64	/* Python frames per stack */
#define AP_COMM_LEN		16
#define AP_RINGBUF_BYTES	(16 * 1024 * 1024)	/* before load: record -m */
#define AP_MAX_TARGETS		16384
#define AP_MAX_TIDS		1024	/* record -t */
#define AP_MAX_CPUS		1024	/* record -C: CPUs in the mask */

/* ap_ev_hdr.type: one per kind of ring buffer record */
#define AP_EV_CPU		0
#define AP_EV_LOCK		1
#define AP_EV_SYSCALL		2
#define AP_EV_GPU		3
#define AP_EV_MEM		4
#define AP_EV_SCHED		5
#define AP_EV_IO		6
#define AP_EV_TASK		16

/*
 * Counters in the per-CPU "stats" array map: X(NAME, index) for each,
 * AP_STAT_NAME the index.  Those of AP_STATS_LOSS, 0 to AP_LOSS_NR - 1,
 * are losses but for AP_STAT_IDLE, each counted a second time under the
 * process that lost the record (the one running, or the thread a table
 * entry was for), so that `report` can say who lost what.  The processes
 * beyond AP_LOSS_PROCS are counted together (ap_loss_over): the sums stay
 * equal to the counters.
 */
#define AP_STATS_LOSS(X)						\
	X(RB_DROP,		0)	/* ring buffer full: record lost */ \
	X(KSTACK_ERR,		1)	/* bpf_get_stack(kernel) failed */ \
	X(USTACK_ERR,		2)	/* bpf_get_stack(user) failed */ \
	X(IDLE,			3)	/* cpu samples of the idle	\
					 * task, skipped */		\
	X(TARGET_FULL,		4)	/* a forked child did not fit	\
					 * in targets */		\
	X(SYSCALL_TABLE_FULL,	5)	/* syscalls in flight table full */ \
	X(LOCK_TABLE_FULL,	6)	/* lock waits in flight table full */ \
	X(GPU_TABLE_FULL,	7)	/* gpu launches in flight table	\
					 * full */			\
	X(SCHED_TABLE_FULL,	8)					\
	X(IO_UNRESOLVED,	9)					\
	X(IO_TABLE_FULL,	10)	/* io syscalls in flight table full */ \
	X(SCHED_UNSEEN,		11)	/* context switches of a target	\
					 * thread that no tracepoint	\
					 * reported */
/* the user stack unwinder (bpf/unwind.bpf.h): stacks and frames */
#define AP_STATS_UNWIND(X)						\
	X(UW_STACKS,		16)	/* user stacks unwound from CFI */ \
	X(UW_COMPLETE,		17)	/* ... that reached the		\
					 * outermost frame */		\
	X(UW_TRUNCATED,		18)	/* ... cut at the depth limit */ \
	X(UW_FP_FRAMES,		19)	/* frames taken by frame pointer: \
					 * no table */			\
	X(UW_NO_PROC,		20)	/* stacks of a process not yet	\
					 * mirrored */			\
	X(UW_BAD_RULE,		21)	/* rows the table could not	\
					 * express */			\
	X(UW_FAULT,		22)	/* stack reads that faulted */	\
	X(UW_OUTSIDE,		23)	/* return address outside every	\
					 * mapping */			\
	X(UW_BUSY,		24)	/* every unwinder buffer of the CPU \
					 * in use (programs nested): no	\
					 * stack */			\
	X(UW_VMA,		25)	/* frames whose mapping the mirror \
					 * lacked, found with bpf_find_vma */
#define AP_STATS(X)		AP_STATS_LOSS(X) AP_STATS_UNWIND(X)

#define AP__STAT_ENUM(name, v)	AP_STAT_##name = v,
#define AP__STAT_COUNT(name, v)	+ 1
#define AP__STAT_BIT(name, v)	+ (1ull << (v))
#define AP__STAT_OR(name, v)	| (1ull << (v))
enum {
	AP_STATS(AP__STAT_ENUM)
	AP_LOSS_NR = 0 AP_STATS_LOSS(AP__STAT_COUNT)
};
#define AP_STAT_NR		32	/* the map's entries */
#define AP_LOSS_PROCS		4096
/* every index below AP_STAT_NR, each once; AP_STATS_LOSS 0, 1, 2 ... */
_Static_assert((0 AP_STATS(AP__STAT_OR)) < (1ull << AP_STAT_NR) &&
	       (0 AP_STATS(AP__STAT_BIT)) == (0 AP_STATS(AP__STAT_OR)) &&
	       (0 AP_STATS_LOSS(AP__STAT_OR)) == (1ull << AP_LOSS_NR) - 1,
	       "AP_STATS: indexes below AP_STAT_NR, each once");
#undef AP__STAT_ENUM
#undef AP__STAT_COUNT
#undef AP__STAT_BIT
#undef AP__STAT_OR

struct ap_loss_key {
	__u32 tgid;
	__u32 pad;
	__u64 start_ns;		/* group_leader->start_boottime: identity */
};

struct ap_loss {
	char comm[AP_COMM_LEN];	/* the group leader's */
	__u64 n[AP_LOSS_NR];	/* by AP_STAT_* index */
};

struct ap_ev_hdr {
	__u32 type;		/* AP_EV_* */
	__u32 pid;		/* thread group id */
	__u32 tid;
	__u32 cpu;
	__u64 ts;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
};

/* ap_stacks.uflags: how the user stack was taken and how it ended */
#define AP_USTACK_CFI		(1u << 0)	/* unwound from CFI tables */
#define AP_USTACK_COMPLETE	(1u << 1)	/* reached the outermost frame */
#define AP_USTACK_TRUNCATED	(1u << 2)	/* cut at the depth limit */
#define AP_USTACK_FP		(1u << 3)	/* some frames by frame pointer */
#define AP_USTACK_FAULT		(1u << 4)	/* a stack read faulted */
#define AP_USTACK_OUTSIDE	(1u << 5)	/* ended outside every mapping */

/*
 * Kernel frames (leaf first) in ips[0 .. kstack_sz / 8), then the user
 * frames (leaf first) packed right after them, then py_n Python frames
 * of two words each (AP_PY_RAW and its check, innermost first;
 * bpf/python.bpf.h).  Sizes are in bytes and
 * never negative (failures are counted).  It is the last member of every
 * record that carries it, and records are cut after the last frame.
 */
struct ap_stacks {
	__s32 kstack_sz;
	__s32 ustack_sz;
	__u32 uflags;		/* AP_USTACK_* */
	__u32 py_n;		/* Python frames after the user ones */
	__u64 ips[AP_MAX_KSTACK + AP_MAX_USTACK + 2 * AP_MAX_PYSTACK];
};

/*
 * Unwind tables, compiled by user space from a file's CFI (lib/unwind/cfi.c):
 * rows sorted by pc, each valid from its pc up to the next row's, for a
 * whole file; the rows of every file live in one array map.
 */
#define AP_CFI_NONE		0	/* no CFI here: frame pointer */
#define AP_CFI_RSP		1	/* CFA = rsp + off */
#define AP_CFI_RBP		2	/* CFA = rbp + off */
#define AP_CFI_PLT		3	/* CFA = rsp + 8, + 8 when (pc & 15) >= off */
#define AP_CFI_SIGNAL		4	/* signal trampoline: sigcontext at rsp */
#define AP_CFI_END		5	/* outermost frame: no caller */
#define AP_CFI_BAD		6	/* a rule the table cannot express */
#define AP_CFI_RBX		7	/* CFA = rbx + off (a stack realigned by
					 * _dl_runtime_resolve, the old rsp in
					 * rbx) */

/* kind's high bit: off is in units of 8 bytes (large frames: printf's
 * 33 KiB buffer), so that a row stays 8 bytes */
#define AP_CFI_KIND_MASK	0x0f
#define AP_CFI_SCALED		0x80
/* kind's bits 4-6, k: where the caller's rbx is, for a caller whose CFA
 * is rbx-based; 0: unchanged, 1: saved where no row says (lost), 2-7: at
 * CFA - 8 * k, where pushes put it */
#define AP_CFI_RBX_SHIFT	4
#define AP_CFI_RBX_MASK		0x70
#define AP_CFI_RBX_LOST		1

struct ap_cfi_row {
	__u32 pc;		/* ELF virtual address */
	__u8 kind;		/* AP_CFI_*, | AP_CFI_SCALED */
	__s8 rbp;		/* caller's rbp at CFA + 8 * rbp; 0: unchanged */
	__s16 off;
};

static inline unsigned int ap_cfi_row__kind(const struct ap_cfi_row *r)
{
	return r->kind & AP_CFI_KIND_MASK;
}

static inline unsigned int ap_cfi_row__rbx(const struct ap_cfi_row *r)
{
	return (r->kind & AP_CFI_RBX_MASK) >> AP_CFI_RBX_SHIFT;
}

static inline long long ap_cfi_row__off(const struct ap_cfi_row *r)
{
	return (r->kind & AP_CFI_SCALED) ? (long long)r->off * 8 : r->off;
}

/* one executable mapping of a target, as the unwinder sees it */
struct ap_umap {
	__u64 start;
	__u64 end;
	__u64 bias;		/* runtime address - ELF address */
	__u32 row_start;	/* first row of its file's table */
	__u32 row_nr;		/* 0: no table (JIT, anonymous, no CFI) */
};

/* executable mappings per process: a program that dlopens hundreds of
 * libraries (plugins, a Python with its extension modules) has that many,
 * and those past the limit unwound by frame pointer */
#define AP_UMAP_MAX		4096

/*
 * The mirror of one process's executable mappings: entries 0..nr-1 of
 * generation gen, sorted by start, each under its own key, so that the
 * unwinder's binary search uses map lookups and user space can build the
 * next generation while the current one is in use.
 */
struct ap_uproc {
	__u32 nr;
	__u32 gen;		/* 0 or 1 */
};

struct ap_umap_key {
	__u32 pid;
	__u32 idx;		/* gen << 31 | index */
};

/*
 * The tables by file, for code the mirror does not know yet (the first
 * milliseconds after an exec, a dlopen not yet read): the unwinder finds
 * the mapping with bpf_find_vma and its file's table by device and inode.
 */
struct ap_ufile_key {
	__u64 ino;
	__u32 dev;		/* the kernel's s_dev: major << 20 | minor */
	__u32 pad;
};

struct ap_ufile {
	__u32 row_start;
	__u32 row_nr;
	__s64 delta;		/* p_vaddr - p_offset of its code segment */
};

#define AP_UW_FILES		4096
#define AP_UW_PROCS		8192	/* processes mirrored at once */
#define AP_UW_MAPS		(64 * 1024)	/* mirrored mappings, all processes */

struct ap_ev_cpu {
	struct ap_ev_hdr hdr;
	char comm[AP_COMM_LEN];
	struct ap_stacks st;
};

/* ap_ev_task.kind */
#define AP_TASK_FORK		1	/* a new process (not a thread) */
#define AP_TASK_EXEC		2
#define AP_TASK_EXIT		3	/* the whole thread group is gone */
#define AP_TASK_COMM		4	/* prctl(PR_SET_NAME) or pthread_setname */

struct ap_ev_task {
	struct ap_ev_hdr hdr;
	__u32 kind;
	__u32 ppid;
	__u64 start_ns;		/* task->group_leader->start_boottime */
	__s32 exit_code;
	__u32 pad;
	char comm[AP_COMM_LEN];
};

/*
 * A Python frame as the walker sends it: the code object's address (16
 * bytes aligned, as CPython allocates objects) and the index of its last
 * instruction in code units, which user space turns into a line; entry:
 * the outermost frame one _PyEval_EvalFrameDefault call runs (the
 * native frame it replaces in the merged stack).  Then a check word: its
 * name and file pointers and first line mixed (AP_PY_CHECK), which tells
 * a code object from one freed at the same address before (imports
 * make and drop many).
 */
#define AP_PY_CHECK(qual, file, first)	((qual) ^ (file) << 1 ^ \
					 (__u64)(first) << 48)
#define AP_PY_RAW_TAG		0xa000000000000000ull
#define AP_PY_RAW_TAG_MASK	0xf000000000000000ull
#define AP_PY_RAW_ENTRY		(1ull << 59)
#define AP_PY_RAW_INSTR_SHIFT	43
#define AP_PY_RAW_INSTR_MAX	0xffffu
#define AP_PY_RAW_CODE_MASK	((1ull << 43) - 1)

/*
 * A process running a CPython interpreter that the walker knows
 * (lib/python/detect.c): where its runtime state is and the offsets of
 * the fields it follows, for that version.
 */
struct ap_py_proc {
	__u64 runtime;		/* address of _PyRuntime */
	__u16 interp_head;	/* _PyRuntime.interpreters.head */
	__u16 threads_head;	/* PyInterpreterState.threads.head */
	__u16 ts_next;		/* PyThreadState.next */
	__u16 ts_thread_id;	/* PyThreadState.thread_id: pthread_self() */
	__u16 ts_cframe;	/* PyThreadState.cframe; AP_PY_NONE: none
				 * (3.13), cf_frame is the thread state's */
	__u16 cf_frame;		/* _PyCFrame.current_frame */
	__u16 fr_code;		/* _PyInterpreterFrame.f_code */
	__u16 fr_previous;	/* _PyInterpreterFrame.previous */
	__u16 fr_instr;		/* _PyInterpreterFrame.prev_instr */
	__u16 fr_entry;		/* _PyInterpreterFrame.is_entry (3.11), or
				 * its owner where entry_owner */
	__u16 co_code;		/* PyCodeObject.co_code_adaptive */
	__u16 co_qualname;	/* PyCodeObject.co_qualname */
	__u16 co_filename;
	__u16 co_firstlineno;
	/* 3.12 on: each _PyEval_EvalFrameDefault call links a frame of
	 * its own, owner AP_PY_OWNED_BY_CSTACK, below the first it runs */
	__u16 entry_owner;
	/* before 3.11: the frames are PyFrameObjects, each its own
	 * evaluator call; cf_frame is PyThreadState.frame, fr_previous
	 * f_back, fr_instr the int f_lasti (-1 before the first) */
	__u16 fr_object;
};

#define AP_PY_NONE		0xffff
#define AP_PY_OWNED_BY_CSTACK	3

/*
 * A code object the walker met for the first time (by process, address
 * and check): sent as it is met, so that record reads its names while
 * the process lives, even when the stack that holds it is sent later
 * (an off-CPU interval, at its end) or the process exits soon after.
 */
#define AP_EV_PYCODE		0x130

struct ap_ev_pycode {
	struct ap_ev_hdr hdr;
	__u64 code;
	__u64 check;
};

#define AP_PY_PROCS		1024	/* interpreters known at once */
#define AP_PY_SEEN		16384	/* code objects met, kept */
#define AP_PY_THREADS		32	/* thread states searched per sample */

#endif /* APERTURE_BPF_ABI_H */
