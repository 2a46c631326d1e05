/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CUDA launch entry points with their real signatures, for a stand-in
 * runtime (libcudart.so.12) and driver (libcuda.so.1) that do nothing on a
 * GPU: the gpu sensor's tests need the ABI, not the device.
 */
#ifndef FAKECUDA_H
#define FAKECUDA_H

#include <stddef.h>
#include <stdint.h>

#include "../fakecupti/fakecupti.h"

typedef int cudaError_t;
typedef int CUresult;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUstream_st *CUstream;
typedef struct CUfunc_st *CUfunction;
typedef struct CUmod_st *CUmodule;

typedef struct dim3 {
	unsigned int x, y, z;
} dim3;

typedef struct cudaLaunchAttribute_st cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st {
	dim3 gridDim;
	dim3 blockDim;
	size_t dynamicSmemBytes;
	cudaStream_t stream;
	cudaLaunchAttribute *attrs;
	unsigned int numAttrs;
} cudaLaunchConfig_t;

typedef struct CUlaunchAttribute_st CUlaunchAttribute;
typedef struct CUlaunchConfig_st {
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute *attrs;
	unsigned int numAttrs;
} CUlaunchConfig;

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
			     void **args, size_t sharedMem,
			     cudaStream_t stream);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config,
				const void *func, void **args);
CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX,
			unsigned int gridDimY, unsigned int gridDimZ,
			unsigned int blockDimX, unsigned int blockDimY,
			unsigned int blockDimZ, unsigned int sharedMemBytes,
			CUstream hStream, void **kernelParams, void **extra);
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
			  void **kernelParams, void **extra);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
			     const char *name);
enum cudaMemcpyKind {
	cudaMemcpyHostToHost = 0,
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2,
	cudaMemcpyDeviceToDevice = 3,
	cudaMemcpyDefault = 4,
};

cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
		       enum cudaMemcpyKind kind);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
CUresult cuInit(unsigned int flags);

/* test hook: launches the stand-in driver accepted */
unsigned long fakecuda_driver_launches(void);

/* the stand-in device: a copy or memset of n bytes takes this long */
#define FAKECUDA_COPY_NS(n)	(1000 + (uint64_t)(n) / 16)

/* the stand-in CUPTI's hooks, once the injection library is loaded; NULL
 * members without it (or with the real CUPTI) */
struct fakecuda_hooks {
	fakecupti_api_fn api;
	fakecupti_kernel_fn kernel;
	fakecupti_memcpy_fn memcpy;
	fakecupti_memset_fn memset;
	fakecupti_sync_fn sync;
};

const struct fakecuda_hooks *fakecuda_hooks(void);
/* an API call's entry or exit, to the stand-in CUPTI */
uint32_t fakecuda_api(int site, uint32_t domain, uint32_t cbid,
		      const char *func, const char *symbol);

#endif
