// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in CUDA runtime (libcudart.so.12).  Like the real one, a
 * runtime launch goes through the driver: the probe on cuLaunchKernel
 * fires inside the probe on cudaLaunchKernel, and the sensor must count
 * one launch, not two.  Device memory is host memory here; copies,
 * memsets and synchronisations are reported to the stand-in CUPTI (when
 * loaded) with the device times FAKECUDA_COPY_NS gives.
 */
#include <stdlib.h>
#include <string.h>

#include "fakecuda.h"

static cudaError_t launch(const void *func, dim3 gridDim, dim3 blockDim,
			  void **args, size_t sharedMem, cudaStream_t stream)
{
	if (!func)
		return 98;	/* cudaErrorInvalidDeviceFunction */
	/* the real runtime maps the host stub to its CUfunction */
	return cuLaunchKernel((CUfunction)func, gridDim.x, gridDim.y,
			      gridDim.z, blockDim.x, blockDim.y, blockDim.z,
			      (unsigned int)sharedMem, (CUstream)stream, args,
			      NULL);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
			     void **args, size_t sharedMem,
			     cudaStream_t stream)
{
	cudaError_t r;

	fakecuda_api(FAKECUPTI_ENTER, FAKECUPTI_RUNTIME,
		     FAKECUPTI_cudaLaunchKernel, "cudaLaunchKernel_v7000", NULL);
	r = launch(func, gridDim, blockDim, args, sharedMem, stream);
	fakecuda_api(FAKECUPTI_EXIT, FAKECUPTI_RUNTIME,
		     FAKECUPTI_cudaLaunchKernel, "cudaLaunchKernel_v7000", NULL);
	return r;
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config,
				const void *func, void **args)
{
	cudaError_t r = 1;	/* cudaErrorInvalidValue */

	fakecuda_api(FAKECUPTI_ENTER, FAKECUPTI_RUNTIME,
		     FAKECUPTI_cudaLaunchKernelExC, "cudaLaunchKernelExC_v11060",
		     NULL);
	if (config)
		r = launch(func, config->gridDim, config->blockDim, args,
			   config->dynamicSmemBytes, config->stream);
	fakecuda_api(FAKECUPTI_EXIT, FAKECUPTI_RUNTIME,
		     FAKECUPTI_cudaLaunchKernelExC, "cudaLaunchKernelExC_v11060",
		     NULL);
	return r;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	fakecuda_api(FAKECUPTI_ENTER, FAKECUPTI_RUNTIME, FAKECUPTI_cudaMalloc,
		     "cudaMalloc_v3020", NULL);
	*devPtr = calloc(1, size ? size : 1);
	fakecuda_api(FAKECUPTI_EXIT, FAKECUPTI_RUNTIME, FAKECUPTI_cudaMalloc,
		     "cudaMalloc_v3020", NULL);
	return *devPtr ? 0 : 2;	/* cudaErrorMemoryAllocation */
}

cudaError_t cudaFree(void *devPtr)
{
	free(devPtr);
	return 0;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
		       enum cudaMemcpyKind kind)
{
	/* CUpti_ActivityMemcpyKind of each cudaMemcpyKind */
	static const uint8_t copy_kind[] = {
		FAKECUPTI_HTOH, FAKECUPTI_HTOD, FAKECUPTI_DTOH, FAKECUPTI_DTOD,
	};
	const struct fakecuda_hooks *h = fakecuda_hooks();

	if ((unsigned int)kind > cudaMemcpyDeviceToDevice || !dst || !src)
		return 1;
	fakecuda_api(FAKECUPTI_ENTER, FAKECUPTI_RUNTIME, FAKECUPTI_cudaMemcpy,
		     "cudaMemcpy_v3020", NULL);
	memmove(dst, src, count);
	if (h->memcpy)
		h->memcpy(copy_kind[kind], count, 0, FAKECUDA_COPY_NS(count));
	fakecuda_api(FAKECUPTI_EXIT, FAKECUPTI_RUNTIME, FAKECUPTI_cudaMemcpy,
		     "cudaMemcpy_v3020", NULL);
	return 0;
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	const struct fakecuda_hooks *h = fakecuda_hooks();

	if (!devPtr)
		return 1;
	fakecuda_api(FAKECUPTI_ENTER, FAKECUPTI_RUNTIME, FAKECUPTI_cudaMemset,
		     "cudaMemset_v3020", NULL);
	memset(devPtr, value, count);
	if (h->memset)
		h->memset(count, 0, FAKECUDA_COPY_NS(count));
	fakecuda_api(FAKECUPTI_EXIT, FAKECUPTI_RUNTIME, FAKECUPTI_cudaMemset,
		     "cudaMemset_v3020", NULL);
	return 0;
}

cudaError_t cudaDeviceSynchronize(void)
{
	const struct fakecuda_hooks *h = fakecuda_hooks();

	fakecuda_api(FAKECUPTI_ENTER, FAKECUPTI_RUNTIME,
		     FAKECUPTI_cudaDeviceSynchronize,
		     "cudaDeviceSynchronize_v3020", NULL);
	if (h->sync)
		h->sync(FAKECUPTI_SYNC_CONTEXT, 0);
	fakecuda_api(FAKECUPTI_EXIT, FAKECUPTI_RUNTIME,
		     FAKECUPTI_cudaDeviceSynchronize,
		     "cudaDeviceSynchronize_v3020", NULL);
	return 0;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	const struct fakecuda_hooks *h = fakecuda_hooks();

	fakecuda_api(FAKECUPTI_ENTER, FAKECUPTI_RUNTIME,
		     FAKECUPTI_cudaStreamSynchronize,
		     "cudaStreamSynchronize_v3020", NULL);
	if (h->sync)
		h->sync(FAKECUPTI_SYNC_STREAM, (uintptr_t)stream);
	fakecuda_api(FAKECUPTI_EXIT, FAKECUPTI_RUNTIME,
		     FAKECUPTI_cudaStreamSynchronize,
		     "cudaStreamSynchronize_v3020", NULL);
	return 0;
}
