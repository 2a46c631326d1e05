// SPDX-License-Identifier: GPL-2.0
/*
 * Memory access workload with known ground truth: each pass writes one
 * byte per page of hot_buffer (64 MiB: 16384 pages), of cold_buffer
 * (4 MiB: 1024 pages) and of a malloc'd heap block (8 MiB: 2048 pages),
 * then gives the pages back with MADV_DONTNEED so that the next pass
 * faults on every page again.  Page faults per pass: 16384 : 1024 : 2048.
 * Huge pages are refused so that one fault is one 4 KiB page.
 *
 * With THREADS > 1 each pass splits hot_buffer between that many threads
 * created for the pass: threads born after recording began must be
 * sampled too.
 *
 *	mem_touch [PASSES [THREADS]]	(default 10 1)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HOT_BYTES	(64 << 20)
#define COLD_BYTES	(4 << 20)
#define HEAP_BYTES	(8 << 20)

static char hot_buffer[HOT_BYTES] __attribute__((aligned(4096)));
static char cold_buffer[COLD_BYTES] __attribute__((aligned(4096)));

/* noinline: the folded stacks must show these frames */
__attribute__((noinline)) static void touch(volatile char *p, size_t len,
					    size_t page)
{
	size_t i;

	for (i = 0; i < len; i += page)
		p[i] = (char)i;
}

__attribute__((noinline)) static void touch_hot(size_t page)
{
	touch(hot_buffer, HOT_BYTES, page);
}

__attribute__((noinline)) static void touch_cold(size_t page)
{
	touch(cold_buffer, COLD_BYTES, page);
}

struct part {
	pthread_t th;
	size_t off, len, page;
};

__attribute__((noinline)) static void *touch_part(void *arg)
{
	struct part *p = arg;

	touch(hot_buffer + p->off, p->len, p->page);
	return NULL;
}

static void touch_hot_threads(size_t page, int nr)
{
	struct part parts[64];
	size_t chunk = HOT_BYTES / nr;
	int t;

	for (t = 0; t < nr; t++) {
		parts[t].off = t * chunk;
		parts[t].len = t == nr - 1 ? HOT_BYTES - t * chunk : chunk;
		parts[t].page = page;
		if (pthread_create(&parts[t].th, NULL, touch_part, &parts[t])) {
			/* no thread: this one does the part */
			touch_part(&parts[t]);
			parts[t].th = 0;
		}
	}
	for (t = 0; t < nr; t++)
		if (parts[t].th)
			pthread_join(parts[t].th, NULL);
}

int main(int argc, char **argv)
{
	int passes = argc > 1 ? atoi(argv[1]) : 10, i;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	size_t page = sysconf(_SC_PAGESIZE);
	char *heap;

	if (threads < 1 || threads > 64) {
		fprintf(stderr, "mem_touch: THREADS must be 1 to 64\n");
		return 2;
	}

	heap = aligned_alloc(page, HEAP_BYTES);
	if (!heap) {
		perror("mem_touch: aligned_alloc");
		return 1;
	}
	madvise(hot_buffer, HOT_BYTES, MADV_NOHUGEPAGE);
	madvise(cold_buffer, COLD_BYTES, MADV_NOHUGEPAGE);
	madvise(heap, HEAP_BYTES, MADV_NOHUGEPAGE);
	for (i = 0; i < passes; i++) {
		if (threads > 1)
			touch_hot_threads(page, threads);
		else
			touch_hot(page);
		touch_cold(page);
		touch(heap, HEAP_BYTES, page);
		madvise(hot_buffer, HOT_BYTES, MADV_DONTNEED);
		madvise(cold_buffer, COLD_BYTES, MADV_DONTNEED);
		madvise(heap, HEAP_BYTES, MADV_DONTNEED);
	}
	free(heap);
	return 0;
}
