/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stand-in libcupti's hooks (fakecupti/cupti.c), through which the
 * stand-in CUDA libraries (fakecuda/) play the real driver's part: tell
 * CUPTI of API calls and of the work they put on the device.  The numbers
 * are CUPTI's own (cupti_callbacks.h, cupti_*_cbid.h, cupti_activity.h),
 * copied so that the stand-in CUDA builds without the toolkit.
 */
#ifndef FAKECUPTI_H
#define FAKECUPTI_H

#include <stdint.h>

/* the GPU clock: CLOCK_MONOTONIC + this */
#define FAKECUPTI_CLOCK_OFFSET		1000000000000000ull

#define FAKECUPTI_ENTER			0	/* CUPTI_API_ENTER */
#define FAKECUPTI_EXIT			1	/* CUPTI_API_EXIT */
#define FAKECUPTI_DRIVER		1	/* CUPTI_CB_DOMAIN_DRIVER_API */
#define FAKECUPTI_RUNTIME		2	/* CUPTI_CB_DOMAIN_RUNTIME_API */

/* CUPTI_RUNTIME_TRACE_CBID_* */
#define FAKECUPTI_cudaMalloc		20
#define FAKECUPTI_cudaMemcpy		31
#define FAKECUPTI_cudaMemset		49
#define FAKECUPTI_cudaStreamSynchronize	131
#define FAKECUPTI_cudaDeviceSynchronize	165
#define FAKECUPTI_cudaLaunchKernel	211
#define FAKECUPTI_cudaLaunchKernelExC	430
/* CUPTI_DRIVER_TRACE_CBID_* */
#define FAKECUPTI_cuLaunchKernel	307
#define FAKECUPTI_cuLaunchKernelEx	652

/* CUpti_ActivityMemcpyKind */
#define FAKECUPTI_HTOD			1
#define FAKECUPTI_DTOH			2
#define FAKECUPTI_DTOD			8
#define FAKECUPTI_HTOH			9
/* CUpti_ActivitySynchronizationType */
#define FAKECUPTI_SYNC_STREAM		3
#define FAKECUPTI_SYNC_CONTEXT		4

/* an API call's entry or exit; returns its correlation id */
typedef uint32_t (*fakecupti_api_fn)(int site, uint32_t domain, uint32_t cbid,
				     const char *func, const char *symbol);
/* work on the device, inside the API call that put it there */
typedef void (*fakecupti_kernel_fn)(const char *name,
				    const unsigned int grid[3],
				    const unsigned int block[3],
				    unsigned int smem, uintptr_t stream,
				    uint64_t ns);
typedef void (*fakecupti_memcpy_fn)(uint8_t copy_kind, uint64_t bytes,
				    uintptr_t stream, uint64_t ns);
typedef void (*fakecupti_memset_fn)(uint64_t bytes, uintptr_t stream,
				    uint64_t ns);
typedef void (*fakecupti_sync_fn)(int type, uintptr_t stream);

#endif /* FAKECUPTI_H */
