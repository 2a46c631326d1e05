/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aperture record file: tags, the header and the core frames, with
 * their encoders and decoders.  man/aperture-file.5 documents the bytes.
 *
 * Layout: file header, then blocks (zlib-compressed runs of frames, each
 * with its length and CRC-32), then a trailer.  A frame is
 *
 *	u32 tag | u32 payload length | payload
 *
 * little-endian; a reader skips the payload of a tag it does not know.
 * Decoders accept payloads longer than they expect (fields appended by a
 * newer minor version) and reject shorter ones with -EBADMSG.
 */
#ifndef APERTURE_FORMAT_H
#define APERTURE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/buf.h"

#define AP_FILE_MAGIC		"APERTURE"	/* 8 bytes, no NUL */
#define AP_FORMAT_MAJOR		1

/*
 * The minor versions of major 1, oldest first: X(NAME, minor) for each.
 * AP_FORMAT_MINOR, the version this aperture writes, is the number of
 * lines: a change of layout appends one (two branches that each add one
 * then conflict here instead of both taking the same number).
 */
#define AP_FORMAT_MINORS(X)						\
	X(SYSCALL_SUMS,		1)	/* syscall summary frames */	\
	X(GPU_DEV,		2)	/* gpu-device frames, launch	\
					 * correlation ids, ap_stack.flags */ \
	X(IO_SUMS,		3)	/* io summaries (AP_IO_F_SUM) */ \
	X(IO_DURATION,		4)	/* an io call's duration */	\
	X(HDR_CRC,		5)	/* the header CRC covers the	\
					 * version */			\
	X(LOST_PROC,		6)	/* losses by process */		\
	X(SCHED_START,		7)	/* sched frames say the		\
					 * process's start time */	\
	X(KERNEL_BUILD_ID,	8)	/* the header's kernel_build_id */ \
	X(SCHED_RUNTIME,	9)	/* sched on_ns is the kernel's	\
					 * run time, flag 0x40 */	\
	X(TRACEPOINT,		10)	/* tracepoint frames */	\
	X(PYFRAME,		11)	/* Python frames */		\
	X(CGROUP,		12)	/* cgroup frames, the header's	\
					 * labels */

/* for the checks of the lists: X(NAME, value, ...) */
#define AP__COUNT(name, ...)	+ 1
#define AP__BIT(name, v, ...)	+ (1ull << (v))
#define AP__OR(name, v, ...)	| (1ull << (v))
/* no two lines of list have the same value (all below 64) */
#define AP__UNIQUE(list)	((0 list(AP__BIT)) == (0 list(AP__OR)))
/* the values of list are first, first + 1, ... (first + lines - 1) */
#define AP__DENSE(list, first)						\
	(AP__UNIQUE(list) &&						\
	 (0 list(AP__OR)) == ((1ull << (first)) *			\
			      ((1ull << (0 list(AP__COUNT))) - 1)))
/* the constants of list (x(NAME, value, ...) names one), nr the number of
 * lines, and the check that they run from first without a gap */
