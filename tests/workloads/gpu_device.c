// SPDX-License-Identifier: GPL-2.0
/*
 * GPU device-time workload with known truth, through the stand-in CUDA
 * libraries (fakecuda/) and, when the injection library is loaded, the
 * stand-in CUPTI (fakecupti/): each kernel's first parameter is the time
 * it runs on the stand-in device, in ns.  Per round:
 *
 *   runtime    spin_short(unsigned long*)  40 x grid(80,1,1) block(256,1,1)
 *                                          shared 0, 1000 + 10 * i ns
 *   runtime-exc spin_long(unsigned long*)   7 x grid(4,2,1) block(64,4,1)
 *                                          shared 4096, 5000 * (i + 1) ns
 *   driver     tile_kernel                 11 x grid(16,16,1) block(32,8,1)
 *                                          shared 1024, 250000 ns
 *   copies     HtoD 5 x 1 MiB, DtoH 3 x 4 KiB, DtoD 2 x 64 KiB
 *   memsets    4 x 8 KiB;  syncs: 2 context, 1 stream
 *
 * (copies and memsets take FAKECUDA_COPY_NS of their size).  The truth is
 * printed on stdout as JSON, computed from the same numbers, for the test
 * to hold the report against.
 *
 * The last round runs just before exit, so that its records are handed
 * back only by the flush at exit.
 *
 * Usage: gpu_device [ROUNDS [wait FILE]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakecuda.h"

#define N_SHORT		40
#define N_LONG		7
#define N_TILE		11
#define TILE_NS		250000ull

static int fails;
static volatile unsigned long sink;

/* host stubs, as nvcc emits them: what cudaLaunchKernel receives */
__attribute__((noinline)) void spin_short(unsigned long *ns)
	__asm__("_Z10spin_shortPm");
__attribute__((noinline)) void spin_short(unsigned long *ns)
{
	sink = ns ? *ns : 0;
}

__attribute__((noinline)) void spin_long(unsigned long *ns)
	__asm__("_Z9spin_longPm");
__attribute__((noinline)) void spin_long(unsigned long *ns)
{
	sink = ns ? *ns + 1 : 1;
}

static void check(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "gpu_device: %s failed: %d\n", what, rc);
		fails++;
	}
}

__attribute__((noinline)) static void launch_short(uint64_t ns)
{
	dim3 grid = { 80, 1, 1 }, block = { 256, 1, 1 };
	void *args[1] = { &ns };

	check(cudaLaunchKernel((const void *)spin_short, grid, block, args, 0,
			       NULL), "cudaLaunchKernel");
}

__attribute__((noinline)) static void launch_long(uint64_t ns)
{
	cudaLaunchConfig_t cfg;
	void *args[1] = { &ns };

	memset(&cfg, 0, sizeof(cfg));
	cfg.gridDim = (dim3){ 4, 2, 1 };
	cfg.blockDim = (dim3){ 64, 4, 1 };
	cfg.dynamicSmemBytes = 4096;
	cfg.stream = (cudaStream_t)0x5;
	check(cudaLaunchKernelExC(&cfg, (const void *)spin_long, args),
	      "cudaLaunchKernelExC");
}

__attribute__((noinline)) static void launch_tile(CUfunction f)
{
	uint64_t ns = TILE_NS;
	void *params[1] = { &ns };

	check(cuLaunchKernel(f, 16, 16, 1, 32, 8, 1, 1024, (CUstream)0x9,
			     params, NULL), "cuLaunchKernel");
}

__attribute__((noinline)) static void copies(void)
{
	static char host[1 << 20];
	void *a, *b;
	int i;

	check(cudaMalloc(&a, 1 << 20), "cudaMalloc");
	check(cudaMalloc(&b, 1 << 20), "cudaMalloc");
	if (fails)
		return;
	for (i = 0; i < 5; i++)
		check(cudaMemcpy(a, host, 1 << 20, cudaMemcpyHostToDevice),
		      "cudaMemcpy");
	for (i = 0; i < 3; i++)
		check(cudaMemcpy(host, a, 4096, cudaMemcpyDeviceToHost),
		      "cudaMemcpy");
	for (i = 0; i < 2; i++)
		check(cudaMemcpy(b, a, 65536, cudaMemcpyDeviceToDevice),
		      "cudaMemcpy");
	for (i = 0; i < 4; i++)
		check(cudaMemset(b, i, 8192), "cudaMemset");
	cudaFree(a);
	cudaFree(b);
}

