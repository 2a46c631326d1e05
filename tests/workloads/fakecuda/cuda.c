// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in CUDA driver (libcuda.so.1): the launch entry points check
 * their arguments like the real ones and count.  Like the real driver it
 * loads the tool named by CUDA_INJECTION64_PATH once (at cuInit, or the
 * first call) and calls its InitializeInjection; when CUPTI there is the
 * stand-in (fakecupti/), it feeds it API calls and device work: each
 * kernel runs for the nanoseconds its first parameter points to.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakecuda.h"

#define CUDA_SUCCESS			0
#define CUDA_ERROR_INVALID_VALUE	1
#define CUDA_ERROR_NOT_FOUND		500

/* CUfunction handles: one slot per name, like a module's function table */
static struct CUfunc_st {
	char name[64];
} funcs[16];
static volatile unsigned long launches;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct fakecuda_hooks hooks;

static void load_injection(void)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	int (*init)(void);
	void *h;

	if (!path || !*path)
		return;
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "libcuda (stand-in): CUDA_INJECTION64_PATH: %s\n",
			dlerror());
		return;
	}
	/* the stand-in CUPTI's hooks, if that is the CUPTI it loaded */
	hooks.api = (fakecupti_api_fn)dlsym(h, "fakecupti_api");
	hooks.kernel = (fakecupti_kernel_fn)dlsym(h, "fakecupti_kernel");
	hooks.memcpy = (fakecupti_memcpy_fn)dlsym(h, "fakecupti_memcpy");
	hooks.memset = (fakecupti_memset_fn)dlsym(h, "fakecupti_memset");
	hooks.sync = (fakecupti_sync_fn)dlsym(h, "fakecupti_sync");
	init = (int (*)(void))dlsym(h, "InitializeInjection");
	if (!init || !init())
		fprintf(stderr, "libcuda (stand-in): %s: InitializeInjection failed\n",
			path);
}

const struct fakecuda_hooks *fakecuda_hooks(void)
{
	pthread_once(&once, load_injection);
	return &hooks;
}

CUresult cuInit(unsigned int flags)
{
	(void)flags;
	fakecuda_hooks();
	return CUDA_SUCCESS;
}

uint32_t fakecuda_api(int site, uint32_t domain, uint32_t cbid,
		      const char *func, const char *symbol)
{
	const struct fakecuda_hooks *h = fakecuda_hooks();

	return h->api ? h->api(site, domain, cbid, func, symbol) : 0;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
			     const char *name)
{
	size_t i;

	(void)hmod;
	fakecuda_hooks();
	if (!hfunc || !name || strlen(name) >= sizeof(funcs[0].name))
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		if (!funcs[i].name[0])
			strcpy(funcs[i].name, name);
		if (!strcmp(funcs[i].name, name)) {
			*hfunc = &funcs[i];
			return CUDA_SUCCESS;
		}
	}
	return CUDA_ERROR_NOT_FOUND;
}

/* the device name of f: a module function's, or the host stub's symbol
 * (the runtime hands the stub over as the function) */
static const char *func_name(CUfunction f)
{
	Dl_info info;

	if (f >= funcs && f < funcs + sizeof(funcs) / sizeof(funcs[0]))
		return f->name;
	if (dladdr((void *)f, &info) && info.dli_sname)
		return info.dli_sname;
	return "";
}

static CUresult launch(CUfunction f, unsigned int gridDimX,
		       unsigned int gridDimY, unsigned int gridDimZ,
		       unsigned int blockDimX, unsigned int blockDimY,
		       unsigned int blockDimZ, unsigned int sharedMemBytes,
		       CUstream hStream, void **kernelParams)
{
	const struct fakecuda_hooks *h = fakecuda_hooks();

	if (!f || !gridDimX || !gridDimY || !gridDimZ || !blockDimX ||
	    !blockDimY || !blockDimZ || sharedMemBytes > 228 * 1024)
		return CUDA_ERROR_INVALID_VALUE;
	launches++;
	if (h->kernel) {
		unsigned int grid[3] = { gridDimX, gridDimY, gridDimZ };
		unsigned int block[3] = { blockDimX, blockDimY, blockDimZ };
		uint64_t ns = kernelParams && kernelParams[0] ?
			      *(const uint64_t *)kernelParams[0] : 0;

		h->kernel(func_name(f), grid, block, sharedMemBytes,
			  (uintptr_t)hStream, ns);
	}
	return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX,
			unsigned int gridDimY, unsigned int gridDimZ,
			unsigned int blockDimX, unsigned int blockDimY,
			unsigned int blockDimZ, unsigned int sharedMemBytes,
			CUstream hStream, void **kernelParams, void **extra)
{
	const char *name = f ? func_name(f) : NULL;
	CUresult r;

	(void)extra;
	fakecuda_api(FAKECUPTI_ENTER, FAKECUPTI_DRIVER,
		     FAKECUPTI_cuLaunchKernel, "cuLaunchKernel", name);
	r = launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
		   blockDimZ, sharedMemBytes, hStream, kernelParams);
	fakecuda_api(FAKECUPTI_EXIT, FAKECUPTI_DRIVER,
		     FAKECUPTI_cuLaunchKernel, "cuLaunchKernel", name);
	return r;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
			  void **kernelParams, void **extra)
{
	const char *name = f ? func_name(f) : NULL;
	CUresult r = CUDA_ERROR_INVALID_VALUE;

	(void)extra;
	fakecuda_api(FAKECUPTI_ENTER, FAKECUPTI_DRIVER,
		     FAKECUPTI_cuLaunchKernelEx, "cuLaunchKernelEx", name);
	if (config)
		r = launch(f, config->gridDimX, config->gridDimY,
			   config->gridDimZ, config->blockDimX,
			   config->blockDimY, config->blockDimZ,
			   config->sharedMemBytes, config->hStream,
			   kernelParams);
	fakecuda_api(FAKECUPTI_EXIT, FAKECUPTI_DRIVER,
		     FAKECUPTI_cuLaunchKernelEx, "cuLaunchKernelEx", name);
	return r;
}

unsigned long fakecuda_driver_launches(void)
{
	return launches;
}
