/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gpu events of the record file: one CUDA kernel launch as seen on
 * the host (AP_TAG_GPU) and one piece of work done on the device, as
 * CUPTI reports it through libaperture-cupti.so (AP_TAG_GPU_DEV); their
 * encoders and decoders (man/aperture-file.5), and the recorder's
 * handlers that turn the BPF records into them.
 */
#ifndef APERTURE_EV_GPU_H
#define APERTURE_EV_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "format/buf.h"

struct ap_recorder;

/* ap_gpu_launch.api, as AP_GPU_API_* in bpf/gpu.h */
#define AP_GPU_RUNTIME		0	/* cudaLaunchKernel */
#define AP_GPU_DRIVER		1	/* cuLaunchKernel */
#define AP_GPU_RUNTIME_EXC	2	/* cudaLaunchKernelExC */
#define AP_GPU_DRIVER_EX	3	/* cuLaunchKernelEx */
#define AP_GPU_NAME_MAX		64

struct ap_gpu_launch {
	uint64_t ts;			/* entry of the launch call */
	uint32_t pid;
	uint32_t tid;
	uint64_t kernel;		/* runtime: host stub address;
					 * driver: CUfunction handle */
	uint32_t api;			/* AP_GPU_* */
	uint32_t grid[3];
	uint32_t block[3];
	uint64_t shared_mem;		/* dynamic shared memory, bytes */
	uint64_t stream;		/* 0: the default stream */
	uint64_t launch_ns;		/* host: entry to return of the call */
	uint64_t device_ns;		/* kernel execution; 0: unknown */
	uint32_t stack_id;		/* 0: no stack */
	uint32_t cpu;
	int32_t result;			/* returned by the call: 0 success */
	char name[AP_GPU_NAME_MAX];	/* driver API name, "" if unknown */
	/* minor 2: CUPTI correlation ids of the runtime and the driver
	 * call, 0: none (after the name; absent in older files) */
	uint32_t corr[2];
};

/* minimum payload: every field before the name's bytes */
#define AP_GPU_PAYLOAD_MIN	98

void ap_gpu_launch__encode(const struct ap_gpu_launch *e, struct ap_buf *b);
int ap_gpu_launch__decode(const void *p, size_t len, struct ap_gpu_launch *e);
/* "runtime", "driver", "runtime-exc", "driver-ex" or "unknown" */
const char *ap_gpu_api_name(uint32_t api);

/* ap_gpu_dev.kind, as AP_GPU_DEV_* in bpf/gpu.h */
#define AP_GPU_KERNEL		1
#define AP_GPU_MEMCPY		2
#define AP_GPU_MEMSET		3
#define AP_GPU_SYNC		4
#define AP_GPU_DROPPED		5	/* bytes: records CUPTI dropped */
#define AP_GPU_DEV_NAME_MAX	256

/* one record of the device: a kernel's execution, a copy, a memset, a
 * synchronisation (CUPTI activity) */
struct ap_gpu_dev {
	uint64_t ts;			/* start, CLOCK_MONOTONIC */
	uint32_t pid;
	uint32_t tid;			/* the thread CUPTI reported from */
	uint32_t kind;			/* AP_GPU_KERNEL .. */
	uint32_t corr;			/* CUPTI correlation id */
	uint64_t duration_ns;		/* on the GPU clock */
	uint32_t device;
	uint32_t context;
	uint32_t stream;
	uint32_t sub;			/* memcpy: CUPTI copy kind; sync:
					 * CUPTI synchronization type */
	uint64_t bytes;
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t static_smem;
	uint32_t dynamic_smem;
	char name[AP_GPU_DEV_NAME_MAX];	/* kernel: as CUPTI gives it */
};

#define AP_GPU_DEV_PAYLOAD_MIN	90

void ap_gpu_dev__encode(const struct ap_gpu_dev *e, struct ap_buf *b);
int ap_gpu_dev__decode(const void *p, size_t len, struct ap_gpu_dev *e);
/* "HtoD", "DtoH", ... for a CUPTI copy kind; "?" when unknown */
const char *ap_gpu_copy_name(uint32_t kind);
/* "event", "stream-wait-event", "stream", "context" or "unknown" */
const char *ap_gpu_sync_name(uint32_t type);
/* "kernel", "memcpy", "memset", "sync", "dropped" */
const char *ap_gpu_dev_kind_name(uint32_t kind);

/* recorder handler for AP_EV_GPU_DEV records */
#define AP_REC_GPU_DEV		0x110
int ap_rec_gpu_dev(struct ap_recorder *r, const void *data, size_t size);

/* recorder handler for AP_EV_GPU records */
int ap_rec_gpu(struct ap_recorder *r, const void *data, size_t size);
/* the gpu sensor's "a target mapped new code" record (AP_EV_GPU_MAPPED in
 * bpf/gpu.h): the recorder re-reads the target's mappings, which arms
 * the probes on a CUDA library loaded by dlopen */
#define AP_REC_GPU_MAPPED	0x103
int ap_rec_gpu_mapped(struct ap_recorder *r, const void *data, size_t size);

struct ap_frame;
/* one of its frames as a generic record for script and the timeline */
struct ap_evdec;
struct ap_evrec;
int ap_gpu__evdec(struct ap_evdec *d, const struct ap_frame *f,
		  struct ap_evrec *r);

#endif /* APERTURE_EV_GPU_H */