__attribute__((noinline)) static void round_once(CUfunction tile)
{
	int i;

	for (i = 0; i < N_SHORT; i++)
		launch_short(1000 + 10 * i);
	for (i = 0; i < N_LONG; i++)
		launch_long(5000ull * (i + 1));
	for (i = 0; i < N_TILE; i++)
		launch_tile(tile);
	check(cudaStreamSynchronize((cudaStream_t)0x9),
	      "cudaStreamSynchronize");
	check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
	copies();
	check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "name": {count, total, p95 (nearest rank), max} of n times */
static void truth_kernel(const char *name, uint64_t *t, size_t n, int last)
{
	uint64_t total = 0;
	size_t i, rank = (n * 95 + 99) / 100;

	qsort(t, n, sizeof(*t), cmp);
	for (i = 0; i < n; i++)
		total += t[i];
	printf("    \"%s\": {\"count\": %zu, \"total\": %llu, \"p95\": %llu, \"max\": %llu}%s\n",
	       name, n, (unsigned long long)total,
	       (unsigned long long)t[rank - 1], (unsigned long long)t[n - 1],
	       last ? "" : ",");
}

static void truth(long rounds)
{
	uint64_t *s = calloc(N_SHORT * rounds, sizeof(*s));
	uint64_t *l = calloc(N_LONG * rounds, sizeof(*l));
	uint64_t *t = calloc(N_TILE * rounds, sizeof(*t));
	long r;
	int i;

	if (!s || !l || !t)
		exit(1);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < N_SHORT; i++)
			s[r * N_SHORT + i] = 1000 + 10 * i;
		for (i = 0; i < N_LONG; i++)
			l[r * N_LONG + i] = 5000ull * (i + 1);
		for (i = 0; i < N_TILE; i++)
			t[r * N_TILE + i] = TILE_NS;
	}
	printf("{\n  \"kernels\": {\n");
	truth_kernel("spin_short(unsigned long*)", s, N_SHORT * rounds, 0);
	truth_kernel("spin_long(unsigned long*)", l, N_LONG * rounds, 0);
	truth_kernel("tile_kernel", t, N_TILE * rounds, 1);
	printf("  },\n  \"memcpy\": {\n");
	printf("    \"HtoD\": [%ld, %llu, %llu],\n", 5 * rounds,
	       5ull * rounds << 20,
	       (unsigned long long)(5 * rounds * FAKECUDA_COPY_NS(1 << 20)));
	printf("    \"DtoH\": [%ld, %llu, %llu],\n", 3 * rounds,
	       3ull * rounds * 4096,
	       (unsigned long long)(3 * rounds * FAKECUDA_COPY_NS(4096)));
	printf("    \"DtoD\": [%ld, %llu, %llu]\n", 2 * rounds,
	       2ull * rounds * 65536,
	       (unsigned long long)(2 * rounds * FAKECUDA_COPY_NS(65536)));
	printf("  },\n  \"memset\": [%ld, %llu, %llu],\n", 4 * rounds,
	       4ull * rounds * 8192,
	       (unsigned long long)(4 * rounds * FAKECUDA_COPY_NS(8192)));
	printf("  \"sync\": {\"context\": %ld, \"stream\": %ld}\n}\n",
	       2 * rounds, rounds);
	free(s);
	free(l);
	free(t);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1, r, i;
	CUfunction tile;

	if (rounds < 1 || argc == 3 || argc > 4 ||
	    (argc == 4 && strcmp(argv[2], "wait"))) {
		fprintf(stderr, "usage: gpu_device [ROUNDS [wait FILE]]\n");
		return 2;
	}
	/* CUDA set up (and the injection library loaded) before a profiler
	 * attaches, as in a long-running program */
	check(cuInit(0), "cuInit");
	if (argc == 4) {
		/* at most 10 s: a test that died must not leave us behind */
		for (i = 0; i < 1000 && access(argv[3], F_OK); i++)
			usleep(10000);
	}
	check(cuModuleGetFunction(&tile, NULL, "tile_kernel"),
	      "cuModuleGetFunction");
	if (fails)
		return 1;
	for (r = 0; r < rounds - 1; r++)
		round_once(tile);
	/* a profiler reads the mappings from /proc while the process lives */
	usleep(200000);
	/* the last round just before exit: its records are still in CUPTI's
	 * buffer, which only the injection library's flush at exit hands
	 * back */
	round_once(tile);
	truth(rounds);
	return fails ? 1 : 0;
}
