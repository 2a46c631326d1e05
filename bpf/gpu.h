/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring buffer records of the gpu sensor (bpf/gpu.bpf.c): one per CUDA
 * kernel launch, written when the launch call returns to its caller.
 * Fixed-size integers and explicit padding only (see aperture.h).
 */
#ifndef APERTURE_BPF_GPU_H
#define APERTURE_BPF_GPU_H

#include "aperture.h"

/* ap_ev_gpu.api: which entry point launched the kernel */
#define AP_GPU_API_RUNTIME	0	/* cudaLaunchKernel (libcudart) */
#define AP_GPU_API_DRIVER	1	/* cuLaunchKernel (libcuda) */
#define AP_GPU_API_RUNTIME_EXC	2	/* cudaLaunchKernelExC (libcudart) */
#define AP_GPU_API_DRIVER_EX	3	/* cuLaunchKernelEx (libcuda) */
#define AP_GPU_API_NR		4

/* kernel names learned from cuModuleGetFunction, bytes with the NUL */
#define AP_GPU_NAME_LEN		64
/* threads inside a launch call at once; more are counted as
 * AP_STAT_GPU_TABLE_FULL */
#define AP_GPU_INFLIGHT		1024

/*
 * A record type of this sensor's own, outside the AP_EV_* numbering: a
 * target mapped new executable code from a file (dlopen of a library that
 * may be a CUDA one).  It only wakes the collector up; the recorder has no
 * handler for it and skips it.
 */
#define AP_EV_GPU_MAPPED	0x103

/* what is known of a launch at the entry of the call, kept per thread in
 * BPF until it returns */
struct ap_gpu_call {
	struct ap_ev_hdr hdr;	/* hdr.type = AP_EV_GPU */
	__u32 api;		/* AP_GPU_API_* */
	__u32 depth;		/* in flight only: nested launch calls */
	__u64 kernel;		/* runtime: host stub address; driver:
				 * CUfunction handle */
	__u32 grid[3];
	__u32 block[3];
	__u64 shared_mem;	/* dynamic shared memory, bytes */
	__u64 stream;		/* cudaStream_t / CUstream, 0: default */
	__u64 launch_ns;	/* entry to return of the launch call */
	__s32 result;		/* cudaError_t / CUresult returned */
	__u32 corr[2];		/* CUPTI correlation ids seen inside the
				 * call: runtime API, driver API; 0: none */
	__u32 pad;
	__u64 entry_ip;		/* the entry point called */
	char comm[AP_COMM_LEN];
	char name[AP_GPU_NAME_LEN];	/* driver API: "" when unknown */
};

/* the record: the call (its header first), then the user stack taken at
 * the return, the entry point put back as the leaf */
struct ap_ev_gpu {
	struct ap_gpu_call call;
	struct ap_stacks st;
};

struct ap_ev_gpu_mapped {
	struct ap_ev_hdr hdr;
};

/*
 * The device side: libaperture-cupti.so (inject/cupti.c), loaded into a
 * CUDA program through CUDA_INJECTION64_PATH, hands each completed CUPTI
 * activity record to two USDT probes of provider "aperture":
 *
 *   aperture:launch   (u32 correlation id, u32 domain, u32 cbid), fired
 *                     inside a launch call on the launching thread
 *   aperture:activity (const struct ap_cupti_act *), fired for each
 *                     record when CUPTI hands a buffer back
 *
 * The struct below is that ABI, read with bpf_probe_read_user.
 */
#define AP_CUPTI_PROVIDER	"aperture"

/* ap_cupti_act.kind */
#define AP_GPU_DEV_KERNEL	1
#define AP_GPU_DEV_MEMCPY	2
#define AP_GPU_DEV_MEMSET	3
#define AP_GPU_DEV_SYNC		4
#define AP_GPU_DEV_DROPPED	5	/* bytes: records CUPTI dropped */

/* aperture:launch's domain, as CUpti_CallbackDomain */
#define AP_CUPTI_DOMAIN_DRIVER	1
#define AP_CUPTI_DOMAIN_RUNTIME	2

struct ap_cupti_act {
	__u32 kind;		/* AP_GPU_DEV_* */
	__u32 corr;		/* CUPTI correlation id */
	__u64 start;		/* CLOCK_MONOTONIC ns (converted) */
	__u64 duration;		/* end - start on the GPU clock, ns */
	__u32 device;
	__u32 context;
	__u32 stream;
	__u32 sub;		/* memcpy: CUpti_ActivityMemcpyKind; sync:
				 * CUpti_ActivitySynchronizationType */
	__u64 bytes;		/* memcpy, memset */
	__u32 grid[3];
	__u32 block[3];
	__u32 static_smem;
	__u32 dynamic_smem;
	__u64 name;		/* kernel: const char * in the target */
};

/* names as CUPTI gives them (mangled), bytes with the NUL */
#define AP_GPU_DEV_NAME_LEN	256
#define AP_EV_GPU_DEV		0x110	/* 0x104 is the syscall summary */

struct ap_ev_gpu_dev {
	struct ap_ev_hdr hdr;
	struct ap_cupti_act act;
	char comm[AP_COMM_LEN];
	char name[AP_GPU_DEV_NAME_LEN];
};

#endif /* APERTURE_BPF_GPU_H */
