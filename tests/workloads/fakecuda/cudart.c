// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in CUDA runtime (libcudart.so.12).  Like the real one, a
 * runtime launch goes through the driver: the probe on cuLaunchKernel
 * fires inside the probe on cudaLaunchKernel, and the sensor must count
 * one launch, not two.
 */
#include "fakecuda.h"

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
			     void **args, size_t sharedMem,
			     cudaStream_t stream)
{
	if (!func)
		return 98;	/* cudaErrorInvalidDeviceFunction */
	/* the real runtime maps the host stub to its CUfunction */
	return cuLaunchKernel((CUfunction)func, gridDim.x, gridDim.y,
			      gridDim.z, blockDim.x, blockDim.y, blockDim.z,
			      (unsigned int)sharedMem, (CUstream)stream, args,
			      NULL);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config,
				const void *func, void **args)
{
	if (!config)
		return 1;	/* cudaErrorInvalidValue */
	return cudaLaunchKernel(func, config->gridDim, config->blockDim, args,
				config->dynamicSmemBytes, config->stream);
}
