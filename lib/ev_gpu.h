/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gpu event of the record file (AP_TAG_GPU): one CUDA kernel launch
 * as seen on the host, its encoder and decoder (man/aperture-file.5), and
 * the recorder's handler that turns the BPF record into it.
 */
#ifndef APERTURE_EV_GPU_H
#define APERTURE_EV_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "codec.h"

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
};

/* minimum payload: every field before the name's bytes */
#define AP_GPU_PAYLOAD_MIN	98

void ap_gpu_launch__encode(const struct ap_gpu_launch *e, struct ap_buf *b);
int ap_gpu_launch__decode(const void *p, size_t len, struct ap_gpu_launch *e);
/* "runtime", "driver", "runtime-exc", "driver-ex" or "unknown" */
const char *ap_gpu_api_name(uint32_t api);

/* recorder handler for AP_EV_GPU records */
int ap_rec_gpu(struct ap_recorder *r, const void *data, size_t size);
/* the gpu sensor's "a target mapped new code" record (AP_EV_GPU_MAPPED in
 * bpf/gpu.h): the recorder re-reads the target's mappings, which arms
 * the probes on a CUDA library loaded by dlopen */
#define AP_REC_GPU_MAPPED	0x103
int ap_rec_gpu_mapped(struct ap_recorder *r, const void *data, size_t size);

#endif /* APERTURE_EV_GPU_H */
