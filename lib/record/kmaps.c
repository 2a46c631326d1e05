// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU dummy perf events for mmap, exec and fork records (kmaps.h).
 */
#include "record/kmaps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "util/vec.h"

/* data pages per CPU: a burst of process starts (a few dozen mappings
 * each, up to 4 KiB per path) between two drains; perf record -a uses
 * as much */
#define KMAPS_PAGES	128
#define KMAPS_REC_MAX	(64 * 1024)	/* a perf record's u16 size */

struct kring {
	int fd;
	void *base;
	size_t len;
};

struct ap_kmaps {
	struct kring *rings;
	int nr;
	uint64_t lost;
	uint8_t *rec;			/* one record copied out */
	struct ap_rec_kmap *one;	/* one record parsed, or handed out */
	/* a drain's records, packed (ap_rec_kmap__pack: a path as long as
	 * it is, not 4 KiB) in one arena kept for the next drains
	 * (allocating one per record was a fifth of top -a's time on a busy
	 * machine), and sorted by time through order */
	uint8_t *arena;
	size_t arena_len, arena_cap;
	size_t *offs;			/* each record's place in arena */
	size_t nr_batch, cap_batch;
	struct ap_rec_kmap **order;
	size_t cap_order;
};

/* bytes kept between drains: a burst's go back */
#define KMAPS_KEEP	(64 * 1024)

static int kring__open(struct kring *r, int cpu)
{
	struct perf_event_attr attr;
	long page = sysconf(_SC_PAGESIZE);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.sample_id_all = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	/* data too: the lock and memory views name data addresses */
	attr.mmap_data = 1;
	attr.comm = 1;
	attr.comm_exec = 1;
	attr.task = 1;
	/*
	 * No attr.build_id: while one event has it, the kernel reads the
	 * build-id of every mapping made on the machine, and its MMAP2
	 * records for other tools' events came with the build-id flag set
	 * (3 of 4 with aperture running, 0 of 4 before and after): perf 6.1,
	 * which had not asked for build-ids, then aborted ("assertion failed
	 * at util/build-id.c").  The recorder reads them from the files.
	 */
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.watermark = 1;
	attr.wakeup_watermark = 1 << 30;	/* never: we poll */

	r->fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
			PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->len = (size_t)(1 + KMAPS_PAGES) * page;
	r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->fd, 0);
	if (r->base == MAP_FAILED) {
		int err = -errno;

		r->base = NULL;
		close(r->fd);
		r->fd = -1;
		return err;
	}
	return 0;
}

int ap_kmaps__open(struct ap_kmaps **out, int ncpus, char *err,
		   size_t errlen)
{
	struct ap_kmaps *k;
	int cpu, ret, opened = 0;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->rings = calloc(ncpus > 0 ? ncpus : 1, sizeof(*k->rings));
	k->rec = malloc(KMAPS_REC_MAX);
	k->one = malloc(sizeof(*k->one));
	if (!k->rings || !k->rec || !k->one) {
		ap_kmaps__close(k);
		return -ENOMEM;
	}
	k->nr = ncpus;
	ret = 0;
	for (cpu = 0; cpu < ncpus; cpu++) {
		int e = kring__open(&k->rings[cpu], cpu);

		if (!e) {
			opened++;
			continue;
		}
		k->rings[cpu].fd = -1;
		/* a possible CPU that is offline has nothing to report */
		if (e != -ENODEV && e != -ENXIO && !ret)
			ret = e;
	}
	if (!opened) {
		if (!ret)
			ret = -ENODEV;
		snprintf(err, errlen,
			 "perf_event_open(dummy, mmap2): %s%s", strerror(-ret),
			 ret == -EACCES || ret == -EPERM ?
			 "; run as root or grant CAP_PERFMON" : "");
		ap_kmaps__close(k);
		return ret;
	}
	*out = k;
	return 0;
}

void ap_kmaps__close(struct ap_kmaps *k)
{
	int i;

	if (!k)
		return;
	for (i = 0; k->rings && i < k->nr; i++) {
		if (k->rings[i].base)
			munmap(k->rings[i].base, k->rings[i].len);
		if (k->rings[i].fd >= 0)
			close(k->rings[i].fd);
	}
	free(k->arena);
	free(k->offs);
	free(k->order);
	free(k->rings);
	free(k->rec);
	free(k->one);
	free(k);
}

int ap_kmaps__pending(const struct ap_kmaps *k)
{
	int i;

	if (k->nr_batch)
		return 1;	/* held back by the last drain */
	for (i = 0; i < k->nr; i++) {
		struct perf_event_mmap_page *meta = k->rings[i].base;

		if (meta && __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE) !=
			    meta->data_tail)
			return 1;
	}
	return 0;
}

uint64_t ap_kmaps__lost(const struct ap_kmaps *k)
{
	return k->lost;
}

