// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in CUDA driver (libcuda.so.1): the launch entry points check
 * their arguments like the real ones and count, nothing more.
 */
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

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
			     const char *name)
{
	size_t i;

	(void)hmod;
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

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX,
			unsigned int gridDimY, unsigned int gridDimZ,
			unsigned int blockDimX, unsigned int blockDimY,
			unsigned int blockDimZ, unsigned int sharedMemBytes,
			CUstream hStream, void **kernelParams, void **extra)
{
	(void)hStream;
	(void)kernelParams;
	(void)extra;
	if (!f || !gridDimX || !gridDimY || !gridDimZ || !blockDimX ||
	    !blockDimY || !blockDimZ || sharedMemBytes > 228 * 1024)
		return CUDA_ERROR_INVALID_VALUE;
	launches++;
	return CUDA_SUCCESS;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
			  void **kernelParams, void **extra)
{
	if (!config)
		return CUDA_ERROR_INVALID_VALUE;
	return cuLaunchKernel(f, config->gridDimX, config->gridDimY,
			      config->gridDimZ, config->blockDimX,
			      config->blockDimY, config->blockDimZ,
			      config->sharedMemBytes, config->hStream,
			      kernelParams, extra);
}

unsigned long fakecuda_driver_launches(void)
{
	return launches;
}
