// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA runtime loaded with dlopen after the program started, from a
 * directory given on the command line (not in any search path), as
 * frameworks do.  Launches, once a profiler has seen the new mapping and
 * put its probes on the entry points (their first byte turns into int3),
 * or after PAUSE_MS without them:
 *
 *   runtime  late_kernel   9 x grid(4,1,1) block(32,1,1) shared 0
 *   driver   late_driver   4 x grid(2,2,1) block(64,1,1) shared 128
 *
 * Usage: gpu_dlopen DIR [PAUSE_MS]   (DIR holds libcudart.so.12)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fakecuda.h"

static volatile int sink;

/* a uprobe (or uretprobe) on fn: the kernel wrote int3 over its first
 * byte in this process's copy of the page */
static int probed(const void *fn)
{
	return *(const volatile unsigned char *)fn == 0xcc;
}

__attribute__((noinline)) void late_kernel(int *x)
{
	sink = x ? *x : 1;
}

int main(int argc, char **argv)
{
	typeof(cudaLaunchKernel) *launch;
	typeof(cuLaunchKernel) *drv;
	typeof(cuModuleGetFunction) *getf;
	dim3 grid = { 4, 1, 1 }, block = { 32, 1, 1 };
	char path[4096];
	void *rt, *cu;
	CUfunction f;
	int i, pause = argc > 2 ? atoi(argv[2]) : 300;

	if (argc < 2) {
		fprintf(stderr, "usage: gpu_dlopen DIR [PAUSE_MS]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/libcudart.so.12", argv[1]);
	rt = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	/* libcudart's own dependency, found through its $ORIGIN runpath */
	cu = rt ? dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) : NULL;
	if (!rt || !cu) {
		fprintf(stderr, "gpu_dlopen: %s\n", dlerror());
		return 1;
	}
	launch = (typeof(launch))dlsym(rt, "cudaLaunchKernel");
	drv = (typeof(drv))dlsym(cu, "cuLaunchKernel");
	getf = (typeof(getf))dlsym(cu, "cuModuleGetFunction");
	if (!launch || !drv || !getf)
		return 1;
	for (i = 0; i < pause / 10 &&
		    !(probed(launch) && probed(drv) && probed(getf)); i++)
		usleep(10000);
	/* an entry probe goes on just after its function's return probe */
	if (pause)
		usleep(20000);
	for (i = 0; i < 9; i++)
		if (launch((const void *)late_kernel, grid, block, NULL, 0,
			   NULL))
			return 1;
	if (getf(&f, NULL, "late_driver"))
		return 1;
	for (i = 0; i < 4; i++)
		if (drv(f, 2, 2, 1, 64, 1, 1, 128, NULL, NULL, NULL))
			return 1;
	/* a profiler reads the mappings from /proc while the process lives */
	usleep(200000);
	return 0;
}