#define AP__DENSE_ENUM(list, x, nr, first)				\
	enum { list(x) nr = 0 list(AP__COUNT) };			\
	_Static_assert(AP__DENSE(list, first),				\
		       #list ": values from " #first ", each once")

#define AP__MINOR_ENUM(name, v)	AP_FORMAT_MINOR_##name = v,
AP__DENSE_ENUM(AP_FORMAT_MINORS, AP__MINOR_ENUM, AP_FORMAT_MINOR, 1);
#undef AP__MINOR_ENUM

#define AP_FRAME_HDR_LEN	8
/* a block: "APBK", compressed and raw lengths, frames, CRC-32 of the
 * compressed bytes, CRC-32 of the header's first 20 bytes */
#define AP_BLOCK_HDR_LEN	24
/* the trailer holds a frame count (u64) for each of this many tags */
#define AP_TRAILER_TAGS		32

/*
 * The frame tags: X(NAME, value, "name") for each, events below
 * AP_TAG_TASK, metadata from it up.  AP_TAG_NAME, ap_tag__name() and the
 * checks below come from these lists; man/aperture-file.5 documents each
 * tag with its number and name (test_format checks that it does).
 */
#define AP_FORMAT_EVENT_TAGS(X)						\
	/* 0-3 keep the reference event model's order */		\
	X(CPU,		0,	"cpu")		/* CPU sample */	\
	X(LOCK,		1,	"lock")					\
	X(SYSCALL,	2,	"syscall")				\
	X(GPU,		3,	"gpu")		/* GPU kernel launch */	\
	X(MEM,		4,	"mem")		/* memory access */	\
	X(SCHED,	5,	"sched")				\
	X(IO,		6,	"io")					\
	X(GPU_DEV,	7,	"gpu-device")	/* on the GPU (CUPTI) */ \
	X(TRACEPOINT,	8,	"tracepoint")	/* -e CAT:NAME */
#define AP_FORMAT_META_TAGS(X)						\
	X(TASK,		16,	"task")		/* seen, fork, exec, exit */ \
	X(COMM,		17,	"comm")		/* thread name */	\
	X(MMAP,		18,	"mmap")		/* a process's mapping */ \
	X(STACK,	19,	"stack")	/* stack table entry */	\
	X(KSYM,		20,	"ksym")		/* kernel symbol */	\
	X(LOST,		21,	"lost")		/* drop counters */	\
	X(SENSOR,	22,	"sensor")	/* ok, or why not */	\
	X(SUMMARY,	23,	"summary")	/* end of the record */	\
	X(LOST_PROC,	24,	"lost-proc")	/* one process's drops */ \
	X(CGROUP,	25,	"cgroup")	/* a process's cgroup */ \
	X(PYFRAME,	28,	"pyframe")	/* a Python frame's name */ \
	X(IMAGE,	29,	"image")	/* no file has it: vDSO */ \
	X(JIT,		30,	"jit")		/* from /tmp/perf-PID.map */ \
	X(UNWIND,	31,	"unwind")	/* how stacks unwound */
#define AP_FORMAT_TAGS(X)	AP_FORMAT_EVENT_TAGS(X) AP_FORMAT_META_TAGS(X)

#define AP__TAG_ENUM(name, v, str)	AP_TAG_##name = v,
enum {
	AP_FORMAT_TAGS(AP__TAG_ENUM)
};
#undef AP__TAG_ENUM

#define AP_COMM_MAX		16
#define AP_PATH_MAX		4096
#define AP_BUILD_ID_MAX		20

/* bits for ap_header.events_*: 1u << AP_TAG_* of the event */
#define AP_EVMASK(tag)		(1u << (tag))

/* an event's tag is a bit of AP_EVMASK and below AP_TAG_TASK (the readers
 * tell events from metadata so); every tag has a trailer count */
#define AP__EVENT_TAG_CHECK(name, v, str)				\
	_Static_assert(v < AP_TAG_TASK, "event tag " str ": below 16");
#define AP__META_TAG_CHECK(name, v, str)				\
	_Static_assert(v >= AP_TAG_TASK && v < AP_TRAILER_TAGS,		\
		       "metadata tag " str ": 16 to 31");
AP_FORMAT_EVENT_TAGS(AP__EVENT_TAG_CHECK)
AP_FORMAT_META_TAGS(AP__META_TAG_CHECK)
#undef AP__EVENT_TAG_CHECK
#undef AP__META_TAG_CHECK
_Static_assert(AP__UNIQUE(AP_FORMAT_TAGS), "two tags have one value");

#define AP_LABELS_MAX		2048
struct ap_header {
	uint16_t major;
	uint16_t minor;
	uint64_t start_mono_ns;		/* CLOCK_MONOTONIC at record start */
	int64_t mono_to_real_ns;	/* add to a timestamp for wall clock */
	uint32_t freq;			/* CPU sampling frequency, Hz */
	uint32_t events_requested;	/* AP_EVMASK bits */
	uint32_t events_available;
	uint32_t ncpus;
	char host[256];
	char kernel[256];		/* uname -r */
	char cmdline[4096];		/* aperture's own command line */
	char target[256];		/* "pid 12,13", "system-wide", "command ./x" */
	/* the running kernel's GNU build-id (/sys/kernel/notes); len 0:
	 * not known (files before 1.8) */
	uint8_t kernel_build_id[AP_BUILD_ID_MAX];
	uint8_t kernel_build_id_len;
	/* record --label: "NAME=VALUE" lines, each ending in '\n' (files
	 * before 1.12: none) */
	char labels[AP_LABELS_MAX];
};

/* a process's cgroup, /proc/PID/cgroup's path (cgroup v2's, else the
 * first hierarchy's), cut at AP_CGROUP_MAX - 1 bytes */
#define AP_CGROUP_MAX		512
struct ap_proc_cgroup {
	uint64_t ts;
	uint32_t pid;
	uint64_t start_ticks;
	char path[AP_CGROUP_MAX];
};

struct ap_cpu_sample {
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	uint32_t cpu;
	uint32_t stack_id;		/* 0: no stack */
};

#define AP_TASK_SNAPSHOT	0	/* already running when recording began */
#define AP_TASK_NEW		1	/* forked during recording */
#define AP_TASK_EXECED		2
#define AP_TASK_EXITED		3

struct ap_task {
	uint64_t ts;
	uint32_t pid;
	uint32_t ppid;
	uint64_t start_ticks;		/* /proc/PID/stat starttime: identity */
	uint32_t kind;			/* AP_TASK_* */
	int32_t exit_code;		/* AP_TASK_EXITED: wait status */
	char comm[AP_COMM_MAX];
};

struct ap_comm {
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	char comm[AP_COMM_MAX];
};

struct ap_mmap {
	uint64_t ts;
	uint32_t pid;
	uint32_t prot;			/* PROT_* bits from /proc/PID/maps */
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint64_t inode;
	uint32_t build_id_len;		/* 0: none found */
	uint8_t build_id[AP_BUILD_ID_MAX];
	char path[AP_PATH_MAX];		/* "[heap]", "[stack]", "" for anon */
};

/* A stack table entry: kernel frames first (leaf first), then user frames
 * (leaf first).  ips is not owned: the encoder reads the caller's array;
 * ap_stack__decode sets it NULL (the payload's u64s may be unaligned) and
 * ap_stack__decode_ips copies them into the caller's array. */
struct ap_stack {
	uint32_t id;			/* >= 1 */
	uint16_t nr_kernel;
	uint16_t nr_user;
	const uint64_t *ips;		/* nr_kernel + nr_user entries */
	uint32_t flags;			/* AP_STACK_*; after the ips (1.2) */
};

/* ap_stack.flags */
#define AP_STACK_TRUNCATED	(1u << 0)	/* cut at the depth limit: the
						 * root is not the last frame */
#define AP_STACK_OUTERMOST	(1u << 1)	/* the unwinder reached a frame
						 * whose CFI says it has no
						 * caller (1.5; stripped
						 * binaries name it +0x...) */

/* The bytes of an image that no file holds, stored once: the vDSO is the
 * same in every process of a kernel, and names its "[vdso]" mappings.
 * data is not owned (as ap_stack.ips). */
#define AP_IMAGE_MAX		(1u << 20)
struct ap_image {
	uint64_t ts;
	char name[64];			/* "[vdso]" */
	uint32_t len;			/* <= AP_IMAGE_MAX */
	const uint8_t *data;
};

/* one line of a target's perf map: code generated at run time */
struct ap_jit {
	uint64_t ts;
	uint32_t pid;
	uint64_t start;
	uint64_t size;
	char name[256];
};

/*
 * A Python frame (function, file, line) that user frames of stacks name
 * as AP_PYFRAME_IP(id): an address no user code has (not canonical on
 * x86-64), so that stacks keep one array of u64s; odd, so that the
 * look-up of a return address at ip - 1 finds the same id.  The strings
 * are the target's, bounded and never trusted.
 */
#define AP_PYFRAME_TAG		0xa000000000000000ull
#define AP_PYFRAME_ID_MAX	0x7fffffffu
#define AP_PYFRAME_IP(id)	(AP_PYFRAME_TAG | (uint64_t)(id) << 1 | 1)
#define AP_PYFRAME_NAME_MAX	256

static inline int ap_pyframe_ip(uint64_t ip)
{
	return (ip & 0xffffffff00000000ull) == AP_PYFRAME_TAG;
}

/* the id of a frame that ap_pyframe_ip says is one, at ip or ip - 1 */
static inline uint32_t ap_pyframe_id(uint64_t ip)
{
	return (uint32_t)ip >> 1;
}

struct ap_pyframe {
	uint32_t id;			/* >= 1, once per recording */
	int32_t line;			/* 0: unknown */
	int32_t first_line;		/* the function's def; 0: unknown */
	char func[AP_PYFRAME_NAME_MAX];	/* co_qualname */
	char file[AP_PATH_MAX];		/* co_filename */
};

struct ap_ksym {
	uint64_t addr;
	uint64_t size;			/* 0: unknown, runs to the next symbol */
	char name[128];
	char module[64];		/* "" for vmlinux */
};

/* ap_lost.source: X(NAME, value, "name"), values 0 to AP_LOST_NR - 1
 * (ap_summary.lost[] is indexed by them) */
#define AP_LOST_SOURCES(X)						\
	X(RINGBUF,	0,	"ringbuf")	/* BPF ring buffer full */ \
	X(KSTACK,	1,	"kernel-stack")	/* capture failed */	\
	X(USTACK,	2,	"user-stack")	/* capture failed */	\
	X(TABLE,	3,	"table-full")	/* in-kernel table full */ \
	X(UNRESOLVED,	4,	"unresolved")	/* not attributed */	\
	X(WRITE,	5,	"write")	/* not written (I/O error) */

#define AP__LOST_ENUM(name, v, str)	AP_LOST_##name = v,
AP__DENSE_ENUM(AP_LOST_SOURCES, AP__LOST_ENUM, AP_LOST_NR, 0);
#undef AP__LOST_ENUM

struct ap_lost {
	uint64_t ts;
	uint32_t source;		/* AP_LOST_* */
	uint32_t tag;			/* which events were lost (AP_TAG_*) */
	uint64_t count;			/* cumulative since record start */
};

/* The losses of one process (pid and start time), or of the processes
 * beyond the recorder's table of losers (AP_LOST_PROC_OTHERS: pid 0). */
#define AP_LOST_PROC_OTHERS	(1u << 0)

struct ap_lost_proc {
	uint64_t ts;
	uint32_t pid;
	uint32_t flags;			/* AP_LOST_PROC_* */
	uint64_t start_ticks;		/* identity, as ap_task.start_ticks */
	uint32_t source;		/* AP_LOST_* */
	uint32_t tag;			/* as ap_lost.tag */
	uint64_t count;			/* cumulative since record start */
	char comm[AP_COMM_MAX];		/* the process's name */
};

#define AP_SENSOR_OK		0
#define AP_SENSOR_UNAVAILABLE	1
#define AP_SENSOR_FALLBACK	2	/* ran, from another source (reason) */

struct ap_sensor {
	uint32_t tag;			/* event the sensor produces */
	uint32_t state;			/* AP_SENSOR_* */
	char name[32];			/* "cpu", "syscall", ... */
	char source[64];		/* "cpu-clock", "cycles", "ibs_op" ... */
	char reason[256];		/* why unavailable, or "" */
};

struct ap_summary {
	uint64_t end_mono_ns;
	uint64_t samples;		/* CPU samples written */
	uint64_t events;		/* all event frames written */
	uint64_t lost[AP_LOST_NR];
	int32_t exit_status;		/* -- CMD: wait status; -1 otherwise */
	uint32_t pad;
};

/* ap_unwind_info.method */
#define AP_UNWIND_CFI		0	/* CFI tables, in the kernel */
#define AP_UNWIND_FP		1	/* frame pointers */

/* ap_unwind_info.c[]: counters, cumulative since record start */
enum {
	AP_UWC_STACKS,			/* user stacks unwound from CFI */
	AP_UWC_COMPLETE,		/* ... that reached the outermost frame */
	AP_UWC_TRUNCATED,		/* ... cut at the depth limit */
	AP_UWC_FP_FRAMES,		/* frames by frame pointer: no table */
	AP_UWC_NO_PROC,			/* stacks of a process not mirrored yet */
	AP_UWC_BAD_RULE,		/* rows the table could not express */
	AP_UWC_FAULT,			/* stack reads that faulted */
	AP_UWC_OUTSIDE,			/* ended outside every mapping */
	AP_UWC_VMA,			/* mappings found in the kernel's list */
	AP_UWC_TABLES,			/* files with a table */
	AP_UWC_ROWS,			/* rows in all tables */
	AP_UWC_NO_CFI,			/* files without usable CFI */
	AP_UWC_BUILD_NS,		/* time spent compiling tables */
	AP_UWC_NO_ROOM,			/* files left without a table: rows full */
	AP_UWC_DATA_CUT,		/* user stacks (any method) that ended
					 * at a return address outside the
					 * executable mappings */
	AP_UWC_DEBUG_FILES,		/* tables from separate debug files */
	AP_UWC_KMEM,			/* bytes of kernel memory the unwinder's
					 * maps may take at most; 0:
					 * not recorded */
	AP_UWC_NR
};

struct ap_unwind_info {
	uint64_t ts;
	uint32_t method;		/* AP_UNWIND_* */
	uint32_t max_stack;		/* user frames at most */
	uint64_t c[AP_UWC_NR];
};

/*
 * Encoders append the frame header and payload to b; decoders take the
 * payload of a frame with the matching tag and return 0 or -EBADMSG.
 *
 * The header is not a frame: ap_header__encode appends only its TLV
 * payload and ap_header__decode parses only that; the writer and reader
 * handle the magic, version, length and CRC around it.  major and minor
 * are not in the payload: decode sets them to this aperture's version and
 * the reader replaces them with the file's.
 */
void ap_header__init(struct ap_header *h);
int ap_header__encode(const struct ap_header *h, struct ap_buf *b);
int ap_header__decode(const void *p, size_t len, struct ap_header *h);

void ap_frame__begin(struct ap_buf *b, uint32_t tag, size_t *mark);
void ap_frame__end(struct ap_buf *b, size_t mark);
/*
 * What every event frame opens with (a sched frame after its kind): u64
 * ts, u32 pid, u32 tid.  The kinds' codecs share these two, so none reads
 * its head in another order than it was written.
 */
void ap_event_head__encode(struct ap_buf *b, uint64_t ts, uint32_t pid,
			   uint32_t tid);
void ap_event_head__decode(struct ap_cur *c, uint64_t *ts, uint32_t *pid,
			   uint32_t *tid);

void ap_cpu_sample__encode(const struct ap_cpu_sample *e, struct ap_buf *b);
int ap_cpu_sample__decode(const void *p, size_t len, struct ap_cpu_sample *e);
void ap_task__encode(const struct ap_task *e, struct ap_buf *b);
int ap_task__decode(const void *p, size_t len, struct ap_task *e);
void ap_proc_cgroup__encode(const struct ap_proc_cgroup *e,
			    struct ap_buf *b);
int ap_proc_cgroup__decode(const void *p, size_t len,
			   struct ap_proc_cgroup *e);
void ap_comm__encode(const struct ap_comm *e, struct ap_buf *b);
int ap_comm__decode(const void *p, size_t len, struct ap_comm *e);
/* the bytes of e up to its path's NUL: what a mapping kept packed takes
 * (a path is rarely near AP_PATH_MAX) */
static inline size_t ap_mmap__size(const struct ap_mmap *e)
{
	return offsetof(struct ap_mmap, path) +
	       strnlen(e->path, sizeof(e->path) - 1) + 1;
}
/* e, packed or not, into the whole struct dst */
static inline void ap_mmap__copy(struct ap_mmap *dst, const struct ap_mmap *e)
{
	size_t len = strnlen(e->path, sizeof(e->path) - 1);

	memcpy(dst, e, offsetof(struct ap_mmap, path));
	memcpy(dst->path, e->path, len);
	memset(dst->path + len, 0, sizeof(dst->path) - len);
}
void ap_mmap__encode(const struct ap_mmap *e, struct ap_buf *b);
int ap_mmap__decode(const void *p, size_t len, struct ap_mmap *e);
void ap_stack__encode(const struct ap_stack *e, struct ap_buf *b);
int ap_stack__decode(const void *p, size_t len, struct ap_stack *e);
/* as ap_stack__decode, then copies the ips into ips[max] and points e->ips
 * there; -E2BIG (counts filled in) if nr_kernel + nr_user > max */
int ap_stack__decode_ips(const void *p, size_t len, struct ap_stack *e,
			 uint64_t *ips, size_t max);
void ap_image__encode(const struct ap_image *e, struct ap_buf *b);
/* data points into p */
int ap_image__decode(const void *p, size_t len, struct ap_image *e);
void ap_jit__encode(const struct ap_jit *e, struct ap_buf *b);
int ap_jit__decode(const void *p, size_t len, struct ap_jit *e);
void ap_pyframe__encode(const struct ap_pyframe *e, struct ap_buf *b);
int ap_pyframe__decode(const void *p, size_t len, struct ap_pyframe *e);
void ap_ksym__encode(const struct ap_ksym *e, struct ap_buf *b);
int ap_ksym__decode(const void *p, size_t len, struct ap_ksym *e);
void ap_lost__encode(const struct ap_lost *e, struct ap_buf *b);
int ap_lost__decode(const void *p, size_t len, struct ap_lost *e);
void ap_lost_proc__encode(const struct ap_lost_proc *e, struct ap_buf *b);
int ap_lost_proc__decode(const void *p, size_t len, struct ap_lost_proc *e);
void ap_sensor__encode(const struct ap_sensor *e, struct ap_buf *b);
int ap_sensor__decode(const void *p, size_t len, struct ap_sensor *e);
void ap_summary__encode(const struct ap_summary *e, struct ap_buf *b);
int ap_summary__decode(const void *p, size_t len, struct ap_summary *e);

void ap_unwind_info__encode(const struct ap_unwind_info *e, struct ap_buf *b);
int ap_unwind_info__decode(const void *p, size_t len,
			   struct ap_unwind_info *e);

const char *ap_tag__name(uint32_t tag);		/* "cpu", "mmap", ... or NULL */
const char *ap_lost__source_name(uint32_t source);

#endif /* APERTURE_FORMAT_H */