/* one record into the batch; 0 or -ENOMEM */
static int kmaps__take(struct ap_kmaps *k, const void *rec, size_t size)
{
	struct ap_rec_kmap *e = k->one;
	struct ap_perf_sb sb;
	uint64_t lost;
	size_t len;
	int err;

	if (size >= sizeof(struct perf_event_header) &&
	    ap_get_le32(rec) == PERF_RECORD_LOST) {
		if (!ap_perf_lost__parse(rec, size, &lost))
			k->lost += lost;
		return 0;
	}
	err = ap_perf_sb__parse(rec, size, &sb, &e->m);
	if (err)
		return 0;	/* of no interest, or not to be trusted */
	memset(&e->hdr, 0, sizeof(e->hdr));
	e->hdr.type = AP_REC_KMAP;
	e->hdr.pid = sb.pid;
	e->hdr.tid = sb.tid;
	e->hdr.ts = sb.time;
	e->kind = sb.kind;
	e->ppid = sb.ppid;
	memcpy(e->comm, sb.comm, sizeof(e->comm));

	/* 8-byte aligned, as the record's fields are */
	len = (ap_rec_kmap__size(e) + 7) & ~(size_t)7;
	if (ap_grow((void **)&k->offs, &k->cap_batch, k->nr_batch,
		    sizeof(*k->offs), 64))
		return -ENOMEM;
	while (k->arena_cap - k->arena_len < len) {
		size_t cap = k->arena_cap ? k->arena_cap * 2 : 16384;
		uint8_t *a = realloc(k->arena, cap);

		if (!a)
			return -ENOMEM;
		k->arena = a;
		k->arena_cap = cap;
	}
	ap_rec_kmap__pack(k->arena + k->arena_len, e);
	k->offs[k->nr_batch++] = k->arena_len;
	k->arena_len += len;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct ap_rec_kmap *x = *(struct ap_rec_kmap *const *)a;
	const struct ap_rec_kmap *y = *(struct ap_rec_kmap *const *)b;

	if (x->hdr.ts != y->hdr.ts)
		return x->hdr.ts < y->hdr.ts ? -1 : 1;
	return x < y ? -1 : x > y;	/* the arena's order: the kernel's */
}

/*
 * The records of a drain from order[from] on (sorted), newer than its
 * start, kept for the next one in time order; without memory for the
 * copy, delivered now.  Returns what the drain returns.
 */
static int kmaps__hold(struct ap_kmaps *k, size_t from,
		       int (*fn)(void *ctx, const struct ap_rec_kmap *rec),
		       void *ctx, int n)
{
	size_t j, len, total = 0, held = 0;
	uint8_t *keep;
	int ret = 0;

	for (j = from; j < k->nr_batch; j++)
		total += (ap_rec_kmap__size(k->order[j]) + 7) & ~(size_t)7;
	keep = malloc(total);
	if (!keep) {
		for (j = from; j < k->nr_batch && !ret; j++) {
			ap_rec_kmap__unpack(k->one, k->order[j]);
			ret = fn(ctx, k->one);
			n++;
		}
		k->nr_batch = 0;
		k->arena_len = 0;
		return ret ? ret : n;
	}
	total = 0;
	for (j = from; j < k->nr_batch; j++) {
		len = (ap_rec_kmap__size(k->order[j]) + 7) & ~(size_t)7;
		memcpy(keep + total, k->order[j], len);
		k->offs[held++] = total;
		total += len;
	}
	/* the arena held them all: it holds these */
	memcpy(k->arena, keep, total);
	free(keep);
	k->nr_batch = held;
	k->arena_len = total;
	return n;
}

/*
 * The CPUs' buffers are read one after the other, and the reader can be
 * preempted in between (milliseconds on a busy machine): a fork recorded
 * on one CPU can miss a drain that reads its child's exec and mappings,
 * written later on another CPU read later, and the child's records came
 * before any sign of the child (the recorder dropped them: its samples
 * resolved to nothing).  Every record made before the drain began is in
 * its buffer when read; those made since wait for the next drain, where
 * whatever came before them on the other CPUs is read too.
 */
int ap_kmaps__drain(struct ap_kmaps *k,
		    int (*fn)(void *ctx, const struct ap_rec_kmap *rec),
		    void *ctx)
{
	long page = sysconf(_SC_PAGESIZE);
	int i, ret = 0, n = 0;
	struct timespec ts;
	uint64_t until;
	size_t j;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	until = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	for (i = 0; i < k->nr; i++) {
		struct kring *r = &k->rings[i];
		struct perf_event_mmap_page *meta = r->base;
		uint64_t head, tail;
		int len;

		if (!meta)
			continue;
		head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
		tail = meta->data_tail;
		while ((len = ap_perf_ring__read((const uint8_t *)r->base +
						 page, r->len - page, &tail,
						 head, k->rec,
						 KMAPS_REC_MAX)) > 0)
			if (kmaps__take(k, k->rec, len))
				break;
		__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	}
	/* per process the kernel's order; across CPUs (a process that
	 * migrated) the time's */
	while (!ret && k->cap_order < k->nr_batch)
		ret = ap_grow((void **)&k->order, &k->cap_order, k->cap_order,
			      sizeof(*k->order), 64);
	for (j = 0; j < k->nr_batch && !ret; j++)
		k->order[j] = (struct ap_rec_kmap *)(k->arena + k->offs[j]);
	if (!ret && k->nr_batch > 1)
		qsort(k->order, k->nr_batch, sizeof(*k->order), by_time);
	for (j = 0; j < k->nr_batch && !ret && k->order[j]->hdr.ts <= until;
	     j++) {
		ap_rec_kmap__unpack(k->one, k->order[j]);
		ret = fn(ctx, k->one);
		n++;
	}
	if (!ret && j < k->nr_batch)
		return kmaps__hold(k, j, fn, ctx, n);
	k->nr_batch = 0;
	k->arena_len = 0;
	if (k->arena_cap > KMAPS_KEEP) {
		free(k->arena);
		k->arena = NULL;
		k->arena_cap = 0;
		free(k->offs);
		k->offs = NULL;
		k->cap_batch = 0;
		free(k->order);
		k->order = NULL;
		k->cap_order = 0;
	}
	return ret ? ret : n;
}
