/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mappings as they happen: one dummy software perf event per CPU with
 * mmap2, mmap_data, comm_exec and task set (what perf record uses; not
 * build_id, which changes other tools' records: kmaps.c), read in user
 * space.  Each mapping, exec and fork of every process
 * comes with its CLOCK_MONOTONIC time, so that it compares with the
 * events' bpf_ktime_get_ns().  The collector drains it before every ring
 * buffer record that is newer than the last drain, so a mapping reaches
 * the recorder before the samples that use it.
 */
#ifndef APERTURE_KMAPS_H
#define APERTURE_KMAPS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "aperture.h"
#include "format/format.h"
#include "record/perf_decode.h"

/* the record the collector hands to its callback (hdr.type) */
#define AP_REC_KMAP		0x1f0	/* clear of the AP_EV_* of bpf/ */

struct ap_rec_kmap {
	struct ap_ev_hdr hdr;		/* pid, tid, ts; cpu unused */
	uint32_t kind;			/* AP_PERF_SB_* */
	uint32_t ppid;			/* FORK */
	char comm[16];			/* EXEC */
	struct ap_mmap m;		/* MMAP */
};

/* The bytes of rec that matter: up to the end of an MMAP's path, up to
 * the mapping for the others.  Records kept for later are stored this
 * long, not at the 4 KiB of a path's maximum. */
static inline size_t ap_rec_kmap__size(const struct ap_rec_kmap *rec)
{
	size_t head = offsetof(struct ap_rec_kmap, m);

	if (rec->kind != AP_PERF_SB_MMAP)
		return head;
	return offsetof(struct ap_rec_kmap, m.path) +
	       strnlen(rec->m.path, sizeof(rec->m.path) - 1) + 1;
}

/* rec in ap_rec_kmap__size(rec) bytes at dst (its path NUL-terminated) */
static inline void ap_rec_kmap__pack(void *dst, const struct ap_rec_kmap *rec)
{
	size_t len = ap_rec_kmap__size(rec);

	memcpy(dst, rec, len);
	if (rec->kind == AP_PERF_SB_MMAP)
		((char *)dst)[len - 1] = '\0';
}

/* a packed record back into a whole one */
static inline void ap_rec_kmap__unpack(struct ap_rec_kmap *dst,
				       const void *src)
{
	size_t m = offsetof(struct ap_rec_kmap, m);
	size_t path = offsetof(struct ap_rec_kmap, m.path);

	memcpy(dst, src, m);
	if (dst->kind != AP_PERF_SB_MMAP) {
		memset(&dst->m, 0, sizeof(dst->m));
		return;
	}
	memcpy(&dst->m, (const char *)src + m, path - m);
	memset(dst->m.path, 0, sizeof(dst->m.path));
	strcpy(dst->m.path, (const char *)src + path);
}

struct ap_kmaps;

/* Opens the events on ncpus CPUs; -errno with one line in err. */
int ap_kmaps__open(struct ap_kmaps **out, int ncpus, char *err,
		   size_t errlen);
void ap_kmaps__close(struct ap_kmaps *k);
/* 1 when some CPU's buffer holds records not read yet (no system call) */
int ap_kmaps__pending(const struct ap_kmaps *k);
/* Reads what every CPU holds and calls fn for each record, oldest first;
 * stops at fn's first non-zero return and returns it, else the number of
 * records delivered. */
int ap_kmaps__drain(struct ap_kmaps *k,
		    int (*fn)(void *ctx, const struct ap_rec_kmap *rec),
		    void *ctx);
/* records the kernel could not write (buffer full) since open */
uint64_t ap_kmaps__lost(const struct ap_kmaps *k);

#endif /* APERTURE_KMAPS_H */
