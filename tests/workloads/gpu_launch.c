// SPDX-License-Identifier: GPL-2.0
/*
 * GPU launch workload with known truth, through the stand-in CUDA
 * libraries (fakecuda/): every launch below, and nothing else, must be in
 * the record, with these names, shapes and counts.
 *
 *   runtime     vector_add_kernel   30 x grid(1024,1,1) block(256,1,1) shared 0
 *   runtime     matmul_kernel(float const*, float const*, float*, int)
 *                                   20 x grid(64,64,1) block(16,16,1) shared 2048
 *   runtime-exc reduce_kernel        7 x grid(128,1,1) block(512,1,1) shared 4096
 *   driver      softmax_kernel      11 x grid(32,2,3) block(128,1,1) shared 1024
 *   driver-ex   layernorm_kernel     5 x grid(8,8,8) block(64,2,1) shared 512
 *
 * Usage: gpu_launch [wait FILE | repeat N]
 *   wait: start launching once FILE exists; repeat: all of it N times
 *   (benchmarks)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakecuda.h"

#define N_VECTOR_ADD	30
#define N_MATMUL	20
#define N_REDUCE	7
#define N_SOFTMAX	11
#define N_LAYERNORM	5

static volatile float sink;

/* host stubs: what nvcc generates for each __global__ function, and what
 * cudaLaunchKernel receives as func */
__attribute__((noinline)) void vector_add_kernel(const float *a,
						 const float *b, float *c,
						 int n)
{
	sink = a && b && c ? (float)n : 0;
}

__attribute__((noinline)) void matmul_stub(const float *a, const float *b,
					   float *c, int n)
	__asm__("_Z13matmul_kernelPKfS0_Pfi");
__attribute__((noinline)) void matmul_stub(const float *a, const float *b,
					   float *c, int n)
{
	sink = a && b && c ? 2.0f * n : 1;
}

__attribute__((noinline)) void reduce_kernel(const float *in, float *out)
{
	sink = in && out ? 3 : 2;
}

static int fails;

static void check(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "gpu_launch: %s failed: %d\n", what, rc);
		fails++;
	}
}

__attribute__((noinline)) static void launch_vector_add(void)
{
	dim3 grid = { 1024, 1, 1 }, block = { 256, 1, 1 };
	void *args[4] = { 0 };

	check(cudaLaunchKernel((const void *)vector_add_kernel, grid, block,
			       args, 0, NULL), "cudaLaunchKernel");
}

__attribute__((noinline)) static void launch_matmul(void)
{
	dim3 grid = { 64, 64, 1 }, block = { 16, 16, 1 };
	void *args[4] = { 0 };

	check(cudaLaunchKernel((const void *)matmul_stub, grid, block, args,
			       2048, (cudaStream_t)0x5), "cudaLaunchKernel");
}

__attribute__((noinline)) static void launch_reduce(void)
{
	cudaLaunchConfig_t cfg;
	void *args[2] = { 0 };

	memset(&cfg, 0, sizeof(cfg));
	cfg.gridDim = (dim3){ 128, 1, 1 };
	cfg.blockDim = (dim3){ 512, 1, 1 };
	cfg.dynamicSmemBytes = 4096;
	cfg.stream = (cudaStream_t)0x7;
	check(cudaLaunchKernelExC(&cfg, (const void *)reduce_kernel, args),
	      "cudaLaunchKernelExC");
}

__attribute__((noinline)) static void launch_softmax(CUfunction f)
{
	void *params[2] = { 0 };

	check(cuLaunchKernel(f, 32, 2, 3, 128, 1, 1, 1024, (CUstream)0x9,
			     params, NULL), "cuLaunchKernel");
}

__attribute__((noinline)) static void launch_layernorm(CUfunction f)
{
	CUlaunchConfig cfg;
	void *params[2] = { 0 };

	memset(&cfg, 0, sizeof(cfg));
	cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 8;
	cfg.blockDimX = 64;
	cfg.blockDimY = 2;
	cfg.blockDimZ = 1;
	cfg.sharedMemBytes = 512;
	cfg.hStream = (CUstream)0xb;
	check(cuLaunchKernelEx(&cfg, f, params, NULL), "cuLaunchKernelEx");
}

__attribute__((noinline)) static void run_runtime(void)
{
	int i;

	for (i = 0; i < N_VECTOR_ADD; i++)
		launch_vector_add();
	for (i = 0; i < N_MATMUL; i++)
		launch_matmul();
	for (i = 0; i < N_REDUCE; i++)
		launch_reduce();
}

__attribute__((noinline)) static void run_driver(void)
{
	CUfunction softmax, layernorm;
	int i;

	check(cuModuleGetFunction(&softmax, NULL, "softmax_kernel"),
	      "cuModuleGetFunction");
	check(cuModuleGetFunction(&layernorm, NULL, "layernorm_kernel"),
	      "cuModuleGetFunction");
	if (fails)
		return;
	for (i = 0; i < N_SOFTMAX; i++)
		launch_softmax(softmax);
	for (i = 0; i < N_LAYERNORM; i++)
		launch_layernorm(layernorm);
}

int main(int argc, char **argv)
{
	unsigned long want = N_VECTOR_ADD + N_MATMUL + N_REDUCE + N_SOFTMAX +
			     N_LAYERNORM;
	long i, repeat = 1;

	if (argc == 3 && !strcmp(argv[1], "wait")) {
		/* at most 10 s: a test that died must not leave us behind */
		for (i = 0; i < 1000 && access(argv[2], F_OK); i++)
			usleep(10000);
	} else if (argc == 3 && !strcmp(argv[1], "repeat")) {
		repeat = atol(argv[2]);
	} else if (argc != 1) {
		fprintf(stderr, "usage: gpu_launch [wait FILE | repeat N]\n");
		return 2;
	}
	want *= repeat;
	for (i = 0; i < repeat; i++) {
		run_runtime();
		run_driver();
	}
	/* a profiler reads the mappings from /proc while the process lives */
	usleep(200000);
	if (fakecuda_driver_launches() != want) {
		fprintf(stderr, "gpu_launch: driver saw %lu launches, want %lu\n",
			fakecuda_driver_launches(), want);
		return 1;
	}
	return fails ? 1 : 0;
}
